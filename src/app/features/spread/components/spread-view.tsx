import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { toWireResolution, type ResolutionString, type SearchRow } from '@/datafeed';
import type { PairPool } from '@/shared/api/extensions';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { pairPoolsQueryOptions } from '@/app/api/pair-pools';
import { changeTraderSettings, useTraderSettings } from '@/app/hooks/use-trader-settings';
import { formatPercent } from '@/app/lib/format';
import { pairLabel, priceUnit } from '@/app/lib/orientation';
import { PALETTES } from '@/app/lib/palette';
import { MAX_SPREAD_MIN_TVL } from '@/app/lib/trader-settings';
import { useApi, useDatafeed, usePreferences } from '@/app/providers/app-providers';
import { spreadSeriesQueryOptions } from '../api/spread-series';
import { spreadLines, spreadTable, type SpreadMode } from '../lib/spread-lines';
import { SpreadChart, type DrawnLine } from './spread-chart';
import { SpreadTable } from './spread-table';

export interface SpreadViewProps {
  /** The pair on the chart (any of its pools). */
  readonly row: SearchRow;
  readonly resolution: ResolutionString;
  /** Prices inverted (lib/orientation), as the chart shows them. */
  readonly inverted?: boolean;
  readonly onOpen: (pool: PairPool) => void;
  readonly onClose: () => void;
}

/** Live trades of the Aggregate refresh the table at most this often. */
const REFRESH_AFTER_TRADE_MS = 2000;

/**
 * One pair on every DEX: a line per pool of the pair (each group's, and the Aggregate) in prices or in
 * percent from the Aggregate, at the chart's resolution; a live table of the pools; and the pair's
 * spread, the largest gap between two pools with at least the chosen TVL. data-testid="spread-view".
 */
export function SpreadView({ row, resolution, inverted = false, onOpen, onClose }: SpreadViewProps) {
  const api = useApi();
  const datafeed = useDatafeed();
  const queryClient = useQueryClient();
  const theme = usePreferences((p) => p.theme);
  const zone = usePreferences((p) => p.timeZone);
  const { spreadMinTvl } = useTraderSettings();
  const [mode, setMode] = useState<SpreadMode>('percent');
  const titleId = useId();
  const tvlId = useId();
  const series = useQuery(spreadSeriesQueryOptions(datafeed, row, resolution));
  const aggregateRow = series.data?.find((s) => s.row.exchange === AGGREGATE_GROUP)?.row;
  const pools = useQuery({
    ...pairPoolsQueryOptions(api, datafeed, aggregateRow ?? row),
    enabled: aggregateRow !== undefined,
  });
  const palette = PALETTES[theme];
  const wire = toWireResolution(resolution) ?? '60min';

  // The table follows the pair live: each Aggregate trade asks it again (at most every 2 s).
  const lastRefresh = useRef(0);
  const poolsKey = pairPoolsQueryOptions(api, datafeed, aggregateRow ?? row).queryKey;
  useEffect(() => {
    if (!aggregateRow) return undefined;
    return datafeed.onTrades({ aggregatePools: [aggregateRow.ticker] }, () => {
      const now = Date.now();
      if (now - lastRefresh.current < REFRESH_AFTER_TRADE_MS) return;
      lastRefresh.current = now;
      void queryClient.invalidateQueries({ queryKey: poolsKey });
    });
    // poolsKey is derived from aggregateRow.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [datafeed, queryClient, aggregateRow]);

  const lines: DrawnLine[] = useMemo(() => {
    const data = series.data ?? [];
    const aggregate = data.find((s) => s.row.exchange === AGGREGATE_GROUP)?.bars ?? [];
    const made = spreadLines(
      aggregate,
      data.map((s) => ({ id: s.row.ticker, bars: s.bars })),
      mode,
      inverted,
    );
    return made.map((line, i) => ({
      ...line,
      group: data[i]?.row.exchange ?? '',
      label: poolLabel(data[i]?.row),
      color: palette.series[i % palette.series.length] ?? palette.tvl,
    }));
  }, [series.data, mode, inverted, palette]);

  const table = useMemo(
    () => (pools.data ? spreadTable(pools.data.pools, row.baseUnit === '', spreadMinTvl, inverted) : undefined),
    [pools.data, row.baseUnit, spreadMinTvl, inverted],
  );
  const spread = table?.spread;
  const nameOf = (id: string | null) => pools.data?.pools.find((p) => p.pool_id === id)?.group ?? '';
  const label = pairLabel(row, inverted);

  return (
    <section className="spread" aria-labelledby={titleId} data-testid="spread-view" data-spread={spread?.percent ?? ''}>
      <div className="spread__head">
        <h2 id={titleId} className="spread__title">
          {label} on every DEX
          {spread ? (
            <span data-testid="spread-value">
              {' · spread '}
              {spread.percent === null
                ? `— (${spread.pools} pool${spread.pools === 1 ? '' : 's'} with enough TVL)`
                : `${formatPercent(spread.percent)} (${nameOf(spread.low)} to ${nameOf(spread.high)})`}
            </span>
          ) : null}
        </h2>
        <div role="group" aria-label="Lines in" className="segmented">
          {(['percent', 'price'] as const).map((m) => (
            <button
              key={m}
              type="button"
              className="button button--toggle"
              aria-pressed={mode === m}
              onClick={() => setMode(m)}
              data-testid={`spread-mode-${m}`}
            >
              {m === 'percent' ? '% from Aggregate' : 'Price'}
            </button>
          ))}
        </div>
        <label className="spread__min-tvl" htmlFor={tvlId}>
          Minimum TVL (ADA)
          <input
            id={tvlId}
            type="number"
            min={0}
            max={MAX_SPREAD_MIN_TVL}
            step={1000}
            inputMode="numeric"
            value={spreadMinTvl}
            data-testid="spread-min-tvl"
            onChange={(event) => {
              const value = event.target.valueAsNumber;
              if (Number.isFinite(value) && value >= 0 && value <= MAX_SPREAD_MIN_TVL)
                changeTraderSettings({ spreadMinTvl: value });
            }}
          />
        </label>
        <button type="button" className="button" onClick={onClose} data-testid="spread-close">
          Close<span className="visually-hidden"> the spread view</span>
        </button>
      </div>
      <SpreadChart
        lines={lines}
        mode={mode}
        palette={palette}
        timeZone={zone}
        daily={wire === '1d'}
        label={
          mode === 'percent' ? `Percent of each pool of ${label} from the Aggregate` : `Price of ${label} on each pool`
        }
      />
      <ul className="spread__legend" aria-label="Lines">
        {lines.map((line) => (
          <li key={line.id} data-testid="spread-legend-item" data-group={line.group}>
            <span className="compare-legend__swatch" style={{ background: line.color }} aria-hidden="true" />
            {line.label}
          </li>
        ))}
      </ul>
      {series.isPending ? <p role="status">Loading the pair’s pools…</p> : null}
      {series.isError ? <p role="alert">The pools could not load: {series.error.message}</p> : null}
      {pools.isError ? <p role="alert">The table could not load: {pools.error.message}</p> : null}
      {table ? (
        <SpreadTable
          rows={table.rows}
          priceUnit={priceUnit(row, inverted)}
          baseUnit={row.base}
          inverted={inverted}
          zone={zone}
          minTvl={spreadMinTvl}
          onOpen={onOpen}
        />
      ) : null}
    </section>
  );
}

/** A pool's name in the lines' legend: its group, with its number when the group has several (`Minswap #2`). */
function poolLabel(row: SearchRow | undefined): string {
  if (!row) return '';
  const n = /_Pool(\d+)$/.exec(row.symbol)?.[1];
  return n !== undefined && n !== '1' ? `${row.exchange} #${n}` : row.exchange;
}
