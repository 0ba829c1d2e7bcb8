import { bucketStart, type Resolution } from './resolutions';
import type { UnixSeconds } from './time';

/**
 * The bar rule (decisions "Bars"), shared by the service's store and the datafeed so that bars built
 * from stream events equal the bars of /history.
 */

/** The part of a trade event that shapes a bar. */
export interface BarEvent {
  readonly block_time: number;
  readonly previous_price: number;
  readonly current_price: number;
  readonly current_tvl: number;
  readonly volume: number;
}

export interface Bar {
  /** Bucket start, Unix seconds. */
  readonly time: UnixSeconds;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly tvl: number;
}

/** The bar of one event on its own. */
export function barOfEvent(event: BarEvent, resolution: Resolution): Bar {
  const open = event.previous_price;
  const close = event.current_price;
  return {
    time: bucketStart(event.block_time, resolution),
    open,
    high: Math.max(open, close),
    low: Math.min(open, close),
    close,
    volume: event.volume,
    tvl: event.current_tvl,
  };
}

/**
 * Merges two consecutive partial bars of the same bucket (`later` built from events after `earlier`'s).
 * The rule is a fold, so merging partial bars gives the same bar as folding every event in order.
 */
export function mergeBars(earlier: Bar, later: Bar): Bar {
  return {
    time: earlier.time,
    open: earlier.open,
    high: Math.max(earlier.high, later.high),
    low: Math.min(earlier.low, later.low),
    close: later.close,
    volume: earlier.volume + later.volume,
    tvl: later.tvl,
  };
}

/** Folds one event into the current bar of its bucket (or starts that bucket's bar). */
export function applyEvent(current: Bar | undefined, event: BarEvent, resolution: Resolution): Bar {
  const next = barOfEvent(event, resolution);
  return current !== undefined && current.time === next.time ? mergeBars(current, next) : next;
}

/** Folds a time-ordered run of events into bars, one per non-empty bucket. */
export function barsFromEvents(events: Iterable<BarEvent>, resolution: Resolution): Bar[] {
  const bars: Bar[] = [];
  for (const event of events) {
    const last = bars.at(-1);
    const next = applyEvent(last, event, resolution);
    if (last !== undefined && last.time === next.time) bars[bars.length - 1] = next;
    else bars.push(next);
  }
  return bars;
}

/** Rolls time-ordered fine bars up into coarser ones (a coarse bar is the merge of the fine bars inside it). */
export function rollupBars(bars: Iterable<Bar>, resolution: Resolution): Bar[] {
  const out: Bar[] = [];
  for (const bar of bars) {
    const time = bucketStart(bar.time, resolution);
    const last = out.at(-1);
    if (last !== undefined && last.time === time) out[out.length - 1] = mergeBars(last, bar);
    else out.push({ ...bar, time });
  }
  return out;
}
