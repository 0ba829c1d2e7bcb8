import { useQuery } from '@tanstack/react-query';
import { ColorType, LineSeries, createChart, type IChartApi, type ISeriesApi, type Time, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ResolutionString, SearchRow } from '../../../../datafeed';
import { ErrorState } from '../../../components/error-state';
import { formatPercent, trendOf } from '../../../lib/format';
import { PALETTES } from '../../../lib/palette';
import { formatDateTime, formatTick, type TimeZoneMode } from '../../../lib/time-format';
import { useDatafeed } from '../../../providers/app-providers';
import type { Theme } from '../../../stores/preferences-store';
import { compareSeriesQueryOptions } from '../api/compare-series';
import { normaliseSeries } from '../lib/normalise';

export interface CompareChartProps {
  readonly row: SearchRow;
  readonly resolution: ResolutionString;
  readonly theme: Theme;
  readonly timeZone: TimeZoneMode;
}

/**
 * Compare mode: the pair's price on Aggregate and on each DEX pool, as percent change from a common
 * start, one line each. data-testid="compare-chart" with data-series (lines drawn).
 */
export function CompareChart({ row, resolution, theme, timeZone }: CompareChartProps) {
  const datafeed = useDatafeed();
  const query = useQuery(compareSeriesQueryOptions(datafeed, row, resolution));
  const containerRef = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<IChartApi | undefined>(undefined);
  const seriesRef = useRef<ISeriesApi<'Line'>[]>([]);
  const palette = PALETTES[theme];

  const normalised = useMemo(() => {
    const pools = query.data ?? [];
    return normaliseSeries(pools.map((p) => ({ id: p.row.ticker, bars: p.bars.map((b) => ({ time: b.time / 1000, close: b.close })) }))).map((series, i) => ({
      ...series,
      pool: pools[i],
    }));
  }, [query.data]);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const autoSize = typeof ResizeObserver === 'function';
    const created = createChart(container, {
      autoSize,
      ...(autoSize ? {} : { width: container.clientWidth || 800, height: container.clientHeight || 420 }),
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
    chart?.applyOptions({
      layout: { background: { type: ColorType.Solid, color: palette.background }, textColor: palette.text },
      grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
      localization: { timeFormatter: (time: Time) => formatDateTime(Number(time), timeZone, true) },
      timeScale: { tickMarkFormatter: (time: Time, tickType: number) => formatTick(Number(time), tickType, timeZone) },
    });
  }, [chart, palette, timeZone]);

  useEffect(() => {
    if (!chart) return;
    for (const series of seriesRef.current) chart.removeSeries(series);
    seriesRef.current = normalised.map((s, i) => {
      const line = chart.addSeries(LineSeries, {
        color: palette.series[i % palette.series.length] ?? palette.tvl,
        lineWidth: s.pool?.row.exchange === 'Aggregate' ? 3 : 2,
        title: s.pool?.row.exchange ?? '',
        priceFormat: { type: 'custom', minMove: 0.01, formatter: (value: number) => formatPercent(value) },
        priceLineVisible: false,
      });
      line.setData(s.points.map((p) => ({ time: p.time as UTCTimestamp, value: p.value })));
      return line;
    });
    if (normalised.some((s) => s.points.length > 0)) chart.timeScale().fitContent();
  }, [chart, normalised, palette]);

  const drawn = normalised.filter((s) => s.points.length > 0).length;
  return (
    <section className="chart" aria-label={`Compare ${row.base}/${row.quote} across DEX pools`}>
      <div className="chart__canvas" ref={containerRef} data-testid="compare-chart" data-series={drawn} data-status={query.status} role="img" aria-label={`Percent change of ${row.base}/${row.quote} on each pool`} />
      {query.data ? (
        <ul className="compare-legend" aria-label="Compared pools" data-testid="compare-legend">
          {normalised.map((s, i) => (
            <li key={s.id} data-testid="compare-legend-item" data-group={s.pool?.row.exchange}>
              <span className="compare-legend__swatch" style={{ background: palette.series[i % palette.series.length] }} aria-hidden="true" />
              <span>{s.pool?.row.exchange}</span>
              {s.pool?.error ? (
                <span className="compare-legend__error">{s.pool.error}</span>
              ) : s.last === undefined ? (
                <span className="compare-legend__muted">no trades</span>
              ) : (
                <span className={`trend trend--${trendOf(s.last)}`}>{formatPercent(s.last)}</span>
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
          <ErrorState title="Compare mode could not load" message={query.error.message} onRetry={() => void query.refetch()} testId="compare-error" />
        </div>
      ) : null}
      {query.data && query.data.length <= 1 ? (
        <p className="compare-note" role="note" data-testid="compare-single">
          {row.base}/{row.quote} trades on a single pool: nothing to compare.
        </p>
      ) : null}
    </section>
  );
}
