import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';

type F64 = Float64Array<ArrayBuffer>;
type I32 = Int32Array<ArrayBuffer>;

/** Columns of bars (one bar per index): bucket start, OHLC, volume (millionths), TVL. */
export interface BarColumns {
  t: F64;
  o: F64;
  h: F64;
  l: F64;
  c: F64;
  v: F64;
  tvl: F64;
}

function columns(capacity: number): BarColumns {
  return {
    t: new Float64Array(capacity),
    o: new Float64Array(capacity),
    h: new Float64Array(capacity),
    l: new Float64Array(capacity),
    c: new Float64Array(capacity),
    v: new Float64Array(capacity),
    tvl: new Float64Array(capacity),
  };
}

function grown<T extends F64 | I32>(array: T, length: number, fill?: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  if (fill !== undefined) next.fill(fill, array.length);
  return next;
}

/** A `BarFold`'s contents (see `BarFold.handOver`). */
export interface BarFoldState {
  readonly bars: BarColumns;
  readonly next: I32;
  readonly count: number;
  readonly head: I32;
  readonly tail: I32;
  readonly lastTime: F64;
  readonly events: I32;
  readonly aggregate: I32;
  readonly outOfOrder: boolean;
}

/** Receives the bars of `BarFold.write`, one row of the bars table at a time, in key order. */
export type BarRowSink = (series: number, res: number, t: number, o: number, h: number, l: number, c: number, v: number, tvl: number) => void;

const FIRST = RESOLUTIONS[0] as Resolution;

/**
 * Every bar of a bulk load, folded as its trades are written instead of read back from the store at
 * its end. Series by series (a series is a pool's row id), trades fold into 1min bars kept in columns
 * (a linked list of bars per series: no object per bar, about 60 bytes a bar); `write` hands out every
 * series' bars in the bars table's key order, each coarser resolution rolled up from the one before.
 *
 * The arithmetic and its order are `barsFromEvents` and `rollupBars` (shared/bars.ts) exactly, as the
 * store's `rebuild` applies them, so the bars are the same to the bit: an event merges into its
 * bucket's bar as `mergeBars(bar, barOfEvent(event))`, volumes are added in the same order. That needs
 * each series' trades in time order (ties in arrival order: the order of seq); a trade older than its
 * series' latest sets `outOfOrder`, and the caller must then rebuild from the stored trades instead.
 */
export class BarFold {
  private bars: BarColumns;
  /** Index of the series' next bar, or -1. */
  private next: I32;
  private count: number;
  /** By series: first and last bar (-1: none yet), latest trade time, events folded, whether an Aggregate. */
  private head: I32;
  private tail: I32;
  private lastTime: F64;
  private events: I32;
  private aggregate: I32;
  private outOfOrderSeen: boolean;

  /** An empty fold, or one handed over from another thread (`state`). */
  constructor(state?: BarFoldState) {
    this.bars = state?.bars ?? columns(1 << 16);
    this.next = state?.next ?? new Int32Array(1 << 16);
    this.count = state?.count ?? 0;
    this.head = state?.head ?? new Int32Array(0);
    this.tail = state?.tail ?? new Int32Array(0);
    this.lastTime = state?.lastTime ?? new Float64Array(0);
    this.events = state?.events ?? new Int32Array(0);
    this.aggregate = state?.aggregate ?? new Int32Array(0);
    this.outOfOrderSeen = state?.outOfOrder ?? false;
  }

  /**
   * Everything the fold holds, to hand to another thread with the buffers it lists (transferred, not
   * copied: this fold is unusable afterwards).
   */
  handOver(): { state: BarFoldState; buffers: ArrayBuffer[] } {
    const state: BarFoldState = {
      bars: this.bars,
      next: this.next,
      count: this.count,
      head: this.head,
      tail: this.tail,
      lastTime: this.lastTime,
      events: this.events,
      aggregate: this.aggregate,
      outOfOrder: this.outOfOrderSeen,
    };
    const arrays: (F64 | I32)[] = [...Object.values(this.bars), this.next, this.head, this.tail, this.lastTime, this.events, this.aggregate];
    return { state, buffers: arrays.map((array) => array.buffer) };
  }

  /** Whether a trade came older than its series' latest (the fold is then not the bar rule's). */
  get outOfOrder(): boolean {
    return this.outOfOrderSeen;
  }

  /** Folds one trade's event into a series (`aggregate`: an Aggregate's series, counted apart in `write`'s progress). */
  add(series: number, aggregate: boolean, time: number, previousPrice: number, price: number, tvl: number, volume: number): void {
    if (series >= this.head.length) this.growSeries(series + 1);
    if (time < (this.lastTime[series] as number)) this.outOfOrderSeen = true;
    this.lastTime[series] = time;
    this.events[series] = (this.events[series] as number) + 1;
    this.aggregate[series] = aggregate ? 1 : 0;
    const bucket = bucketStart(time, FIRST);
    const last = this.tail[series] as number;
    if (last < 0 || this.bars.t[last] !== bucket) {
      this.open(series, last, bucket, previousPrice, price, tvl, volume);
      return;
    }
    // mergeBars(bar, barOfEvent(event)), term by term.
    const b = this.bars;
    b.h[last] = Math.max(b.h[last] as number, Math.max(previousPrice, price));
    b.l[last] = Math.min(b.l[last] as number, Math.min(previousPrice, price));
    b.c[last] = price;
    b.v[last] = (b.v[last] as number) + volume;
    b.tvl[last] = tvl;
  }

  /** Starts a series' next 1min bar with one event (`barOfEvent`). */
  private open(series: number, last: number, bucket: number, previousPrice: number, price: number, tvl: number, volume: number): void {
    if (this.count === this.next.length) this.growBars();
    const b = this.bars;
    const index = this.count++;
    b.t[index] = bucket;
    b.o[index] = previousPrice;
    b.h[index] = Math.max(previousPrice, price);
    b.l[index] = Math.min(previousPrice, price);
    b.c[index] = price;
    b.v[index] = volume;
    b.tvl[index] = tvl;
    this.next[index] = -1;
    if (last >= 0) this.next[last] = index;
    else this.head[series] = index;
    this.tail[series] = index;
  }

  /**
   * Hands every bar to `sink`, series by series in ascending order, each series' resolutions finest
   * first, oldest bar first: the bars table's key order. `onSeries` gets the DEX trades folded so far
   * after each series (an Aggregate's trades are its pools' too: counted once). Returns the rows.
   */
  write(sink: BarRowSink, onSeries?: (trades: number) => void): number {
    let rows = 0;
    let trades = 0;
    let scratch = columns(1024);
    for (let series = 0; series < this.head.length; series++) {
      let index = this.head[series] as number;
      if (index < 0) continue;
      // The series' 1min bars, gathered from its list.
      let n = 0;
      while (index >= 0) {
        if (n === scratch.t.length) scratch = grownColumns(scratch, n * 2);
        copyBar(this.bars, index, scratch, n++);
        index = this.next[index] as number;
      }
      for (const resolution of RESOLUTIONS) {
        // Each coarser resolution is the rollup of the one before (rollupBars), in place: the k-th
        // rolled-up bar never lies after the i-th bar it is made from.
        if (resolution !== FIRST) n = rollUp(scratch, n, resolution);
        const res = RESOLUTION_SECONDS[resolution];
        const { t, o, h, l, c, v, tvl } = scratch;
        for (let i = 0; i < n; i++) sink(series, res, t[i] as number, o[i] as number, h[i] as number, l[i] as number, c[i] as number, v[i] as number, tvl[i] as number);
        rows += n;
      }
      if (this.aggregate[series] === 0) trades += this.events[series] as number;
      onSeries?.(trades);
    }
    return rows;
  }

  private growSeries(length: number): void {
    const size = Math.max(length, this.head.length * 2, 1024);
    this.head = grown(this.head, size, -1);
    this.tail = grown(this.tail, size, -1);
    this.lastTime = grown(this.lastTime, size, Number.NEGATIVE_INFINITY);
    this.events = grown(this.events, size);
    this.aggregate = grown(this.aggregate, size);
  }

  private growBars(): void {
    const size = this.next.length * 2;
    this.bars = grownColumns(this.bars, size);
    this.next = grown(this.next, size);
  }
}

function grownColumns(from: BarColumns, length: number): BarColumns {
  return {
    t: grown(from.t, length),
    o: grown(from.o, length),
    h: grown(from.h, length),
    l: grown(from.l, length),
    c: grown(from.c, length),
    v: grown(from.v, length),
    tvl: grown(from.tvl, length),
  };
}

function copyBar(from: BarColumns, i: number, to: BarColumns, k: number): void {
  to.t[k] = from.t[i] as number;
  to.o[k] = from.o[i] as number;
  to.h[k] = from.h[i] as number;
  to.l[k] = from.l[i] as number;
  to.c[k] = from.c[i] as number;
  to.v[k] = from.v[i] as number;
  to.tvl[k] = from.tvl[i] as number;
}

/** `rollupBars` over the first `n` bars of `bars`, in place; returns the rolled-up count. */
function rollUp(bars: BarColumns, n: number, resolution: Resolution): number {
  let k = 0;
  for (let i = 0; i < n; i++) {
    const time = bucketStart(bars.t[i] as number, resolution);
    if (k > 0 && bars.t[k - 1] === time) {
      // mergeBars(last, bar): the open stays, the close and TVL are the later bar's.
      const last = k - 1;
      bars.h[last] = Math.max(bars.h[last] as number, bars.h[i] as number);
      bars.l[last] = Math.min(bars.l[last] as number, bars.l[i] as number);
      bars.c[last] = bars.c[i] as number;
      bars.v[last] = (bars.v[last] as number) + (bars.v[i] as number);
      bars.tvl[last] = bars.tvl[i] as number;
    } else {
      copyBar(bars, i, bars, k);
      bars.t[k] = time;
      k++;
    }
  }
  return k;
}
