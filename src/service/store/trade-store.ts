import { applyEvent, barsFromEvents, rollupBars, type Bar, type BarEvent } from '../../shared/bars';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import type { Db } from './database';

/**
 * Trades and bars. Volumes are stored as integers in millionths of a whole base unit, so sums are
 * exact whatever the order of addition: incremental bars, rebuilt bars and rollups agree to the bit.
 */

export const VOLUME_SCALE = 1_000_000;

/** Meta key present while the bars lag the trades (see `TradeStore.barsStale`). */
const BARS_STALE = 'bars_stale';

/** One stored trade: the state change of its pool and of its pair's Aggregate pool. */
export interface TradeRecord {
  readonly eventId: string;
  /** Series (row id) of the pool and of its Aggregate pool. */
  readonly pool: number;
  readonly agg: number;
  readonly blockTime: number;
  readonly prevPrice: number;
  readonly price: number;
  readonly prevTvl: number;
  readonly tvl: number;
  /** Millionths of a whole base unit. */
  readonly volume: number;
  readonly aggPrevPrice: number;
  readonly aggPrice: number;
  readonly aggPrevTvl: number;
  readonly aggTvl: number;
}

const RES_COUNT = RESOLUTIONS.length;

/** The events of a record for its pool's series and for its Aggregate's series. */
function poolEvent(r: TradeRecord): BarEvent {
  return { block_time: r.blockTime, previous_price: r.prevPrice, current_price: r.price, current_tvl: r.tvl, volume: r.volume };
}
function aggEvent(r: TradeRecord): BarEvent {
  return { block_time: r.blockTime, previous_price: r.aggPrevPrice, current_price: r.aggPrice, current_tvl: r.aggTvl, volume: r.volume };
}

/** Bars touched by a batch of trades, folded in memory (per series and resolution, in time order). */
export class BarBatch {
  private readonly series = new Map<number, Bar[]>();

  add(record: TradeRecord): void {
    this.fold(record.pool, poolEvent(record));
    this.fold(record.agg, aggEvent(record));
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

/** Raw bar rows as read for /history: columns t, o, h, l, c, v (millionths), tvl. */
export type BarRow = [number, number, number, number, number, number, number];

export class TradeStore {
  private readonly insertTradeStmt;
  private readonly upsertBarStmt;
  private readonly hasEventStmt;
  private readonly rangeStmt;
  private readonly lastTradeTimeStmt;
  private readonly extentStmt;
  private readonly countbackStartStmt;
  private readonly countbackOldestStmt;
  private readonly barsStaleStmt;
  private readonly markStaleStmt;
  private readonly clearStaleStmt;

  private readonly poolStats;
  private readonly aggStats;

  constructor(private readonly db: Db) {
    const statsFor = (series: 'pool' | 'agg', prefix: '' | 'agg_') => ({
      before: db.prepare<[number, number], { price: number; tvl: number }>(
        `SELECT ${prefix}price AS price, ${prefix}tvl AS tvl FROM trades
         WHERE ${series} = ? AND block_time <= ? ORDER BY block_time DESC, seq DESC LIMIT 1`,
      ),
      after: db.prepare<[number, number], { price: number; tvl: number }>(
        `SELECT ${prefix}prev_price AS price, ${prefix}prev_tvl AS tvl FROM trades
         WHERE ${series} = ? AND block_time > ? ORDER BY block_time, seq LIMIT 1`,
      ),
      volume: db.prepare<[number, number], { v: number | null }>(
        `SELECT sum(volume) AS v FROM trades WHERE ${series} = ? AND block_time > ?`,
      ),
    });
    this.poolStats = statsFor('pool', '');
    this.aggStats = statsFor('agg', 'agg_');
    this.insertTradeStmt = db.prepare(
      `INSERT INTO trades (event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume,
                           agg_prev_price, agg_price, agg_prev_tvl, agg_tvl)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Merging a later partial bar into a stored one is the bar rule's fold (see shared/bars mergeBars).
    this.upsertBarStmt = db.prepare(
      `INSERT INTO bars (series, res, t, o, h, l, c, v, tvl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (series, res, t) DO UPDATE SET
         h = max(h, excluded.h), l = min(l, excluded.l), c = excluded.c, v = v + excluded.v, tvl = excluded.tvl`,
    );
    this.hasEventStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM trades WHERE event_id = ?');
    this.rangeStmt = db
      .prepare<[number, number, number, number], BarRow>(
        'SELECT t, o, h, l, c, v, tvl FROM bars WHERE series = ? AND res = ? AND t >= ? AND t < ? ORDER BY t',
      )
      .raw(true);
    this.extentStmt = db.prepare<[number, number], { first: number | null; last: number | null }>(
      'SELECT min(t) AS first, max(t) AS last FROM bars WHERE series = ? AND res = ?',
    );
    this.countbackStartStmt = db.prepare<[number, number, number, number], { t: number }>(
      'SELECT t FROM bars WHERE series = ? AND res = ? AND t < ? ORDER BY t DESC LIMIT 1 OFFSET ?',
    );
    this.countbackOldestStmt = db.prepare<[number, number, number], { t: number }>(
      'SELECT t FROM bars WHERE series = ? AND res = ? AND t < ? ORDER BY t LIMIT 1',
    );
    this.barsStaleStmt = db.prepare(`SELECT 1 FROM meta WHERE key = '${BARS_STALE}'`);
    this.markStaleStmt = db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${BARS_STALE}', '1')`);
    this.clearStaleStmt = db.prepare(`DELETE FROM meta WHERE key = '${BARS_STALE}'`);
    this.lastTradeTimeStmt = db.prepare<[number], { t: number | null }>(
      'SELECT max(block_time) AS t FROM trades WHERE pool = ?',
    );
  }

  /**
   * Price and TVL of a series as of time `at` (after every trade with block_time <= at): from the last
   * trade at or before it, else from the state before the first trade after it; undefined without trades.
   */
  stateAt(series: number, aggregate: boolean, at: number): { price: number; tvl: number } | undefined {
    const stmts = aggregate ? this.aggStats : this.poolStats;
    const before = stmts.before.get(series, at);
    if (before) return before;
    return stmts.after.get(series, at);
  }

  /** Sum of volume (millionths) of a series' trades with block_time > since. */
  volumeSince(series: number, aggregate: boolean, since: number): number {
    return (aggregate ? this.aggStats : this.poolStats).volume.get(series, since)?.v ?? 0;
  }

  hasEvent(eventId: string): boolean {
    return this.hasEventStmt.get(eventId) !== undefined;
  }

  /** Time of the pool's latest stored trade (undefined when it has none). */
  lastTradeTime(poolSeries: number): number | undefined {
    return this.lastTradeTimeStmt.get(poolSeries)?.t ?? undefined;
  }

  /** Writes trades and folds their bars into the stored ones. Call inside a transaction. */
  write(records: readonly TradeRecord[], bars: BarBatch): void {
    for (const r of records) {
      this.insertTradeStmt.run(
        r.eventId, r.pool, r.agg, r.blockTime, r.prevPrice, r.price, r.prevTvl, r.tvl, r.volume,
        r.aggPrevPrice, r.aggPrice, r.aggPrevTvl, r.aggTvl,
      );
    }
    for (const { series, resolution, bar } of bars.entries()) {
      this.upsertBarStmt.run(
        series, RESOLUTION_SECONDS[resolution], bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tvl,
      );
    }
  }

  /** Bars with from <= t < to, oldest first. */
  range(series: number, resolution: Resolution, from: number, to: number): BarRow[] {
    return this.rangeStmt.all(series, RESOLUTION_SECONDS[resolution], from, to);
  }

  /** First and last bar time of a series at a resolution; undefined without bars. */
  extent(series: number, resolution: Resolution): { first: number; last: number } | undefined {
    const row = this.extentStmt.get(series, RESOLUTION_SECONDS[resolution]);
    return row && row.first !== null && row.last !== null ? { first: row.first, last: row.last } : undefined;
  }

  /** Start time of the `count`-th bar before `to` (the oldest of the last `count`); undefined without bars. */
  countbackStart(series: number, resolution: Resolution, to: number, count: number): number | undefined {
    const res = RESOLUTION_SECONDS[resolution];
    return (this.countbackStartStmt.get(series, res, to, count - 1) ?? this.countbackOldestStmt.get(series, res, to))?.t;
  }


  /**
   * Deletes every bar and folds every stored trade again, in ingest order, and clears the stale mark
   * (one transaction). Series by series in key order, so the bars table is written front to back
   * (dense pages, no page rewritten twice) and memory holds one series at a time. Returns the trade count.
   */
  rebuildBars(onProgress?: (done: number, total: number) => void): number {
    const total = (this.db.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n;
    const series = this.db.prepare<[string], { id: number; agg: number }>('SELECT id, grp = ? AS agg FROM pools ORDER BY id');
    const eventsOf = (column: 'pool' | 'agg', prefix: '' | 'agg_') =>
      this.db
        .prepare<[number], [number, number, number, number, number]>(
          `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${column} = ? ORDER BY seq`,
        )
        .raw(true);
    const poolEvents = eventsOf('pool', '');
    const aggEvents = eventsOf('agg', 'agg_');
    let done = 0;
    let reported = 0;
    this.db.transaction(() => {
      this.db.exec('DELETE FROM bars');
      const writer = new BarAppender(this.db);
      for (const { id, agg } of series.all(AGGREGATE_GROUP)) {
        const rows = (agg ? aggEvents : poolEvents).all(id);
        if (rows.length === 0) continue;
        const events = rows.map(([block_time, previous_price, current_price, current_tvl, volume]) => ({ block_time, previous_price, current_price, current_tvl, volume }));
        // Fold the events once, into 1min bars; each coarser resolution is the rollup of the one before.
        let bars = barsFromEvents(events, RESOLUTIONS[0] as Resolution);
        for (const resolution of RESOLUTIONS) {
          if (resolution !== RESOLUTIONS[0]) bars = rollupBars(bars, resolution);
          for (const bar of bars) writer.add(id, RESOLUTION_SECONDS[resolution], bar);
        }
        // A DEX pool's trades are also its Aggregate's: each trade counts once, as its pool's.
        if (!agg) done += rows.length;
        if (done - reported >= 50_000) {
          reported = done;
          onProgress?.(done, total);
        }
      }
      writer.flush();
      this.setBarsStale(false);
    })();
    onProgress?.(done, total);
    return done;
  }

  /**
   * Whether the stored bars lag the trades: set while a backfill writes trades alone (bars come in one
   * pass at its end), so a store left mid-backfill by a crash is known and rebuilt when next opened.
   */
  get barsStale(): boolean {
    return this.barsStaleStmt.get() !== undefined;
  }

  /** Marks the bars stale or current. Call inside the transaction that makes them so. */
  setBarsStale(stale: boolean): void {
    if (stale) this.markStaleStmt.run();
    else this.clearStaleStmt.run();
  }
}

/** Rows per statement of `BarAppender`: binding many rows per call costs far less than a call per row. */
const APPEND_ROWS = 64;

/**
 * Inserts new bars (into a table that holds none of their keys), many rows per statement. Rows added
 * in key order append to the table's B-tree front to back.
 */
class BarAppender {
  private readonly many;
  private readonly one;
  private readonly args: (number | bigint)[] = [];

  constructor(db: Db) {
    const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
    const sql = (rows: number) => `INSERT INTO bars (series, res, t, o, h, l, c, v, tvl) VALUES ${Array(rows).fill(row).join(', ')}`;
    this.many = db.prepare(sql(APPEND_ROWS));
    this.one = db.prepare(sql(1));
  }

  add(series: number, res: number, bar: Bar): void {
    this.args.push(series, res, bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tvl);
    if (this.args.length === APPEND_ROWS * 9) {
      this.many.run(this.args);
      this.args.length = 0;
    }
  }

  flush(): void {
    for (let i = 0; i < this.args.length; i += 9) this.one.run(this.args.slice(i, i + 9));
    this.args.length = 0;
  }
}
