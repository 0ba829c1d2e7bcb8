import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../../shared/resolutions';

type F64 = Float64Array<ArrayBuffer>;
type I32 = Int32Array<ArrayBuffer>;

/**
 * Numbers per bar in a fold's one array, in this order: bucket start, OHLC, volume (raw base units), TVL,
 * and the index of the series' next bar (-1: none). One bar is one cache line, read at once.
 */
const STRIDE = 8;
const T = 0;
const O = 1;
const H = 2;
const L = 3;
const C = 4;
const V = 5;
const TVL = 6;
const NEXT = 7;

function grown<A extends F64 | I32>(array: A, length: number, fill?: number): A {
  const next = new (array.constructor as new (n: number) => A)(length);
  next.set(array);
  if (fill !== undefined) next.fill(fill, array.length);
  return next;
}

/** A `BarFold`'s contents (see `BarFold.handOver`). */
export interface BarFoldState {
  /** `STRIDE` numbers per bar. */
  readonly bars: F64;
  readonly count: number;
  /** By series: first and last bar (-1: none yet), latest trade time, events folded, whether an Aggregate (1). */
  readonly head: I32;
  readonly tail: I32;
  readonly lastTime: F64;
  readonly events: I32;
  readonly aggregate: I32;
  readonly outOfOrder: boolean;
}

/** Receives the bars of `BarFold.write`, one row of the bars table at a time, in key order. */
export type BarRowSink = (
  series: number,
  res: number,
  t: number,
  o: number,
  h: number,
  l: number,
  c: number,
  v: number,
  tvl: number,
) => void;

const FIRST = RESOLUTIONS[0] as Resolution;

/**
 * Every bar of a bulk load, folded as its trades are made instead of read back from the store at its
 * end. Series by series (a series is a pool's row id), trades fold into 1min bars kept in one array
 * (a linked list of bars per series: no object per bar, 64 bytes a bar); `write` hands out every
 * series' bars in the bars table's key order, each coarser resolution rolled up from the one before.
 *
 * The arithmetic and its order are `barsFromEvents` and `rollupBars` (shared/bars.ts) exactly, as the
 * store's `rebuild` applies them, so the bars are the same to the bit: an event merges into its
 * bucket's bar as `mergeBars(bar, barOfEvent(event))`, volumes are added in the same order. That needs
 * each series' trades in time order (ties in arrival order: the order of seq); a trade older than its
 * series' latest sets `outOfOrder`, and the caller must then rebuild from the stored trades instead.
 */
export class BarFold {
  private bars: F64;
  private count: number;
  private head: I32;
  private tail: I32;
  private lastTime: F64;
  private events: I32;
  private aggregate: I32;
  private outOfOrderSeen: boolean;

  /** An empty fold, or one handed over from another thread (`state`). */
  constructor(state?: BarFoldState) {
    this.bars = state?.bars ?? new Float64Array(STRIDE << 16);
    this.count = state?.count ?? 0;
    this.head = state?.head ?? new Int32Array(0);
    this.tail = state?.tail ?? new Int32Array(0);
    this.lastTime = state?.lastTime ?? new Float64Array(0);
    this.events = state?.events ?? new Int32Array(0);
    this.aggregate = state?.aggregate ?? new Int32Array(0);
    this.outOfOrderSeen = state?.outOfOrder ?? false;
  }

  /** Whether a trade came older than its series' latest (the fold is then not the bar rule's). */
  get outOfOrder(): boolean {
    return this.outOfOrderSeen;
  }

  /**
   * Everything the fold holds, to hand to another thread with the buffers it lists (transferred, not
   * copied: this fold is unusable afterwards).
   */
  handOver(): { state: BarFoldState; buffers: ArrayBuffer[] } {
    const state: BarFoldState = {
      bars: this.bars,
      count: this.count,
      head: this.head,
      tail: this.tail,
      lastTime: this.lastTime,
      events: this.events,
      aggregate: this.aggregate,
      outOfOrder: this.outOfOrderSeen,
    };
    return {
      state,
      buffers: [this.bars, this.head, this.tail, this.lastTime, this.events, this.aggregate].map(
        (array) => array.buffer,
      ),
    };
  }

  /** Folds one trade's event into a series (`aggregate`: an Aggregate's series, counted apart in `write`'s progress). */
  add(
    series: number,
    aggregate: boolean,
    time: number,
    previousPrice: number,
    price: number,
    tvl: number,
    volume: number,
  ): void {
    if (series >= this.head.length) this.growSeries(series + 1);
    if (time < (this.lastTime[series] as number)) this.outOfOrderSeen = true;
    this.lastTime[series] = time;
    this.events[series] = (this.events[series] as number) + 1;
    this.aggregate[series] = aggregate ? 1 : 0;
    const bucket = bucketStart(time, FIRST);
    const last = this.tail[series] as number;
    const b = this.bars;
    const at = last * STRIDE;
    if (last < 0 || b[at + T] !== bucket) {
      this.open(series, last, bucket, previousPrice, price, tvl, volume);
      return;
    }
    // mergeBars(bar, barOfEvent(event)), term by term.
    b[at + H] = Math.max(b[at + H] as number, Math.max(previousPrice, price));
    b[at + L] = Math.min(b[at + L] as number, Math.min(previousPrice, price));
    b[at + C] = price;
    b[at + V] = (b[at + V] as number) + volume;
    b[at + TVL] = tvl;
  }

  /**
   * Hands every bar to `sink`, series by series in ascending order, each series' resolutions finest
   * first, oldest bar first: the bars table's key order. `onSeries` gets the DEX trades folded so far
   * after each series (an Aggregate's trades are its pools' too: counted once). Returns the rows.
   */
  write(sink: BarRowSink, onSeries?: (trades: number) => void): number {
    let rows = 0;
    let trades = 0;
    let scratch = new Float64Array(STRIDE * 1024);
    for (let series = 0; series < this.head.length; series++) {
      let index = this.head[series] as number;
      if (index < 0) continue;
      // The series' 1min bars, gathered from its list.
      let n = 0;
      while (index >= 0) {
        if ((n + 1) * STRIDE > scratch.length) scratch = grown(scratch, scratch.length * 2);
        const from = index * STRIDE;
        const to = n * STRIDE;
        for (let j = 0; j < STRIDE; j++) scratch[to + j] = this.bars[from + j] as number;
        index = this.bars[from + NEXT] as number;
        n++;
      }
      for (const resolution of RESOLUTIONS) {
        // Each coarser resolution is the rollup of the one before (rollupBars), in place: the k-th
        // rolled-up bar never lies after the i-th bar it is made from.
        if (resolution !== FIRST) n = rollUp(scratch, n, resolution);
        const res = RESOLUTION_SECONDS[resolution];
        for (let i = 0, at = 0; i < n; i++, at += STRIDE) {
          sink(
            series,
            res,
            scratch[at + T] as number,
            scratch[at + O] as number,
            scratch[at + H] as number,
            scratch[at + L] as number,
            scratch[at + C] as number,
            scratch[at + V] as number,
            scratch[at + TVL] as number,
          );
        }
        rows += n;
      }
      if (this.aggregate[series] === 0) trades += this.events[series] as number;
      onSeries?.(trades);
    }
    return rows;
  }

  /** Starts a series' next 1min bar with one event (`barOfEvent`). */
  private open(
    series: number,
    last: number,
    bucket: number,
    previousPrice: number,
    price: number,
    tvl: number,
    volume: number,
  ): void {
    if ((this.count + 1) * STRIDE > this.bars.length) this.bars = grown(this.bars, this.bars.length * 2);
    const b = this.bars;
    const index = this.count++;
    const at = index * STRIDE;
    b[at + T] = bucket;
    b[at + O] = previousPrice;
    b[at + H] = Math.max(previousPrice, price);
    b[at + L] = Math.min(previousPrice, price);
    b[at + C] = price;
    b[at + V] = volume;
    b[at + TVL] = tvl;
    b[at + NEXT] = -1;
    if (last >= 0) b[last * STRIDE + NEXT] = index;
    else this.head[series] = index;
    this.tail[series] = index;
  }

  private growSeries(length: number): void {
    const size = Math.max(length, this.head.length * 2, 1024);
    this.head = grown(this.head, size, -1);
    this.tail = grown(this.tail, size, -1);
    this.lastTime = grown(this.lastTime, size, Number.NEGATIVE_INFINITY);
    this.events = grown(this.events, size);
    this.aggregate = grown(this.aggregate, size);
  }
}

/** `rollupBars` over the first `n` bars of `bars` (`STRIDE` numbers each), in place; returns the rolled-up count. */
function rollUp(bars: F64, n: number, resolution: Resolution): number {
  let k = 0;
  for (let i = 0; i < n; i++) {
    const at = i * STRIDE;
    const time = bucketStart(bars[at + T] as number, resolution);
    const last = (k - 1) * STRIDE;
    if (k > 0 && bars[last + T] === time) {
      // mergeBars(last, bar): the open stays, the close and TVL are the later bar's.
      bars[last + H] = Math.max(bars[last + H] as number, bars[at + H] as number);
      bars[last + L] = Math.min(bars[last + L] as number, bars[at + L] as number);
      bars[last + C] = bars[at + C] as number;
      bars[last + V] = (bars[last + V] as number) + (bars[at + V] as number);
      bars[last + TVL] = bars[at + TVL] as number;
    } else {
      if (k !== i) bars.copyWithin(k * STRIDE, at, at + STRIDE);
      bars[k * STRIDE + T] = time;
      k++;
    }
  }
  return k;
}
