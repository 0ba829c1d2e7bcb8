import type { CommitBatch, TradeRecord } from '../ports';
import { TRADE_INDEXES } from '../schema';
import { BARS_STALE } from '../statements';
import type { BarFold, BarFoldState } from './bar-fold';
import type { Db } from './database';

/**
 * A bulk load's writes on one SQLite connection (the store's own, or a second one on a thread of its
 * own: bulk.ts). Trades come packed in columns; their bars, folded by the side that makes the
 * batches (`foldTrades`, bar-fold.ts), are written once at the end in the bars table's key order, and
 * the trades' secondary indexes are made at the end by one sort each.
 */

/** Numbers per packed trade: every column of `TradeRecord` but the event id, in `packTrades`' order. */
const TRADE_NUMBERS = 12;

/** A batch's trades as columns: cheap to hand to another thread (one copy of three buffers). */
export interface PackedTrades {
  /** The event ids, joined. */
  readonly ids: string;
  /** Length of each event id in `ids` (UTF-16 code units). */
  readonly idLengths: Uint32Array<ArrayBuffer>;
  /** `TRADE_NUMBERS` numbers per trade. */
  readonly numbers: Float64Array<ArrayBuffer>;
}

/** A batch's reserves as columns: id, base, quote per pool. */
export type PackedReserves = Float64Array<ArrayBuffer>;

export function packTrades(trades: readonly TradeRecord[]): PackedTrades {
  const idLengths = new Uint32Array(trades.length);
  const numbers = new Float64Array(trades.length * TRADE_NUMBERS);
  const ids: string[] = [];
  trades.forEach((r, i) => {
    ids.push(r.eventId);
    idLengths[i] = r.eventId.length;
    let k = i * TRADE_NUMBERS;
    numbers[k++] = r.pool;
    numbers[k++] = r.agg;
    numbers[k++] = r.blockTime;
    numbers[k++] = r.prevPrice;
    numbers[k++] = r.price;
    numbers[k++] = r.prevTvl;
    numbers[k++] = r.tvl;
    numbers[k++] = r.volume;
    numbers[k++] = r.aggPrevPrice;
    numbers[k++] = r.aggPrice;
    numbers[k++] = r.aggPrevTvl;
    numbers[k] = r.aggTvl;
  });
  return { ids: ids.join(''), idLengths, numbers };
}

/** Folds a batch's trades into the load's bars: each into its pool's series and its Aggregate's. */
export function foldTrades(fold: BarFold, trades: readonly TradeRecord[]): void {
  for (const r of trades) {
    fold.add(r.pool, false, r.blockTime, r.prevPrice, r.price, r.tvl, r.volume);
    fold.add(r.agg, true, r.blockTime, r.aggPrevPrice, r.aggPrice, r.aggTvl, r.volume);
  }
}

export function packReserves(reserves: CommitBatch['reserves']): PackedReserves {
  const packed = new Float64Array((reserves?.length ?? 0) * 3);
  reserves?.forEach((r, i) => {
    packed[i * 3] = r.id;
    packed[i * 3 + 1] = r.base;
    packed[i * 3 + 2] = r.quote;
  });
  return packed;
}

/**
 * What a bulk load writes of a batch besides its trades and reserves (which travel packed): its meta,
 * the simulator's state and the stale mark. A batch with anything else (new rows, a rollback, bars)
 * is refused: the load's trades may only refer to pools the store held when it started.
 */
export function bulkRest(batch: CommitBatch): CommitBatch {
  const { trades: _trades, reserves: _reserves, meta, simState, barsStale, ...other } = batch;
  const refused = Object.entries(other).filter(
    ([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0),
  );
  if (refused.length > 0)
    throw new Error(
      `a bulk load writes trades, reserves, meta and the simulator's state, not ${refused.map(([key]) => key).join(', ')}`,
    );
  return {
    ...(meta ? { meta } : {}),
    ...(simState ? { simState } : {}),
    ...(barsStale !== undefined ? { barsStale } : {}),
  };
}

/** What a bulk load's thread is started with. */
export interface BulkThreadData {
  /** The store file (open and migrated already). */
  readonly file: string;
  /** Set to 1 (on a SharedArrayBuffer) when the load is abandoned: batches still queued are skipped. */
  readonly abandon: Int32Array;
  /** Bars per transaction at the end (`BAR_ROWS_PER_COMMIT`; tests make it small). */
  readonly barsPerCommit: number;
}

/** Messages to a bulk load's thread, handled in order. */
export type ToBulkThread =
  | {
      readonly type: 'batch';
      readonly rest: CommitBatch;
      readonly trades: PackedTrades;
      readonly reserves: PackedReserves;
    }
  | { readonly type: 'finish'; readonly fold: BarFoldState }
  | { readonly type: 'close' };

/** Messages from a bulk load's thread. */
export type FromBulkThread =
  | { readonly type: 'written'; readonly trades: number }
  /** A commit of `finish` (see `BulkWriter.finish`). */
  | { readonly type: 'committed'; readonly done: number; readonly total: number }
  | { readonly type: 'finished'; readonly trades: number }
  | { readonly type: 'failed'; readonly message: string; readonly code?: string };

/** What a bulk load needs of the store on its connection. */
export interface BulkTarget {
  /** Writes a batch in one transaction (nested in the caller's). */
  apply(batch: CommitBatch): void;
  /** Deletes every bar and folds every stored trade again, clearing the stale mark; returns the trades folded. */
  rebuild(onProgress?: (done: number, total: number) => void): number;
}

/** Rows per trades statement and per bars statement: binding many rows per call costs far less than a call per row. */
const TRADE_ROWS = 32;
const BAR_ROWS = 64;
/**
 * Bars per transaction at the end of a load (about 20 MB of pages): what each commit leaves in the
 * write-ahead log can be copied into the store file meanwhile (`onCommitted`), rather than all of it
 * after the last.
 */
export const BAR_ROWS_PER_COMMIT = BAR_ROWS * 4096;

/** Appends rows to a table many per statement (the bulk load's trades and bars). */
class RowAppender {
  private readonly many;
  private readonly one;
  private readonly args: (number | string)[];
  private filled = 0;

  constructor(
    db: Db,
    insert: string,
    private readonly width: number,
    private readonly rows: number,
  ) {
    const row = `(${Array(width).fill('?').join(', ')})`;
    this.many = db.prepare(`${insert} VALUES ${Array(rows).fill(row).join(', ')}`);
    this.one = db.prepare(`${insert} VALUES ${row}`);
    this.args = new Array<number | string>(width * rows);
  }

  /** The argument slots of the next row (write `width` values from the returned offset, then `added`). */
  get slots(): (number | string)[] {
    return this.args;
  }

  get offset(): number {
    return this.filled * this.width;
  }

  added(): void {
    if (++this.filled === this.rows) {
      // Spread, not the array: better-sqlite3 then reads each value as an argument, which costs a
      // fifth less than fetching it from an array (measured over 2 million rows).
      this.many.run(...this.args);
      this.filled = 0;
    }
  }

  flush(): void {
    for (let i = 0; i < this.filled; i++) this.one.run(...this.args.slice(i * this.width, (i + 1) * this.width));
    this.filled = 0;
  }
}

/** The writing side of a bulk load, on the connection that writes (see `startSqliteBulkLoad`). */
export class BulkWriter {
  private readonly trades: RowAppender;
  private readonly bars: RowAppender;
  private readonly setReserves;
  private readonly clearStale;
  private readonly batch;
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  /** 1 for each pool row id the store holds: what the foreign keys of the trades and reserves may name. */
  private readonly pools: Uint8Array;
  private loaded = 0;

  constructor(
    private readonly db: Db,
    private readonly target: BulkTarget,
    private readonly barsPerCommit = BAR_ROWS_PER_COMMIT,
  ) {
    this.trades = new RowAppender(
      db,
      `INSERT INTO trades (event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume, agg_prev_price, agg_price, agg_prev_tvl, agg_tvl)`,
      1 + TRADE_NUMBERS,
      TRADE_ROWS,
    );
    this.bars = new RowAppender(db, 'INSERT INTO bars (series, res, t, o, h, l, c, v, tvl)', 9, BAR_ROWS);
    this.setReserves = db.prepare('UPDATE pools SET base_reserve = ?, quote_reserve = ? WHERE id = ?');
    this.clearStale = db.prepare('DELETE FROM meta WHERE key = ?').bind(BARS_STALE);
    this.begin = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    const ids = db.prepare<[], number>('SELECT id FROM pools').pluck().all();
    this.pools = new Uint8Array(ids.reduce((max, id) => Math.max(max, id), 0) + 1);
    for (const id of ids) this.pools[id] = 1;
    this.batch = db.transaction((rest: CommitBatch, trades: PackedTrades, reserves: PackedReserves) => {
      this.target.apply(rest);
      this.writeTrades(trades);
      for (let i = 0; i < reserves.length; i += 3) {
        this.pool(reserves[i] as number, 'reserves');
        this.setReserves.run(reserves[i + 1], reserves[i + 2], reserves[i]);
      }
    });
  }

  /**
   * The trades' and reserves' foreign keys, checked here rather than by SQLite (two look-ups a trade
   * on a bulk connection, which has them off): nothing of a bulk load deletes pools.
   */
  private pool(id: number, what: string): void {
    if (this.pools[id] !== 1)
      throw new Error(`a bulk load's ${what} refer to pool row ${id}, which the store does not hold (FOREIGN KEY)`);
  }

  /** Writes one batch in one transaction (see `bulkRest`, `packTrades`, `packReserves`). */
  write(rest: CommitBatch, trades: PackedTrades, reserves: PackedReserves): void {
    this.batch(rest, trades, reserves);
    this.loaded += trades.idLengths.length;
  }

  /**
   * Makes the trades' indexes, then writes every bar of `fold` (the load's trades, folded) in key order
   * and clears the stale mark; returns the trades written. Commits as it goes (the indexes, then every
   * `barsPerCommit` bars; the stale mark goes with the last), reporting each commit to
   * `onCommitted` with the DEX trades whose bars are written: a crash in between leaves the stale mark,
   * and the next open rebuilds every bar. Should a series' trades have come out of time order, every
   * bar is rebuilt from the stored trades instead (the rule folds in time order).
   */
  finish(fold: BarFold, onCommitted?: (done: number, total: number) => void): number {
    const total = this.loaded;
    // Every batch is written: what they left in the log can be copied while the indexes are made.
    onCommitted?.(0, total);
    this.db.transaction(() => {
      for (const { name, on } of TRADE_INDEXES) this.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${on}`);
    })();
    if (fold.outOfOrder) {
      this.target.rebuild(onCommitted);
      return total;
    }
    onCommitted?.(0, total);
    const { bars } = this;
    let rows = 0;
    let done = 0;
    this.begin.run();
    try {
      fold.write(
        (series, res, t, o, h, l, c, v, tvl) => {
          const args = bars.slots;
          let k = bars.offset;
          args[k++] = series;
          args[k++] = res;
          args[k++] = t;
          args[k++] = o;
          args[k++] = h;
          args[k++] = l;
          args[k++] = c;
          args[k++] = v;
          args[k] = tvl;
          bars.added();
          if (++rows % this.barsPerCommit !== 0) return;
          bars.flush();
          this.commit.run();
          onCommitted?.(done, total);
          this.begin.run();
        },
        (trades) => {
          done = trades;
        },
      );
      bars.flush();
      this.clearStale.run();
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      throw error;
    }
    onCommitted?.(total, total);
    return total;
  }

  private writeTrades({ ids, idLengths, numbers }: PackedTrades): void {
    const { trades } = this;
    let at = 0;
    for (let i = 0; i < idLengths.length; i++) {
      const args = trades.slots;
      let k = trades.offset;
      const end = at + (idLengths[i] as number);
      args[k++] = ids.slice(at, end);
      at = end;
      const n = i * TRADE_NUMBERS;
      this.pool(numbers[n] as number, 'trades');
      this.pool(numbers[n + 1] as number, 'trades');
      for (let j = 0; j < TRADE_NUMBERS; j++) args[k++] = numbers[n + j] as number;
      trades.added();
    }
    trades.flush();
  }
}
