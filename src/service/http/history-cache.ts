import { LRUCache } from 'lru-cache';
import { RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import type { Market } from '../market/model';
import { shift } from '../market/units';
import type { BarStore, TradeRecord } from '../store/ports';

/**
 * Serialised /history, assembled from cached chunks. A chunk holds 1,440 buckets of one series and
 * resolution (a day of 1min bars, five days of 5min bars, ...) as columns and as ready-made JSON
 * fragments with the offset of every number in them. A request sends the fragments of the chunks it
 * covers, and slices of them at its edges, as they are: 30 days of 1min bars cost no serialisation
 * and no copy instead of a query and a JSON.stringify of 150,000 numbers. The ingest path invalidates exactly the chunks a commit touched.
 */

const BUCKETS_PER_CHUNK = 1440;
const COLUMNS = 7; // t, o, h, l, c, v, tvl: stored in raw units, served in whole units (market/units.ts)

interface Chunk {
  /** Bar start times, for finding a range's edges. */
  readonly times: Float64Array;
  readonly count: number;
  /** UTF-8 JSON fragments of the whole chunk, one per column (numbers joined by commas). */
  readonly joined: Buffer[];
  /** Per column, where each bar's number starts in `joined` (and one past the end plus one): any run of bars is a slice. */
  readonly offsets: Uint32Array[];
  readonly bytes: number;
}

const COMMA = Buffer.from(',');
const HEADS = ['{"s":"ok","t":[', '],"o":[', '],"h":[', '],"l":[', '],"c":[', '],"v":[', '],"tvl":['].map((h) =>
  Buffer.from(h),
);
const TAIL = Buffer.from(']}');

interface Extent {
  readonly first: number;
  readonly last: number;
}

export interface HistoryCacheOptions {
  /** Memory budget of the cache, bytes. */
  readonly maxBytes?: number;
}

const spanOf = (resolution: Resolution) => RESOLUTION_SECONDS[resolution] * BUCKETS_PER_CHUNK;

export class HistoryCache {
  private readonly chunks: LRUCache<string, Chunk>;
  /** First and last bar time per series and resolution (undefined: no bars). */
  private readonly extents = new Map<string, Extent | null>();
  /**
   * Bumped by every invalidation: a read that started before one is answered but not cached, since the
   * store may have changed between the read and its answer.
   */
  private generation = 0;
  /** Chunk lookups answered from the cache, and those read from the store (metrics). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly bars: BarStore,
    /** The market whose decimals turn the stored raw bars into whole units (a series is a pool's row id). */
    private readonly market: Market,
    options: HistoryCacheOptions = {},
  ) {
    this.chunks = new LRUCache({
      maxSize: options.maxBytes ?? 128 * 1024 * 1024,
      sizeCalculation: (chunk) => Math.max(1, chunk.bytes),
    });
  }

  /** Bytes the cached chunks hold. */
  get bytes(): number {
    return this.chunks.calculatedSize;
  }

  /**
   * Forgets what a chain rollback may have changed, and only that: for each series it touched (the pools
   * it put back and their Aggregates), the chunks from the one holding `after` on, at every resolution,
   * and its extents; every chunk of the pool row ids it freed (they will be handed out again). The rest
   * of the cache — other pools, and these pools' bars before the point — stays.
   */
  forget(rolledBack: {
    readonly after: number;
    readonly series: ReadonlySet<number>;
    readonly freedFrom?: number;
  }): void {
    this.generation++;
    const { after, series, freedFrom } = rolledBack;
    const touched = (id: number) => series.has(id) || (freedFrom !== undefined && id >= freedFrom);
    for (const key of [...this.chunks.keys()]) {
      const [id, resolution, index] = key.split(':');
      const pool = Number(id);
      if (freedFrom !== undefined && pool >= freedFrom) this.chunks.delete(key);
      else if (series.has(pool) && Number(index) >= Math.floor(after / spanOf(resolution as Resolution)))
        this.chunks.delete(key);
    }
    for (const key of [...this.extents.keys()]) if (touched(Number(key.split(':')[0]))) this.extents.delete(key);
  }

  /**
   * Forgets everything: an API node that reloaded its market from the store, and a writer after a token's
   * decimals changed (bars are served in whole units of the decimals known when they were cached).
   */
  clear(): void {
    this.generation++;
    this.chunks.clear();
    this.extents.clear();
  }

  /** Forgets what a commit changed: the chunks holding each trade's buckets, for its pool and Aggregate. */
  invalidate(records: readonly TradeRecord[]): void {
    this.generation++;
    if (this.chunks.size === 0 && this.extents.size === 0) return;
    for (const record of records) {
      for (const resolution of RESOLUTIONS) {
        const chunk = Math.floor(record.blockTime / spanOf(resolution));
        for (const series of [record.pool, record.agg]) {
          this.chunks.delete(`${series}:${resolution}:${chunk}`);
          this.extents.delete(`${series}:${resolution}`);
        }
      }
    }
  }

  private async extent(series: number, resolution: Resolution): Promise<Extent | null> {
    const key = `${series}:${resolution}`;
    let extent = this.extents.get(key);
    if (extent === undefined) {
      const generation = this.generation;
      extent = (await this.bars.extent(series, resolution)) ?? null;
      if (generation === this.generation) this.extents.set(key, extent);
    }
    return extent;
  }

  private async chunk(series: number, resolution: Resolution, index: number): Promise<Chunk> {
    const key = `${series}:${resolution}:${index}`;
    let chunk = this.chunks.get(key);
    if (chunk) this.hits++;
    else {
      this.misses++;
      const span = spanOf(resolution);
      const generation = this.generation;
      const rows = await this.bars.range(series, resolution, index * span, (index + 1) * span);
      const pair = this.market.poolsById.get(series)?.pair;
      // Prices shift by the quote's decimals less the base's, volumes and TVLs by the base's (market/units.ts).
      const priceShift = pair ? pair.quote.decimals - pair.base.decimals : 0;
      const baseShift = pair ? -pair.base.decimals : 0;
      const shifts = [0, priceShift, priceShift, priceShift, priceShift, baseShift, baseShift];
      const count = rows.length;
      const times = new Float64Array(count);
      const joined: Buffer[] = [];
      const offsets: Uint32Array[] = [];
      for (let c = 0; c < COLUMNS; c++) {
        const text = new Array<string>(count);
        const starts = new Uint32Array(count + 1);
        let at = 0;
        for (let i = 0; i < count; i++) {
          const row = rows[i] as (typeof rows)[number];
          const value = shift(row[c] as number, shifts[c] as number);
          if (c === 0) times[i] = value;
          const number = String(value);
          text[i] = number;
          starts[i] = at;
          at += number.length + 1;
        }
        starts[count] = at;
        joined.push(Buffer.from(text.join(','), 'latin1'));
        offsets.push(starts);
      }
      chunk = {
        times,
        count,
        joined,
        offsets,
        bytes: count * 8 + offsets.reduce((n, o) => n + o.byteLength, 0) + joined.reduce((n, b) => n + b.byteLength, 0),
      };
      if (generation === this.generation) this.chunks.set(key, chunk);
    }
    return chunk;
  }

  /**
   * The JSON body (UTF-8) of /history for bars with from <= t < to, as the pieces to send in order
   * (cached fragments and slices of them, never copied) and their total size.
   */
  async body(
    series: number,
    resolution: Resolution,
    from: number,
    to: number,
    includeTvl: boolean,
  ): Promise<{ readonly pieces: readonly Buffer[]; readonly bytes: number }> {
    const parts: Buffer[][] = Array.from({ length: COLUMNS }, () => []);
    const extent = await this.extent(series, resolution);
    if (extent !== null && from < to) {
      const start = Math.max(from, extent.first);
      const end = Math.min(to, extent.last + 1);
      const span = spanOf(resolution);
      const indexes: number[] = [];
      for (let index = Math.floor(start / span); start < end && index <= Math.floor((end - 1) / span); index++)
        indexes.push(index);
      // Asked together: a store over the network (PostgreSQL) answers the missing chunks side by side
      // instead of one round trip after another.
      const chunks = await Promise.all(indexes.map((index) => this.chunk(series, resolution, index)));
      for (const chunk of chunks) {
        if (chunk.count === 0) continue;
        const { times } = chunk;
        const whole = (times[0] as number) >= from && (times[chunk.count - 1] as number) < to;
        const lo = whole ? 0 : lowerBound(times, chunk.count, from);
        const hi = whole ? chunk.count : lowerBound(times, chunk.count, to);
        if (hi <= lo) continue;
        for (let c = 0; c < COLUMNS; c++) {
          const starts = chunk.offsets[c] as Uint32Array;
          // The slice of the column's fragment holding bars lo..hi-1, without the comma after the last.
          (parts[c] as Buffer[]).push((chunk.joined[c] as Buffer).subarray(starts[lo], (starts[hi] as number) - 1));
        }
      }
    }
    // Numbers serialise to ASCII, so every fragment is already valid UTF-8 JSON.
    const pieces: Buffer[] = [];
    for (let c = 0; c < (includeTvl ? COLUMNS : COLUMNS - 1); c++) {
      pieces.push(HEADS[c] as Buffer);
      (parts[c] as Buffer[]).forEach((part, i) => {
        if (i > 0) pieces.push(COMMA);
        pieces.push(part);
      });
    }
    pieces.push(TAIL);
    return { pieces, bytes: pieces.reduce((n, piece) => n + piece.byteLength, 0) };
  }
}

/** First index in sorted `values[0..n)` whose value is >= target. */
function lowerBound(values: Float64Array, n: number, target: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
