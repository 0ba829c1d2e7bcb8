import { barsFromEvents, rollupBars, type Bar } from '../../shared/bars';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import { bucketRuns, mergeRefolds, sameColumns } from './bar-batch';
import { openDatabase, setBulkMode, type Db } from './database';
import { startSqliteBulkLoad } from './sqlite-bulk';
import type {
  AggregateColumns,
  AggregateReplay,
  BarRow,
  BarStore,
  BulkLoad,
  CommitBatch,
  CreatedRows,
  KeyStore,
  JournalRow,
  MarketRows,
  MarketStore,
  NextIds,
  PairRow,
  PairTradeRow,
  PoolRow,
  SimState,
  SimStateStore,
  Store,
  StoredKey,
  TokenRow,
  TradeRecord,
  TradeStore,
  WindowStats,
} from './ports';

/** The store on SQLite (better-sqlite3): every port of `ports.ts`, each call completing at once. */

/** Meta key present while the bars lag the trades (see `BarStore.stale`). */
const BARS_STALE = 'bars_stale';

class SqliteMarketStore implements MarketStore {
  private readonly logoStmt;
  private readonly metaStmt;

  constructor(private readonly db: Db) {
    this.logoStmt = db.prepare<[number], { logo_png: Buffer | null }>('SELECT logo_png FROM tokens WHERE id = ?');
    this.metaStmt = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  }

  load(): Promise<MarketRows> {
    const tokens = this.db
      .prepare<[], { id: number; unit: string; ticker: string; name: string; decimals: number; logo_kind: number }>(
        'SELECT id, unit, ticker, name, decimals, logo_kind FROM tokens ORDER BY id',
      )
      .all()
      .map((r): TokenRow => ({
        id: r.id,
        unit: r.unit,
        ticker: r.ticker,
        name: r.name,
        decimals: r.decimals,
        logoKind: r.logo_kind,
      }));
    const pairs = this.db.prepare<[], PairRow>('SELECT id, base, quote FROM pairs ORDER BY id').all();
    const pools = this.db
      .prepare<
        [],
        {
          id: number;
          pool_id: string;
          grp: string;
          pair_id: number;
          n: number;
          fee_bps: number;
          base_reserve: number;
          quote_reserve: number;
          simulated: number;
        }
      >('SELECT * FROM pools ORDER BY id')
      .all()
      .map((r): PoolRow => ({
        id: r.id,
        poolId: r.pool_id,
        group: r.grp,
        pairId: r.pair_id,
        n: r.n,
        feeBps: r.fee_bps,
        baseReserve: r.base_reserve,
        quoteReserve: r.quote_reserve,
        simulated: r.simulated === 1,
      }));
    return Promise.resolve({ tokens, pairs, pools });
  }

  nextIds(): Promise<NextIds> {
    const next = (table: string) =>
      (this.db.prepare(`SELECT coalesce(max(id), 0) + 1 AS n FROM ${table}`).get() as { n: number }).n;
    return Promise.resolve({ token: next('tokens'), pair: next('pairs'), pool: next('pools') });
  }

  logo(tokenId: number): Promise<Buffer | null> {
    return Promise.resolve(this.logoStmt.get(tokenId)?.logo_png ?? null);
  }

  meta(key: string): Promise<string | undefined> {
    return Promise.resolve(this.metaStmt.get(key)?.value);
  }

  journal(): Promise<JournalRow[]> {
    const rows = this.db
      .prepare<[], { slot: number; id: string; height: number; before: string; created: string | null }>(
        'SELECT slot, id, height, before, created FROM chain_journal ORDER BY slot',
      )
      .all();
    return Promise.resolve(rows.map(journalRowOf));
  }

  chainLp(): Promise<Map<number, bigint>> {
    const rows = this.db.prepare<[], { pool: number; lp: string }>('SELECT pool, lp FROM chain_lp').all();
    return Promise.resolve(new Map(rows.map((r) => [r.pool, BigInt(r.lp)])));
  }
}

/** A journal row as stored (its JSON columns parsed). */
function journalRowOf(r: {
  slot: number;
  id: string;
  height: number;
  before: string;
  created: string | null;
}): JournalRow {
  return {
    slot: r.slot,
    id: r.id,
    height: r.height,
    before: JSON.parse(r.before) as JournalRow['before'],
    ...(r.created !== null ? { created: JSON.parse(r.created) as CreatedRows } : {}),
  };
}

class SqliteTradeStore implements TradeStore {
  private readonly hasEventStmt;
  private readonly lastTimeStmt;
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
      // One pass over a JSON array of series: per series, the queries of stateAt (price) and volumeSince.
      window: db.prepare<
        [{ ids: string; since: number }],
        { series: number; price: number | null; volume: number | null }
      >(
        `SELECT s.value AS series,
           coalesce(
             (SELECT ${prefix}price FROM trades WHERE ${series} = s.value AND block_time <= @since ORDER BY block_time DESC, seq DESC LIMIT 1),
             (SELECT ${prefix}prev_price FROM trades WHERE ${series} = s.value AND block_time > @since ORDER BY block_time, seq LIMIT 1)
           ) AS price,
           (SELECT sum(volume) FROM trades WHERE ${series} = s.value AND block_time > @since) AS volume
         FROM json_each(@ids) AS s`,
      ),
    });
    this.poolStats = statsFor('pool', '');
    this.aggStats = statsFor('agg', 'agg_');
    this.hasEventStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM trades WHERE event_id = ?');
    this.lastTimeStmt = {
      pool: db.prepare<[number], { t: number | null }>('SELECT max(block_time) AS t FROM trades WHERE pool = ?'),
      agg: db.prepare<[number], { t: number | null }>('SELECT max(block_time) AS t FROM trades WHERE agg = ?'),
    };
  }

  hasEvent(eventId: string): Promise<boolean> {
    return Promise.resolve(this.hasEventStmt.get(eventId) !== undefined);
  }

  lastTradeTime(series: number, aggregate: boolean): Promise<number | undefined> {
    return Promise.resolve((aggregate ? this.lastTimeStmt.agg : this.lastTimeStmt.pool).get(series)?.t ?? undefined);
  }

  stateAt(series: number, aggregate: boolean, at: number): Promise<{ price: number; tvl: number } | undefined> {
    const stmts = aggregate ? this.aggStats : this.poolStats;
    return Promise.resolve(stmts.before.get(series, at) ?? stmts.after.get(series, at));
  }

  volumeSince(series: number, aggregate: boolean, since: number): Promise<number> {
    return Promise.resolve((aggregate ? this.aggStats : this.poolStats).volume.get(series, since)?.v ?? 0);
  }

  windowStats(series: readonly number[], aggregate: boolean, since: number): Promise<Map<number, WindowStats>> {
    const rows = (aggregate ? this.aggStats : this.poolStats).window.all({ ids: JSON.stringify(series), since });
    return Promise.resolve(
      new Map(rows.map((r) => [r.series, { price: r.price ?? undefined, volume: r.volume ?? 0 }])),
    );
  }

  count(): Promise<number> {
    return Promise.resolve((this.db.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n);
  }

  busiestAggregates(limit: number): Promise<{ series: number; trades: number }[]> {
    return Promise.resolve(
      this.db
        .prepare<[number], { series: number; trades: number }>(
          'SELECT agg AS series, count(*) AS trades FROM trades GROUP BY agg ORDER BY trades DESC, agg LIMIT ?',
        )
        .all(limit),
    );
  }

  list(
    filter: { readonly pool?: number; readonly agg?: number; readonly afterSeq?: number } = {},
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const where = ['seq > ?'];
    const args: number[] = [filter.afterSeq ?? 0];
    if (filter.pool !== undefined) {
      where.push('pool = ?');
      args.push(filter.pool);
    }
    if (filter.agg !== undefined) {
      where.push('agg = ?');
      args.push(filter.agg);
    }
    const rows = this.db
      .prepare<number[], Record<string, number | string>>(
        `SELECT seq, event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume,
                agg_prev_price, agg_price, agg_prev_tvl, agg_tvl FROM trades WHERE ${where.join(' AND ')} ORDER BY seq`,
      )
      .all(...args);
    return Promise.resolve(rows.map(sqliteTrade));
  }

  recent(
    series: number,
    aggregate: boolean,
    limit: number,
    before?: { readonly time: number; readonly seq: number },
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const column = aggregate ? 'agg' : 'pool';
    const cursor = before ? 'AND (block_time < ? OR (block_time = ? AND seq < ?))' : '';
    const args = before ? [series, before.time, before.time, before.seq, limit] : [series, limit];
    const rows = this.db
      .prepare<number[], Record<string, number | string>>(
        `SELECT seq, event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume,
                agg_prev_price, agg_price, agg_prev_tvl, agg_tvl FROM trades WHERE ${column} = ? ${cursor} ORDER BY block_time DESC, seq DESC LIMIT ?`,
      )
      .all(...args);
    return Promise.resolve(rows.map(sqliteTrade));
  }
}

function sqliteTrade(r: Record<string, number | string>): TradeRecord & { readonly seq: number } {
  return {
    seq: Number(r.seq),
    eventId: String(r.event_id),
    pool: Number(r.pool),
    agg: Number(r.agg),
    blockTime: Number(r.block_time),
    prevPrice: Number(r.prev_price),
    price: Number(r.price),
    prevTvl: Number(r.prev_tvl),
    tvl: Number(r.tvl),
    volume: Number(r.volume),
    aggPrevPrice: Number(r.agg_prev_price),
    aggPrice: Number(r.agg_price),
    aggPrevTvl: Number(r.agg_prev_tvl),
    aggTvl: Number(r.agg_tvl),
  };
}

class SqliteBarStore implements BarStore {
  private readonly rangeStmt;
  private readonly extentStmt;
  private readonly countbackStartStmt;
  private readonly countbackOldestStmt;
  private readonly staleStmt;

  constructor(private readonly db: Db) {
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
    this.staleStmt = db.prepare(`SELECT 1 FROM meta WHERE key = '${BARS_STALE}'`);
  }

  range(series: number, resolution: Resolution, from: number, to: number): Promise<BarRow[]> {
    return Promise.resolve(this.rangeStmt.all(series, RESOLUTION_SECONDS[resolution], from, to));
  }

  extent(series: number, resolution: Resolution): Promise<{ first: number; last: number } | undefined> {
    const row = this.extentStmt.get(series, RESOLUTION_SECONDS[resolution]);
    return Promise.resolve(
      row && row.first !== null && row.last !== null ? { first: row.first, last: row.last } : undefined,
    );
  }

  countbackStart(series: number, resolution: Resolution, to: number, count: number): Promise<number | undefined> {
    const res = RESOLUTION_SECONDS[resolution];
    return Promise.resolve(
      (this.countbackStartStmt.get(series, res, to, count - 1) ?? this.countbackOldestStmt.get(series, res, to))?.t,
    );
  }

  stale(): Promise<boolean> {
    return Promise.resolve(this.staleStmt.get() !== undefined);
  }

  all(): Promise<[number, number, ...BarRow][]> {
    return Promise.resolve(
      this.db
        .prepare<[], [number, number, ...BarRow]>(
          'SELECT series, res, t, o, h, l, c, v, tvl FROM bars ORDER BY series, res, t',
        )
        .raw(true)
        .all(),
    );
  }

  /**
   * Series by series in key order, so the bars table is written front to back (dense pages, no page
   * rewritten twice) and memory holds one series at a time.
   */
  rebuild(onProgress?: (done: number, total: number) => void): Promise<number> {
    const total = (this.db.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n;
    const series = this.db.prepare<[string], { id: number; agg: number }>(
      'SELECT id, grp = ? AS agg FROM pools ORDER BY id',
    );
    const eventsOf = (column: 'pool' | 'agg', prefix: '' | 'agg_') =>
      this.db
        .prepare<[number], [number, number, number, number, number]>(
          `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${column} = ? ORDER BY block_time, seq`,
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
        const events = rows.map(([block_time, previous_price, current_price, current_tvl, volume]) => ({
          block_time,
          previous_price,
          current_price,
          current_tvl,
          volume,
        }));
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
      this.db.prepare(`DELETE FROM meta WHERE key = '${BARS_STALE}'`).run();
    })();
    onProgress?.(done, total);
    return Promise.resolve(done);
  }
}

/** Rows per statement of `BarAppender`: binding many rows per call costs far less than a call per row. */
const APPEND_ROWS = 64;

/** Inserts new bars (into a table holding none of their keys), many rows per statement, in key order. */
class BarAppender {
  private readonly many;
  private readonly one;
  private readonly args: (number | bigint)[] = [];

  constructor(db: Db) {
    const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
    const sql = (rows: number) =>
      `INSERT INTO bars (series, res, t, o, h, l, c, v, tvl) VALUES ${Array(rows).fill(row).join(', ')}`;
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

class SqliteKeyStore implements KeyStore {
  private readonly candidatesStmt;

  constructor(private readonly db: Db) {
    this.candidatesStmt = db.prepare<[string], { hash: string; plan: string }>(
      'SELECT hash, plan FROM api_keys WHERE prefix = ? AND revoked_at IS NULL',
    );
  }

  create(hash: string, prefix: string, plan: string, label: string, now: number): Promise<StoredKey> {
    const info = this.db
      .prepare('INSERT INTO api_keys (hash, prefix, plan, label, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(hash, prefix, plan, label, now);
    return Promise.resolve({ id: Number(info.lastInsertRowid), prefix, plan, label, createdAt: now, revokedAt: null });
  }

  list(): Promise<StoredKey[]> {
    return Promise.resolve(
      this.db
        .prepare<
          [],
          { id: number; prefix: string; plan: string; label: string; created_at: number; revoked_at: number | null }
        >('SELECT id, prefix, plan, label, created_at, revoked_at FROM api_keys ORDER BY id')
        .all()
        .map((r) => ({
          id: r.id,
          prefix: r.prefix,
          plan: r.plan,
          label: r.label,
          createdAt: r.created_at,
          revokedAt: r.revoked_at,
        })),
    );
  }

  revoke(idOrPrefix: string, now: number): Promise<number> {
    const byId = /^\d+$/.test(idOrPrefix);
    const info = this.db
      .prepare(`UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND ${byId ? 'id = ?' : 'prefix = ?'}`)
      .run(now, byId ? Number(idOrPrefix) : idOrPrefix);
    return Promise.resolve(info.changes);
  }

  count(): Promise<number> {
    return Promise.resolve(
      (this.db.prepare('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as { n: number }).n,
    );
  }

  candidates(prefix: string): Promise<{ hash: string; plan: string }[]> {
    return Promise.resolve(this.candidatesStmt.all(prefix));
  }
}

class SqliteSimStateStore implements SimStateStore {
  constructor(private readonly db: Db) {}

  load(): Promise<SimState | undefined> {
    const row = this.db
      .prepare<[], { height: number; next_block_time: number; fair: Buffer }>(
        'SELECT height, next_block_time, fair FROM sim_state WHERE id = 1',
      )
      .get();
    return Promise.resolve(row && { height: row.height, nextBlockTime: row.next_block_time, fair: row.fair });
  }
}

/** A data directory's SQLite store (see `Store`). */
export class SqliteStore implements Store {
  readonly market: SqliteMarketStore;
  readonly trades: SqliteTradeStore;
  readonly bars: SqliteBarStore;
  readonly keys: SqliteKeyStore;
  readonly sim: SqliteSimStateStore;
  private readonly write;

  constructor(private readonly db: Db) {
    this.market = new SqliteMarketStore(db);
    this.trades = new SqliteTradeStore(db);
    this.bars = new SqliteBarStore(db);
    this.keys = new SqliteKeyStore(db);
    this.sim = new SqliteSimStateStore(db);
    const insertToken = db.prepare(
      'INSERT INTO tokens (id, unit, ticker, name, decimals, logo_kind) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const updateToken = db.prepare('UPDATE tokens SET ticker = ?, name = ?, decimals = ? WHERE id = ?');
    const setLogo = db.prepare('UPDATE tokens SET logo_kind = ?, logo_png = ? WHERE id = ?');
    const insertPair = db.prepare('INSERT INTO pairs (id, base, quote) VALUES (?, ?, ?)');
    const insertPool = db.prepare(
      'INSERT INTO pools (id, pool_id, grp, pair_id, n, fee_bps, base_reserve, quote_reserve, simulated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const updateReserves = db.prepare('UPDATE pools SET base_reserve = ?, quote_reserve = ? WHERE id = ?');
    const insertTrade = db.prepare(
      `INSERT INTO trades (event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume,
                           agg_prev_price, agg_price, agg_prev_tvl, agg_tvl)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Merging a later partial bar into a stored one is the bar rule's fold (see shared/bars mergeBars).
    const upsertBar = db.prepare(
      `INSERT INTO bars (series, res, t, o, h, l, c, v, tvl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (series, res, t) DO UPDATE SET
         h = max(h, excluded.h), l = min(l, excluded.l), c = excluded.c, v = v + excluded.v, tvl = excluded.tvl`,
    );
    const setMeta = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    const clearMeta = db.prepare('DELETE FROM meta WHERE key = ?');
    const journalRemoveAfter = db.prepare('DELETE FROM chain_journal WHERE slot > ?');
    const journalAppend = db.prepare(
      'INSERT INTO chain_journal (slot, id, height, before, created) VALUES (?, ?, ?, ?, ?)',
    );
    const setLp = db.prepare(
      'INSERT INTO chain_lp (pool, lp) VALUES (?, ?) ON CONFLICT (pool) DO UPDATE SET lp = excluded.lp',
    );
    const removeLp = db.prepare('DELETE FROM chain_lp WHERE pool = ?');
    const poolsOfPair = db.prepare<[number], { id: number }>('SELECT id FROM pools WHERE pair_id = ?');
    const deleteSeriesBars = db.prepare('DELETE FROM bars WHERE series = ?');
    const deletePool = db.prepare('DELETE FROM pools WHERE id = ?');
    const deletePair = db.prepare('DELETE FROM pairs WHERE id = ?');
    const deleteToken = db.prepare('DELETE FROM tokens WHERE id = ?');
    /** See `CommitBatch.remove`: pools (those given and every pool of the pairs given), then pairs, then tokens. */
    const removeRows = (rows: CreatedRows) => {
      const pools = new Set(rows.pools);
      for (const pair of rows.pairs) for (const { id } of poolsOfPair.all(pair)) pools.add(id);
      for (const id of pools) {
        deleteSeriesBars.run(id);
        removeLp.run(id);
        deletePool.run(id);
      }
      for (const id of rows.pairs) deletePair.run(id);
      for (const id of rows.tokens) deleteToken.run(id);
    };
    const journalRemoveBefore = db.prepare('DELETE FROM chain_journal WHERE slot < ?');
    const saveSim = db.prepare(
      `INSERT INTO sim_state (id, height, next_block_time, fair) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET height = excluded.height, next_block_time = excluded.next_block_time, fair = excluded.fair`,
    );
    const affectedSeries = db.prepare<[number, number], { series: number; agg: number }>(
      'SELECT DISTINCT pool AS series, 0 AS agg FROM trades WHERE block_time > ? UNION SELECT DISTINCT agg AS series, 1 AS agg FROM trades WHERE block_time > ?',
    );
    const deleteTradesAfter = db.prepare('DELETE FROM trades WHERE block_time > ?');
    const insertBar = db.prepare(
      'INSERT INTO bars (series, res, t, o, h, l, c, v, tvl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const eventsIn = (column: 'pool' | 'agg', prefix: '' | 'agg_') =>
      db
        .prepare<[number, number, number], [number, number, number, number, number]>(
          `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${column} = ? AND block_time >= ? AND block_time < ? ORDER BY block_time, seq`,
        )
        .raw(true);
    const poolEventsIn = eventsIn('pool', '');
    const aggEventsIn = eventsIn('agg', 'agg_');
    const deleteBarsIn = db.prepare('DELETE FROM bars WHERE series = ? AND res = ? AND t >= ? AND t < ?');
    /** Folds a series' bars of one resolution again in [start, end), from its stored trades in time order. */
    const refoldRange = (series: number, agg: boolean, resolution: Resolution, start: number, end: number) => {
      const res = RESOLUTION_SECONDS[resolution];
      deleteBarsIn.run(series, res, start, end);
      const events = (agg ? aggEventsIn : poolEventsIn)
        .all(series, start, end)
        .map(([block_time, previous_price, current_price, current_tvl, volume]) => ({
          block_time,
          previous_price,
          current_price,
          current_tvl,
          volume,
        }));
      for (const bar of barsFromEvents(events, resolution))
        insertBar.run(series, res, bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tvl);
    };
    /** Folds a series' bars again in exactly the buckets holding `times`. */
    const refoldBuckets = (series: number, agg: boolean, times: Iterable<number>) => {
      const list = [...times];
      for (const resolution of RESOLUTIONS)
        for (const [start, end] of bucketRuns(list, resolution)) refoldRange(series, agg, resolution, start, end);
    };
    /** Folds a series' bars again from the bucket holding `since` on. */
    const refold = (series: number, agg: boolean, since: number) => {
      for (const resolution of RESOLUTIONS)
        refoldRange(series, agg, resolution, bucketStart(since, resolution), Number.MAX_SAFE_INTEGER);
    };
    const lastStateBefore = db.prepare<[number, number], { price: number; tvl: number }>(
      'SELECT price, tvl FROM trades WHERE pool = ? AND block_time < ? ORDER BY block_time DESC, seq DESC LIMIT 1',
    );
    const pairTradesFrom = db.prepare<
      [number, number],
      PairTradeRow & AggregateColumns & { readonly blockTime: number }
    >(
      `SELECT seq, pool, block_time AS blockTime, prev_price AS prevPrice, price, prev_tvl AS prevTvl, tvl,
              agg_prev_price AS aggPrevPrice, agg_price AS aggPrice, agg_prev_tvl AS aggPrevTvl, agg_tvl AS aggTvl
       FROM trades WHERE agg = ? AND block_time >= ? ORDER BY block_time, seq`,
    );
    const setAggregateColumns = db.prepare(
      'UPDATE trades SET agg_prev_price = ?, agg_price = ?, agg_prev_tvl = ?, agg_tvl = ? WHERE seq = ?',
    );
    /**
     * See `CommitBatch.reaggregate`: the pair's Aggregate columns from `from` on, as its replay computes
     * them; returns the times of the trades whose columns changed (their buckets are folded again).
     */
    const reaggregate = (agg: number, pools: readonly number[], from: number, replay: AggregateReplay): number[] => {
      const before = new Map<number, { price: number; tvl: number }>();
      for (const pool of pools) {
        const last = lastStateBefore.get(pool, from);
        if (last) before.set(pool, { price: last.price, tvl: last.tvl });
      }
      const trades = pairTradesFrom.all(agg, from);
      const columns = replay(before, trades);
      if (columns.length !== trades.length)
        throw new Error(`reaggregate: ${columns.length} answers for ${trades.length} trades`);
      const changed: number[] = [];
      trades.forEach((trade, i) => {
        const c = columns[i] as AggregateColumns;
        if (sameColumns(trade, c)) return;
        setAggregateColumns.run(c.aggPrevPrice, c.aggPrice, c.aggPrevTvl, c.aggTvl, trade.seq);
        changed.push(trade.blockTime);
      });
      return changed;
    };
    const removeTradesAfter = (after: number) => {
      const affected = affectedSeries.all(after, after);
      deleteTradesAfter.run(after);
      for (const { series, agg } of affected) refold(series, agg === 1, after + 1);
    };
    this.write = db.transaction((batch: CommitBatch) => {
      if (batch.removeTradesAfter !== undefined) removeTradesAfter(batch.removeTradesAfter);
      if (batch.remove) removeRows(batch.remove);
      for (const t of batch.tokens ?? []) insertToken.run(t.id, t.unit, t.ticker, t.name, t.decimals, t.logoKind);
      for (const t of batch.tokenUpdates ?? []) updateToken.run(t.ticker, t.name, t.decimals, t.id);
      for (const l of batch.logos ?? []) setLogo.run(l.kind, l.kind === 0 ? null : l.png, l.id);
      for (const p of batch.pairs ?? []) insertPair.run(p.id, p.base, p.quote);
      for (const p of batch.pools ?? []) {
        insertPool.run(
          p.id,
          p.poolId,
          p.group,
          p.pairId,
          p.n,
          p.feeBps,
          p.baseReserve,
          p.quoteReserve,
          p.simulated ? 1 : 0,
        );
      }
      for (const r of batch.trades ?? []) {
        insertTrade.run(
          r.eventId,
          r.pool,
          r.agg,
          r.blockTime,
          r.prevPrice,
          r.price,
          r.prevTvl,
          r.tvl,
          r.volume,
          r.aggPrevPrice,
          r.aggPrice,
          r.aggPrevTvl,
          r.aggTvl,
        );
      }
      if (batch.bars) {
        for (const { series, resolution, bar } of batch.bars.entries()) {
          upsertBar.run(
            series,
            RESOLUTION_SECONDS[resolution],
            bar.time,
            bar.open,
            bar.high,
            bar.low,
            bar.close,
            bar.volume,
            bar.tvl,
          );
        }
      }
      const changed = new Map(
        (batch.reaggregate ?? []).map((r) => [r.agg, reaggregate(r.agg, r.pools, r.from, r.replay)] as const),
      );
      for (const { series, aggregate, times } of mergeRefolds(batch.refold, changed))
        refoldBuckets(series, aggregate, times);
      if (batch.barsStale === true) setMeta.run(BARS_STALE, '1');
      else if (batch.barsStale === false) clearMeta.run(BARS_STALE);
      for (const r of batch.reserves ?? []) updateReserves.run(r.base, r.quote, r.id);
      for (const [key, value] of Object.entries(batch.meta ?? {})) setMeta.run(key, value);
      if (batch.simState) saveSim.run(batch.simState.height, batch.simState.nextBlockTime, batch.simState.fair);
      if (batch.journal) {
        const { removeAfter, append, removeBefore } = batch.journal;
        if (removeAfter !== undefined) journalRemoveAfter.run(removeAfter);
        for (const row of append ?? [])
          journalAppend.run(
            row.slot,
            row.id,
            row.height,
            JSON.stringify(row.before),
            row.created ? JSON.stringify(row.created) : null,
          );
        if (removeBefore !== undefined) journalRemoveBefore.run(removeBefore);
      }
      if (batch.chainLp) {
        for (const id of batch.chainLp.remove ?? []) removeLp.run(id);
        for (const [id, lp] of batch.chainLp.set ?? []) setLp.run(id, lp);
      }
    });
  }

  /** Applies a batch at once, in one transaction (nested in the caller's, if any). */
  apply(batch: CommitBatch): void {
    this.write(batch);
  }

  commit(batch: CommitBatch): Promise<void> {
    try {
      this.write(batch);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** See `Store.bulkLoad`; `barsPerCommit`: bars per transaction at its end (tests make it small). */
  bulkLoad(options: { readonly barsPerCommit?: number } = {}): Promise<BulkLoad | undefined> {
    try {
      const target = {
        apply: (batch: CommitBatch) => this.apply(batch),
        rebuild: (onProgress?: (done: number, total: number) => void) => this.bars.rebuild(onProgress),
      };
      return Promise.resolve(startSqliteBulkLoad(this.db, target, BARS_STALE, options.barsPerCommit));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  setBulkMode(bulk: boolean): Promise<void> {
    setBulkMode(this.db, bulk);
    // Leaving bulk mode: fold the write-ahead log back so the next start opens a compact file.
    if (!bulk) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve();
  }

  ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}

/** Opens (creating if needed, migrating) the SQLite store of a data directory (':memory:' for tests). */
export function openSqliteStore(dataDir: string, options: { readonly check?: 'quick' | 'off' } = {}): SqliteStore {
  return new SqliteStore(openDatabase({ dataDir, ...(options.check ? { check: options.check } : {}) }));
}
