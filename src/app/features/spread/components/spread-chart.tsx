import { ColorType, LineSeries, createChart, type IChartApi, type ISeriesApi, type Time, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { formatPercent, formatPrice } from '@/app/lib/format';
import { ChartTimes } from '@/app/lib/chart-time';
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
export function SpreadChart(props: { readonly lines: readonly DrawnLine[]; readonly mode: SpreadMode; readonly palette: Palette; readonly timeZone: TimeZoneMode; readonly daily: boolean; readonly label: string }) {
  const { lines, mode, palette, timeZone, daily, label } = props;
  const containerRef = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<IChartApi | undefined>(undefined);
  const seriesRef = useRef<ISeriesApi<'Line'>[]>([]);
  const timesRef = useRef(new ChartTimes());

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const autoSize = typeof ResizeObserver === 'function';
    const created = createChart(container, {
      // The licence's attribution is in the page's footer (see chart-style.ts).
      layout: { attributionLogo: false },
      autoSize,
      ...(autoSize ? {} : { width: container.clientWidth || 800, height: container.clientHeight || 300 }),
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false },
    });
    setChart(created);
    return () => {
      seriesRef.current = [];
      created.remove();
      setChart(undefined);
    };
  }, []);

  useEffect(() => {
    const times = timesRef.current;
    chart?.applyOptions({
      layout: { background: { type: ColorType.Solid, color: palette.background }, textColor: palette.text },
      grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
      localization: { timeFormatter: (time: Time) => times.label(Number(time)) },
      timeScale: { tickMarkFormatter: (time: Time, tickType: number) => times.tick(Number(time), tickType) },
    });
  }, [chart, palette, timeZone, daily]);

  useEffect(() => {
    if (!chart) return;
    for (const series of seriesRef.current) chart.removeSeries(series);
    // Every line's times on one scale: display times of their union (lib/chart-time.ts).
    const times = timesRef.current;
    times.configure(timeZone, daily);
    const union = [...new Set(lines.flatMap((l) => l.points.map((p) => p.time)))].sort((a, b) => a - b);
    const shown = times.reset(union);
    const displayOf = new Map(union.map((time, i) => [time, shown[i] ?? time]));
    seriesRef.current = lines.map((line) => {
      const series = chart.addSeries(LineSeries, {
        color: line.color,
        lineWidth: line.group === 'Aggregate' ? 3 : 2,
        title: line.label,
        priceFormat: { type: 'custom', minMove: mode === 'percent' ? 0.001 : 1e-9, formatter: (value: number) => (mode === 'percent' ? formatPercent(value) : formatPrice(value)) },
        priceLineVisible: false,
      });
      series.setData(line.points.map((p) => ({ time: (displayOf.get(p.time) ?? p.time) as UTCTimestamp, value: p.value })));
      return series;
    });
    if (lines.some((l) => l.points.length > 0)) chart.timeScale().fitContent();
  }, [chart, lines, mode, timeZone, daily]);

  return <div className="spread__chart" ref={containerRef} data-testid="spread-chart" data-series={lines.filter((l) => l.points.length > 0).length} data-mode={mode} role="img" aria-label={label} />;
}
