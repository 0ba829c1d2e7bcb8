import { applyEvent, type Bar, type BarEvent } from '../../shared/bars';
import { RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import type { FoldedBars, TradeRecord } from './ports';

/**
 * Volumes are stored as integers in raw base units, so sums are exact whatever the order of addition:
 * incremental bars, rebuilt bars and rollups agree to the bit. Tests scale whole amounts by this.
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
