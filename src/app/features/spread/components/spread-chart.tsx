import { LineSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect } from 'react';
import { useLineChart } from '@/app/hooks/use-line-chart';
import { formatPercent, formatPrice } from '@/app/lib/format';
import type { Palette } from '@/app/lib/palette';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { SpreadLine, SpreadMode } from '../lib/spread-lines';

/** A line as drawn: its pool's group (the Aggregate's is thicker) and colour. */
export interface DrawnLine extends SpreadLine {
  readonly group: string;
  /** Its name: the group, numbered when the group has several pools of the pair. */
  readonly label: string;
  readonly color: string;
}

/**
 * The spread view's chart: a line per pool of the pair (lightweight-charts, as compare mode draws its
 * lines), in prices or in percent from the Aggregate. data-testid="spread-chart" with data-series.
 */
export function SpreadChart(props: {
  readonly lines: readonly DrawnLine[];
  readonly mode: SpreadMode;
  readonly palette: Palette;
  readonly timeZone: TimeZoneMode;
  readonly daily: boolean;
  readonly label: string;
}) {
  const { lines, mode, palette, timeZone, daily, label } = props;
  const { containerRef, chart, seriesRef, displayTimes } = useLineChart({
    palette,
    timeZone,
    daily,
    fallbackHeight: 300,
  });

  useEffect(() => {
    if (!chart) return;
    for (const series of seriesRef.current) chart.removeSeries(series);
    const displayOf = displayTimes(lines.flatMap((l) => l.points.map((p) => p.time)));
    seriesRef.current = lines.map((line) => {
      const series = chart.addSeries(LineSeries, {
        color: line.color,
        lineWidth: line.group === 'Aggregate' ? 3 : 2,
        title: line.label,
        priceFormat: {
          type: 'custom',
          minMove: mode === 'percent' ? 0.001 : 1e-9,
          formatter: (value: number) => (mode === 'percent' ? formatPercent(value) : formatPrice(value)),
        },
        priceLineVisible: false,
      });
      series.setData(
        line.points.map((p) => ({ time: (displayOf.get(p.time) ?? p.time) as UTCTimestamp, value: p.value })),
      );
      return series;
    });
    if (lines.some((l) => l.points.length > 0)) chart.timeScale().fitContent();
  }, [chart, seriesRef, displayTimes, lines, mode]);

  return (
    <div
      className="spread__chart"
      ref={containerRef}
      data-testid="spread-chart"
      data-series={lines.filter((l) => l.points.length > 0).length}
      data-mode={mode}
      role="img"
      aria-label={label}
    />
  );
}
