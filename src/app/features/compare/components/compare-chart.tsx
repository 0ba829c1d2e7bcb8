import { useQuery } from '@tanstack/react-query';
import { LineSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef } from 'react';
import { toWireResolution, type ResolutionString, type SearchRow } from '@/datafeed';
import { ErrorState } from '@/app/components/error-state';
import { formatPercent, percentTrend } from '@/app/lib/format';
import { PALETTES } from '@/app/lib/palette';
import { useLineChart } from '@/app/hooks/use-line-chart';
import type { TimeZoneMode } from '@/app/lib/time-format';
import { useDatafeed } from '@/app/providers/app-providers';
import type { Theme } from '@/app/stores/preferences-store';
import { compareSeriesQueryOptions } from '../api/compare-series';
import { normaliseSeries } from '../lib/normalise';
import { pairLabel } from '@/app/lib/orientation';

/** A compared line as drawn: its pool, colour and points (Unix seconds, percent change). */
export interface CompareLine {
  readonly symbol: string;
  readonly group: string;
  readonly color: string;
  readonly points: readonly { readonly time: number; readonly value: number }[];
}

/** What other features (export) may ask of the compare chart; handed to the shell through `onHandle`. */
export interface CompareHandle {
  /** The lines drawn, each cut to the time range in view. */
  visibleLines(): CompareLine[];
  screenshot(): HTMLCanvasElement;
}

export interface CompareChartProps {
  readonly row: SearchRow;
  readonly resolution: ResolutionString;
  readonly theme: Theme;
  readonly timeZone: TimeZoneMode;
  readonly onHandle?: (handle: CompareHandle | undefined) => void;
}

/**
 * Compare mode: the pair's price on Aggregate and on each DEX pool, as percent change from a common
 * start, one line each. data-testid="compare-chart" with data-series (lines drawn).
 */
export function CompareChart({ row, resolution, theme, timeZone, onHandle }: CompareChartProps) {
  const datafeed = useDatafeed();
  const query = useQuery(compareSeriesQueryOptions(datafeed, row, resolution));
  const palette = PALETTES[theme];
  const daily = toWireResolution(resolution) === '1d';
  // Times as the chart sees them: moved in Local mode so that day marks fall on local midnight.
  const { containerRef, chart, seriesRef, displayTimes } = useLineChart({
    palette,
    timeZone,
    daily,
    fallbackHeight: 420,
  });

  const normalised = useMemo(() => {
    const pools = query.data ?? [];
    return normaliseSeries(pools.map((p) => ({ id: p.row.ticker, bars: p.bars }))).map((series, i) => ({
      ...series,
      pool: pools[i],
    }));
  }, [query.data]);

  useEffect(() => {
    if (!chart) return;
    for (const series of seriesRef.current) chart.removeSeries(series);
    // Every line's times on one scale (true times stay in `normalised`).
    const displayOf = displayTimes(normalised.flatMap((s) => s.points.map((p) => p.time)));
    seriesRef.current = normalised.map((s, i) => {
      const line = chart.addSeries(LineSeries, {
        color: palette.series[i % palette.series.length] ?? palette.tvl,
        lineWidth: s.pool?.row.exchange === 'Aggregate' ? 3 : 2,
        title: s.pool?.row.exchange ?? '',
        priceFormat: { type: 'custom', minMove: 0.01, formatter: (value: number) => formatPercent(value) },
        priceLineVisible: false,
      });
      line.setData(s.points.map((p) => ({ time: (displayOf.get(p.time) ?? p.time) as UTCTimestamp, value: p.value })));
      return line;
    });
    if (normalised.some((s) => s.points.length > 0)) chart.timeScale().fitContent();
  }, [chart, seriesRef, displayTimes, normalised, palette]);

  // The lines as drawn, for the export handle (read when the user exports, not on every render).
  const lines = useMemo(
    () =>
      normalised.flatMap((s, i) =>
        s.pool && s.points.length > 0
          ? [
              {
                symbol: s.pool.row.symbol,
                group: s.pool.row.exchange,
                color: palette.series[i % palette.series.length] ?? palette.tvl,
                points: s.points,
              },
            ]
          : [],
      ),
    [normalised, palette],
  );
  const linesRef = useRef(lines);
  useEffect(() => {
    linesRef.current = lines;
  }, [lines]);

  useEffect(() => {
    if (!onHandle || !chart) return undefined;
    onHandle({
      visibleLines: () => visibleLines(linesRef.current, chart.timeScale().getVisibleLogicalRange()),
      screenshot: () => chart.takeScreenshot(),
    });
    return () => onHandle(undefined);
  }, [chart, onHandle]);

  const drawn = lines.length;
  return (
    <section className="chart" aria-label={`Compare ${pairLabel(row)} across DEX pools`}>
      <div
        className="chart__canvas"
        ref={containerRef}
        data-testid="compare-chart"
        data-series={drawn}
        data-status={query.status}
        role="img"
        aria-label={`Percent change of ${pairLabel(row)} on each pool`}
      />
      {query.data ? (
        <ul className="compare-legend" aria-label="Compared pools" data-testid="compare-legend">
          {normalised.map((s, i) => (
            <li key={s.id} data-testid="compare-legend-item" data-group={s.pool?.row.exchange}>
              <span
                className="compare-legend__swatch"
                style={{ background: palette.series[i % palette.series.length] }}
                aria-hidden="true"
              />
              <span>{s.pool?.row.exchange}</span>
              {s.pool?.error ? (
                <span className="compare-legend__error">{s.pool.error}</span>
              ) : s.last === undefined ? (
                <span className="compare-legend__muted">no trades</span>
              ) : (
                <span className={`trend trend--${percentTrend(s.last)}`}>{formatPercent(s.last)}</span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {query.isPending ? (
        <div className="chart__overlay" role="status" data-testid="compare-loading">
          Loading the pair’s pools…
        </div>
      ) : null}
      {query.isError ? (
        <div className="chart__overlay">
          <ErrorState
            title="Compare mode could not load"
            message={query.error.message}
            onRetry={() => void query.refetch()}
            testId="compare-error"
          />
        </div>
      ) : null}
      {query.data && query.data.length <= 1 ? (
        <p className="compare-note" role="note" data-testid="compare-single">
          {pairLabel(row)} trades on a single pool: nothing to compare.
        </p>
      ) : null}
    </section>
  );
}

/**
 * The lines cut to the logical range in view. The time scale's logical indexes count the union of
 * every line's times (lightweight-charts merges the series' times into one scale).
 */
function visibleLines(lines: readonly CompareLine[], range: { from: number; to: number } | null): CompareLine[] {
  if (!range) return [...lines];
  const times = [...new Set(lines.flatMap((l) => l.points.map((p) => p.time)))].sort((a, b) => a - b);
  const first = times[Math.max(0, Math.ceil(range.from))];
  const last = times[Math.min(times.length - 1, Math.floor(range.to))];
  if (first === undefined || last === undefined || last < first) return [];
  return lines.map((line) => ({ ...line, points: line.points.filter((p) => p.time >= first && p.time <= last) }));
}
