import { applyEvent, type Bar, type BarEvent } from '../../shared/bars';
import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import type { AggregateColumns, CommitBatch, FoldedBars, TradeRecord } from './ports';

/**
 * Volumes are stored as integers in millionths of a whole base unit, so sums are exact whatever the
 * order of addition: incremental bars, rebuilt bars and rollups agree to the bit.
 */
export const VOLUME_SCALE = 1_000_000;

const RES_COUNT = RESOLUTIONS.length;

/** The events of a record for its pool's series and for its Aggregate's series. */
function poolEvent(r: TradeRecord): BarEvent {
  return {
    block_time: r.blockTime,
    previous_price: r.prevPrice,
    current_price: r.price,
    current_tvl: r.tvl,
    volume: r.volume,
  };
}
function aggEvent(r: TradeRecord): BarEvent {
  return {
    block_time: r.blockTime,
    previous_price: r.aggPrevPrice,
    current_price: r.aggPrice,
    current_tvl: r.aggTvl,
    volume: r.volume,
  };
}

/** Bars touched by a batch of trades, folded in memory (per series and resolution, in time order). */
export class BarBatch implements FoldedBars {
  private readonly series = new Map<number, Bar[]>();

  add(record: TradeRecord): void {
    this.fold(record.pool, poolEvent(record));
    this.fold(record.agg, aggEvent(record));
  }

  /** The trade's pool's bars only (its Aggregate's are folded elsewhere). */
  addPool(record: TradeRecord): void {
    this.fold(record.pool, poolEvent(record));
  }

  private fold(series: number, event: BarEvent): void {
    for (let r = 0; r < RES_COUNT; r++) {
      const key = series * RES_COUNT + r;
      let bars = this.series.get(key);
      if (!bars) this.series.set(key, (bars = []));
      const last = bars.at(-1);
      const next = applyEvent(last, event, RESOLUTIONS[r] as Resolution);
      if (last !== undefined && last.time === next.time) bars[bars.length - 1] = next;
      else bars.push(next);
    }
  }

  get size(): number {
    return this.series.size;
  }

  /** Every touched bar, ordered by (series, resolution, time): the bars table's key order, so writes hit the B-tree in sequence. */
  *entries(): Generator<{ series: number; resolution: Resolution; bar: Bar }> {
    const keys = [...this.series.keys()].sort((a, b) => a - b);
    for (const key of keys) {
      const bars = this.series.get(key) ?? [];
      const series = Math.floor(key / RES_COUNT);
      const resolution = RESOLUTIONS[key % RES_COUNT] as Resolution;
      for (const bar of bars) yield { series, resolution, bar };
    }
  }

  clear(): void {
    this.series.clear();
  }
}

/**
 * The buckets holding `times` at `resolution`, as runs of adjacent buckets: `[start, end)` in Unix
 * seconds, ascending. What a re-fold of exactly the touched buckets reads and rewrites.
 */
export function bucketRuns(times: Iterable<number>, resolution: Resolution): [number, number][] {
  const span = RESOLUTION_SECONDS[resolution];
  const starts = [...new Set([...times].map((time) => bucketStart(time, resolution)))].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const start of starts) {
    const last = runs.at(-1);
    if (last !== undefined && last[1] === start) last[1] = start + span;
    else runs.push([start, start + span]);
  }
  return runs;
}

/** Whether a trade's stored Aggregate columns are those given (exactly). */
export function sameColumns(stored: AggregateColumns, next: AggregateColumns): boolean {
  return (
    stored.aggPrevPrice === next.aggPrevPrice &&
    stored.aggPrice === next.aggPrice &&
    stored.aggPrevTvl === next.aggPrevTvl &&
    stored.aggTvl === next.aggTvl
  );
}

/**
 * A batch's re-folds with the times of the trades whose Aggregate columns `reaggregate` changed (by
 * Aggregate series) added to their series': every bucket whose trades changed, once.
 */
export function mergeRefolds(
  refold: CommitBatch['refold'],
  changed: ReadonlyMap<number, readonly number[]>,
): { series: number; aggregate: boolean; times: Set<number> }[] {
  const merged = new Map<string, { series: number; aggregate: boolean; times: Set<number> }>();
  const add = (series: number, aggregate: boolean, times: Iterable<number>) => {
    const key = `${aggregate ? 'a' : 'p'}${series}`;
    const entry = merged.get(key) ?? { series, aggregate, times: new Set<number>() };
    for (const time of times) entry.times.add(time);
    merged.set(key, entry);
  };
  for (const r of refold ?? []) add(r.series, r.aggregate, r.times);
  for (const [agg, times] of changed) if (times.length > 0) add(agg, true, times);
  return [...merged.values()];
}
