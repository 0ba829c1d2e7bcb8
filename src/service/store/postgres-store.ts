import pg from 'pg';
import { barsFromEvents, rollupBars } from '../../shared/bars';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import { bucketRuns, mergeRefolds, sameColumns } from './bar-batch';
import { rawUnitsMigration } from './migrations';
import {
  COMMIT_POSITION_META,
  type AggregateColumns,
  type AggregateReplay,
  type BarRow,
  type BarStore,
  type CommitBatch,
  type CreatedRows,
  type KeyStore,
  type JournalRow,
  type MarketRows,
  type MarketStore,
  type NextIds,
  type PairTradeRow,
  type SimState,
  type SimStateStore,
  type Store,
  type StoredKey,
  type TradeRecord,
  type TradeStore,
  type WindowStats,
} from './ports';

/**
 * The store on PostgreSQL (node-postgres): the same ports, schema and bar rule as the SQLite store,
 * for a writer and API nodes that share one database (issue 13). Every write is `commit(batch)` in one
 * transaction on one connection; row ids are handed out by the single writer as with SQLite.
 * Numbers: REAL columns are double precision, integer ones bigint (parsed back to numbers: volumes in
 * millionths and times stay far below 2^53).
 */

/** Versioned migrations; index i takes the schema from version i to i + 1. Never edit a shipped step. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE tokens (
    id INTEGER PRIMARY KEY, unit TEXT NOT NULL UNIQUE, ticker TEXT NOT NULL, name TEXT NOT NULL,
    decimals INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 19), logo_kind INTEGER NOT NULL DEFAULT 0, logo_png BYTEA
  );
  CREATE TABLE pairs (id INTEGER PRIMARY KEY, base INTEGER NOT NULL REFERENCES tokens(id), quote INTEGER NOT NULL REFERENCES tokens(id), UNIQUE (base, quote));
  CREATE TABLE pools (
    id INTEGER PRIMARY KEY, pool_id TEXT NOT NULL UNIQUE, grp TEXT NOT NULL, pair_id INTEGER NOT NULL REFERENCES pairs(id),
    n INTEGER NOT NULL, fee_bps DOUBLE PRECISION NOT NULL, base_reserve DOUBLE PRECISION NOT NULL,
    quote_reserve DOUBLE PRECISION NOT NULL, simulated BOOLEAN NOT NULL, UNIQUE (pair_id, grp, n)
  );
  CREATE TABLE trades (
    seq BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL UNIQUE,
    pool INTEGER NOT NULL REFERENCES pools(id), agg INTEGER NOT NULL REFERENCES pools(id), block_time BIGINT NOT NULL,
    prev_price DOUBLE PRECISION NOT NULL, price DOUBLE PRECISION NOT NULL, prev_tvl DOUBLE PRECISION NOT NULL, tvl DOUBLE PRECISION NOT NULL,
    volume BIGINT NOT NULL, agg_prev_price DOUBLE PRECISION NOT NULL, agg_price DOUBLE PRECISION NOT NULL,
    agg_prev_tvl DOUBLE PRECISION NOT NULL, agg_tvl DOUBLE PRECISION NOT NULL
  );
  CREATE INDEX trades_pool_time ON trades (pool, block_time);
  CREATE INDEX trades_agg_time ON trades (agg, block_time);
  CREATE TABLE bars (
    series INTEGER NOT NULL, res INTEGER NOT NULL, t BIGINT NOT NULL,
    o DOUBLE PRECISION NOT NULL, h DOUBLE PRECISION NOT NULL, l DOUBLE PRECISION NOT NULL, c DOUBLE PRECISION NOT NULL,
    v BIGINT NOT NULL, tvl DOUBLE PRECISION NOT NULL, PRIMARY KEY (series, res, t)
  );
  CREATE TABLE api_keys (
    id SERIAL PRIMARY KEY, hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, plan TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL, revoked_at BIGINT
  );
  CREATE INDEX api_keys_prefix ON api_keys (prefix);
  CREATE TABLE sim_state (id INTEGER PRIMARY KEY CHECK (id = 1), height INTEGER NOT NULL, next_block_time DOUBLE PRECISION NOT NULL, fair BYTEA NOT NULL);
  `,
  // 2: the chain source's rollback journal, one row per block (the SQLite store's migration 3).
  `
  CREATE TABLE chain_journal (slot BIGINT PRIMARY KEY, id TEXT NOT NULL, height BIGINT NOT NULL, before TEXT NOT NULL);
  `,
  // 3: exact rollbacks of the chain source (the SQLite store's migration 4): what each journalled block
  // created, and each chain pool's LP supply.
  `
  ALTER TABLE chain_journal ADD COLUMN created TEXT;
  CREATE TABLE chain_lp (pool INTEGER PRIMARY KEY REFERENCES pools(id), lp TEXT NOT NULL);
  `,
  // 4: raw units (the SQLite store's migration 5).
  rawUnitsMigration('BIGINT'),
];

const BARS_STALE = 'bars_stale';

// bigint columns come back as numbers (every value here is far below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

type Queryable = pg.Pool | pg.ClientBase;

const num = (value: unknown): number => Number(value);

function tradeOf(r: Record<string, unknown>): TradeRecord & { seq: number } {
  return {
    seq: num(r.seq),
    eventId: String(r.event_id),
    pool: num(r.pool),
    agg: num(r.agg),
    blockTime: num(r.block_time),
    prevPrice: num(r.prev_price),
    price: num(r.price),
    prevTvl: num(r.prev_tvl),
    tvl: num(r.tvl),
    volume: num(r.volume),
    aggPrevPrice: num(r.agg_prev_price),
    aggPrice: num(r.agg_price),
    aggPrevTvl: num(r.agg_prev_tvl),
    aggTvl: num(r.agg_tvl),
  };
}

/** The market's rows and commit position, in the caller's transaction. */
async function readMarket(db: pg.ClientBase): Promise<MarketRows> {
  const tokens = (
    await db.query('SELECT id, unit, ticker, name, decimals, logo_kind FROM tokens ORDER BY id')
  ).rows.map((r) => ({
    id: num(r.id),
    unit: String(r.unit),
    ticker: String(r.ticker),
    name: String(r.name),
    decimals: num(r.decimals),
    logoKind: num(r.logo_kind),
  }));
  const pairs = (await db.query('SELECT id, base, quote FROM pairs ORDER BY id')).rows.map((r) => ({
    id: num(r.id),
    base: num(r.base),
    quote: num(r.quote),
  }));
  const pools = (await db.query('SELECT * FROM pools ORDER BY id')).rows.map((r) => ({
    id: num(r.id),
    poolId: String(r.pool_id),
    group: String(r.grp),
    pairId: num(r.pair_id),
    n: num(r.n),
    feeBps: num(r.fee_bps),
    baseReserve: num(r.base_reserve),
    quoteReserve: num(r.quote_reserve),
    simulated: r.simulated === true,
  }));
  const position = (await db.query('SELECT value FROM meta WHERE key = $1', [COMMIT_POSITION_META])).rows[0]?.value as
    string | undefined;
  return { tokens, pairs, pools, ...(position !== undefined ? { position } : {}) };
}

class PgMarketStore implements MarketStore {
  constructor(private readonly db: Queryable) {}

  /**
   * The market's rows and the commit position they include, read in one REPEATABLE READ transaction:
   * one snapshot, however many commits land meanwhile.
   */
  async load(): Promise<MarketRows> {
    const db = this.db;
    const client = db instanceof pg.Pool ? await db.connect() : db;
    const quiet = () => undefined;
    // A checked-out client losing its connection between queries must not crash the process.
    client.on('error', quiet);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const rows = await readMarket(client);
      await client.query('COMMIT');
      return rows;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', quiet);
      if (db instanceof pg.Pool) (client as pg.PoolClient).release();
    }
  }

  async nextIds(): Promise<NextIds> {
    const { rows } = await this.db.query(
      'SELECT (SELECT coalesce(max(id), 0) + 1 FROM tokens) AS token, (SELECT coalesce(max(id), 0) + 1 FROM pairs) AS pair, (SELECT coalesce(max(id), 0) + 1 FROM pools) AS pool',
    );
    const row = rows[0] as Record<string, unknown>;
    return { token: num(row.token), pair: num(row.pair), pool: num(row.pool) };
  }

  async logo(tokenId: number): Promise<Buffer | null> {
    const { rows } = await this.db.query('SELECT logo_png FROM tokens WHERE id = $1', [tokenId]);
    return (rows[0]?.logo_png as Buffer | null | undefined) ?? null;
  }

  async meta(key: string): Promise<string | undefined> {
    const { rows } = await this.db.query('SELECT value FROM meta WHERE key = $1', [key]);
    return rows[0] === undefined ? undefined : String(rows[0].value);
  }

  async journal(): Promise<JournalRow[]> {
    const { rows } = await this.db.query('SELECT slot, id, height, before, created FROM chain_journal ORDER BY slot');
    return rows.map((r) => ({
      slot: num(r.slot),
      id: String(r.id),
      height: num(r.height),
      before: JSON.parse(String(r.before)) as JournalRow['before'],
      ...(r.created !== null && r.created !== undefined
        ? { created: JSON.parse(String(r.created)) as CreatedRows }
        : {}),
    }));
  }

  async chainLp(): Promise<Map<number, bigint>> {
    const { rows } = await this.db.query('SELECT pool, lp FROM chain_lp');
    return new Map(rows.map((r) => [num(r.pool), BigInt(String(r.lp))]));
  }
}

class PgTradeStore implements TradeStore {
  constructor(private readonly db: Queryable) {}

  async hasEvent(eventId: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM trades WHERE event_id = $1', [eventId])).rowCount === 1;
  }

  async lastTradeTime(series: number, aggregate: boolean): Promise<number | undefined> {
    const { rows } = await this.db.query(
      `SELECT max(block_time) AS t FROM trades WHERE ${aggregate ? 'agg' : 'pool'} = $1`,
      [series],
    );
    return rows[0]?.t === null || rows[0]?.t === undefined ? undefined : num(rows[0].t);
  }

  async stateAt(series: number, aggregate: boolean, time: number): Promise<{ price: number; tvl: number } | undefined> {
    // Block times are whole seconds (bigint): for a fractional time, <= t and > t hold exactly as for floor(t).
    const at = Math.floor(time);
    const column = aggregate ? 'agg' : 'pool';
    const prefix = aggregate ? 'agg_' : '';
    const before = await this.db.query(
      `SELECT ${prefix}price AS price, ${prefix}tvl AS tvl FROM trades WHERE ${column} = $1 AND block_time <= $2 ORDER BY block_time DESC, seq DESC LIMIT 1`,
      [series, at],
    );
    const row =
      before.rows[0] ??
      (
        await this.db.query(
          `SELECT ${prefix}prev_price AS price, ${prefix}prev_tvl AS tvl FROM trades WHERE ${column} = $1 AND block_time > $2 ORDER BY block_time, seq LIMIT 1`,
          [series, at],
        )
      ).rows[0];
    return row === undefined ? undefined : { price: num(row.price), tvl: num(row.tvl) };
  }

  async volumeSince(series: number, aggregate: boolean, since: number): Promise<number> {
    const { rows } = await this.db.query(
      `SELECT coalesce(sum(volume), 0) AS v FROM trades WHERE ${aggregate ? 'agg' : 'pool'} = $1 AND block_time > $2`,
      [series, Math.floor(since)],
    );
    return num(rows[0]?.v ?? 0);
  }

  async windowStats(series: readonly number[], aggregate: boolean, since: number): Promise<Map<number, WindowStats>> {
    const column = aggregate ? 'agg' : 'pool';
    const prefix = aggregate ? 'agg_' : '';
    // Per series, the queries of stateAt (price) and volumeSince, over one array parameter.
    const { rows } = await this.db.query(
      `SELECT s.id AS series,
         coalesce(
           (SELECT ${prefix}price FROM trades WHERE ${column} = s.id AND block_time <= $2 ORDER BY block_time DESC, seq DESC LIMIT 1),
           (SELECT ${prefix}prev_price FROM trades WHERE ${column} = s.id AND block_time > $2 ORDER BY block_time, seq LIMIT 1)
         ) AS price,
         (SELECT coalesce(sum(volume), 0) FROM trades WHERE ${column} = s.id AND block_time > $2) AS volume
       FROM unnest($1::integer[]) AS s(id)`,
      [series, Math.floor(since)],
    );
    return new Map(
      rows.map((r) => [
        num(r.series),
        { price: r.price === null || r.price === undefined ? undefined : num(r.price), volume: num(r.volume) },
      ]),
    );
  }

  async count(): Promise<number> {
    return num((await this.db.query('SELECT count(*) AS n FROM trades')).rows[0]?.n ?? 0);
  }

  async list(
    filter: { readonly pool?: number; readonly agg?: number; readonly afterSeq?: number } = {},
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const where = ['seq > $1'];
    const args: number[] = [filter.afterSeq ?? 0];
    if (filter.pool !== undefined) where.push(`pool = $${args.push(filter.pool)}`);
    if (filter.agg !== undefined) where.push(`agg = $${args.push(filter.agg)}`);
    return (await this.db.query(`SELECT * FROM trades WHERE ${where.join(' AND ')} ORDER BY seq`, args)).rows.map(
      tradeOf,
    );
  }

  async recent(
    series: number,
    aggregate: boolean,
    limit: number,
    before?: { readonly time: number; readonly seq: number },
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const column = aggregate ? 'agg' : 'pool';
    const { rows } = before
      ? await this.db.query(
          `SELECT * FROM trades WHERE ${column} = $1 AND (block_time < $2 OR (block_time = $2 AND seq < $3)) ORDER BY block_time DESC, seq DESC LIMIT $4`,
          [series, before.time, before.seq, limit],
        )
      : await this.db.query(`SELECT * FROM trades WHERE ${column} = $1 ORDER BY block_time DESC, seq DESC LIMIT $2`, [
          series,
          limit,
        ]);
    return rows.map(tradeOf);
  }

  async busiestAggregates(limit: number): Promise<{ series: number; trades: number }[]> {
    const { rows } = await this.db.query(
      'SELECT agg AS series, count(*) AS trades FROM trades GROUP BY agg ORDER BY trades DESC, agg LIMIT $1',
      [limit],
    );
    return rows.map((r) => ({ series: num(r.series), trades: num(r.trades) }));
  }
}

class PgBarStore implements BarStore {
  constructor(private readonly pool: pg.Pool) {}

  async range(series: number, resolution: Resolution, from: number, to: number): Promise<BarRow[]> {
    const { rows } = await this.pool.query({
      text: 'SELECT t, o, h, l, c, v, tvl FROM bars WHERE series = $1 AND res = $2 AND t >= $3 AND t < $4 ORDER BY t',
      values: [series, RESOLUTION_SECONDS[resolution], from, to],
      rowMode: 'array',
    });
    return rows.map((r: unknown[]) => r.map(num) as BarRow);
  }

  async extent(series: number, resolution: Resolution): Promise<{ first: number; last: number } | undefined> {
    const { rows } = await this.pool.query(
      'SELECT min(t) AS first, max(t) AS last FROM bars WHERE series = $1 AND res = $2',
      [series, RESOLUTION_SECONDS[resolution]],
    );
    const row = rows[0];
    return row?.first === null || row?.first === undefined ? undefined : { first: num(row.first), last: num(row.last) };
  }

  async countbackStart(series: number, resolution: Resolution, to: number, count: number): Promise<number | undefined> {
    const res = RESOLUTION_SECONDS[resolution];
    const nth = await this.pool.query(
      'SELECT t FROM bars WHERE series = $1 AND res = $2 AND t < $3 ORDER BY t DESC LIMIT 1 OFFSET $4',
      [series, res, to, count - 1],
    );
    const row =
      nth.rows[0] ??
      (
        await this.pool.query('SELECT t FROM bars WHERE series = $1 AND res = $2 AND t < $3 ORDER BY t LIMIT 1', [
          series,
          res,
          to,
        ])
      ).rows[0];
    return row === undefined ? undefined : num(row.t);
  }

  async stale(): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM meta WHERE key = $1', [BARS_STALE])).rowCount === 1;
  }

  async all(): Promise<[number, number, ...BarRow][]> {
    const { rows } = await this.pool.query({
      text: 'SELECT series, res, t, o, h, l, c, v, tvl FROM bars ORDER BY series, res, t',
      rowMode: 'array',
    });
    return rows.map((r: unknown[]) => r.map(num) as [number, number, ...BarRow]);
  }

  async rebuild(onProgress?: (done: number, total: number) => void): Promise<number> {
    const client = await this.pool.connect();
    let done = 0;
    try {
      await client.query('BEGIN');
      const total = num((await client.query('SELECT count(*) AS n FROM trades')).rows[0]?.n ?? 0);
      await client.query('DELETE FROM bars');
      const series = (await client.query('SELECT id, grp = $1 AS agg FROM pools ORDER BY id', [AGGREGATE_GROUP])).rows;
      for (const { id, agg } of series as { id: number; agg: boolean }[]) {
        const prefix = agg ? 'agg_' : '';
        const { rows } = await client.query({
          text: `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${agg ? 'agg' : 'pool'} = $1 ORDER BY block_time, seq`,
          values: [id],
          rowMode: 'array',
        });
        if (rows.length === 0) continue;
        const events = rows.map((r: unknown[]) => ({
          block_time: num(r[0]),
          previous_price: num(r[1]),
          current_price: num(r[2]),
          current_tvl: num(r[3]),
          volume: num(r[4]),
        }));
        let bars = barsFromEvents(events, RESOLUTIONS[0] as Resolution);
        const out: { series: number; res: number; bar: (typeof bars)[number] }[] = [];
        for (const resolution of RESOLUTIONS) {
          if (resolution !== RESOLUTIONS[0]) bars = rollupBars(bars, resolution);
          for (const bar of bars) out.push({ series: id, res: RESOLUTION_SECONDS[resolution], bar });
        }
        await insertBars(client, out, false);
        if (!agg) done += rows.length;
        onProgress?.(done, total);
      }
      await client.query('DELETE FROM meta WHERE key = $1', [BARS_STALE]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    return done;
  }
}

/** See `CommitBatch.remove`: pools (those given and every pool of the pairs given), then pairs, then tokens. */
async function removeRows(client: pg.ClientBase, rows: CreatedRows): Promise<void> {
  const { rows: pairPools } = await client.query('SELECT id FROM pools WHERE pair_id = ANY($1::int[])', [rows.pairs]);
  const pools = [...new Set([...rows.pools, ...pairPools.map((r) => num(r.id))])];
  await client.query('DELETE FROM bars WHERE series = ANY($1::int[])', [pools]);
  await client.query('DELETE FROM chain_lp WHERE pool = ANY($1::int[])', [pools]);
  await client.query('DELETE FROM pools WHERE id = ANY($1::int[])', [pools]);
  await client.query('DELETE FROM pairs WHERE id = ANY($1::int[])', [rows.pairs]);
  await client.query('DELETE FROM tokens WHERE id = ANY($1::int[])', [rows.tokens]);
}

/** See `CommitBatch.removeTradesAfter`: delete the later trades, fold their series' bars again from the cut. */
async function removeTradesAfter(client: pg.ClientBase, after: number): Promise<void> {
  const { rows: affected } = await client.query(
    'SELECT DISTINCT pool AS series, false AS agg FROM trades WHERE block_time > $1 UNION SELECT DISTINCT agg AS series, true AS agg FROM trades WHERE block_time > $1',
    [after],
  );
  await client.query('DELETE FROM trades WHERE block_time > $1', [after]);
  for (const { series, agg } of affected as { series: number; agg: boolean }[])
    await refold(client, series, agg, after + 1);
}

/**
 * See `CommitBatch.reaggregate`: the pair's Aggregate columns from `from` on, as its replay computes
 * them; returns the times of the trades whose columns changed (their buckets are folded again).
 */
async function reaggregate(
  client: pg.ClientBase,
  agg: number,
  pools: readonly number[],
  from: number,
  replay: AggregateReplay,
): Promise<number[]> {
  const before = new Map<number, { price: number; tvl: number }>();
  for (const pool of pools) {
    const { rows: last } = await client.query({
      text: 'SELECT price, tvl FROM trades WHERE pool = $1 AND block_time < $2 ORDER BY block_time DESC, seq DESC LIMIT 1',
      values: [pool, from],
      rowMode: 'array',
    });
    const row = last[0] as unknown[] | undefined;
    if (row) before.set(pool, { price: num(row[0]), tvl: num(row[1]) });
  }
  const { rows } = await client.query({
    text: `SELECT seq, pool, prev_price, price, prev_tvl, tvl, block_time, agg_prev_price, agg_price, agg_prev_tvl, agg_tvl
           FROM trades WHERE agg = $1 AND block_time >= $2 ORDER BY block_time, seq`,
    values: [agg, from],
    rowMode: 'array',
  });
  const trades: (PairTradeRow & AggregateColumns & { blockTime: number })[] = rows.map((r: unknown[]) => ({
    seq: num(r[0]),
    pool: num(r[1]),
    prevPrice: num(r[2]),
    price: num(r[3]),
    prevTvl: num(r[4]),
    tvl: num(r[5]),
    blockTime: num(r[6]),
    aggPrevPrice: num(r[7]),
    aggPrice: num(r[8]),
    aggPrevTvl: num(r[9]),
    aggTvl: num(r[10]),
  }));
  const columns = replay(before, trades);
  if (columns.length !== trades.length)
    throw new Error(`reaggregate: ${columns.length} answers for ${trades.length} trades`);
  const changed = trades.flatMap((trade, i) =>
    sameColumns(trade, columns[i] as AggregateColumns) ? [] : [{ trade, columns: columns[i] as AggregateColumns }],
  );
  if (changed.length === 0) return [];
  await client.query(
    `UPDATE trades SET agg_prev_price = x.app, agg_price = x.ap, agg_prev_tvl = x.apt, agg_tvl = x.at
     FROM unnest($1::bigint[], $2::float8[], $3::float8[], $4::float8[], $5::float8[]) AS x(seq, app, ap, apt, at) WHERE trades.seq = x.seq`,
    [
      changed.map((c) => c.trade.seq),
      changed.map((c) => c.columns.aggPrevPrice),
      changed.map((c) => c.columns.aggPrice),
      changed.map((c) => c.columns.aggPrevTvl),
      changed.map((c) => c.columns.aggTvl),
    ],
  );
  return changed.map((c) => c.trade.blockTime);
}

/** Folds a series' bars of one resolution again in [start, end), from its stored trades in time order. */
async function refoldRange(
  client: pg.ClientBase,
  series: number,
  agg: boolean,
  resolution: Resolution,
  start: number,
  end: number,
): Promise<void> {
  const prefix = agg ? 'agg_' : '';
  const res = RESOLUTION_SECONDS[resolution];
  await client.query('DELETE FROM bars WHERE series = $1 AND res = $2 AND t >= $3 AND t < $4', [
    series,
    res,
    start,
    end,
  ]);
  const { rows } = await client.query({
    text: `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${agg ? 'agg' : 'pool'} = $1 AND block_time >= $2 AND block_time < $3 ORDER BY block_time, seq`,
    values: [series, start, end],
    rowMode: 'array',
  });
  const events = rows.map((r: unknown[]) => ({
    block_time: num(r[0]),
    previous_price: num(r[1]),
    current_price: num(r[2]),
    current_tvl: num(r[3]),
    volume: num(r[4]),
  }));
  await insertBars(
    client,
    barsFromEvents(events, resolution).map((bar) => ({ series, res, bar })),
    false,
  );
}

/** Folds a series' bars again in exactly the buckets holding `times`. */
async function refoldBuckets(
  client: pg.ClientBase,
  series: number,
  agg: boolean,
  times: Iterable<number>,
): Promise<void> {
  const list = [...times];
  for (const resolution of RESOLUTIONS)
    for (const [start, end] of bucketRuns(list, resolution))
      await refoldRange(client, series, agg, resolution, start, end);
}

/** Folds a series' bars again from the bucket holding `since` on. */
async function refold(client: pg.ClientBase, series: number, agg: boolean, since: number): Promise<void> {
  for (const resolution of RESOLUTIONS)
    await refoldRange(client, series, agg, resolution, bucketStart(since, resolution), Number.MAX_SAFE_INTEGER);
}

/** Inserts bars in one statement (arrays unnested); `merge` folds them into stored ones by the bar rule. */
async function insertBars(
  client: Queryable,
  bars: readonly {
    series: number;
    res: number;
    bar: { time: number; open: number; high: number; low: number; close: number; volume: number; tvl: number };
  }[],
  merge: boolean,
): Promise<void> {
  if (bars.length === 0) return;
  const column = <T>(pick: (b: (typeof bars)[number]) => T) => bars.map(pick);
  await client.query(
    `INSERT INTO bars (series, res, t, o, h, l, c, v, tvl)
     SELECT * FROM unnest($1::int[], $2::int[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::bigint[], $9::float8[])
     ${merge ? 'ON CONFLICT (series, res, t) DO UPDATE SET h = greatest(bars.h, excluded.h), l = least(bars.l, excluded.l), c = excluded.c, v = bars.v + excluded.v, tvl = excluded.tvl' : ''}`,
    [
      column((b) => b.series),
      column((b) => b.res),
      column((b) => b.bar.time),
      column((b) => b.bar.open),
      column((b) => b.bar.high),
      column((b) => b.bar.low),
      column((b) => b.bar.close),
      column((b) => b.bar.volume),
      column((b) => b.bar.tvl),
    ],
  );
}

class PgKeyStore implements KeyStore {
  constructor(private readonly db: Queryable) {}

  async create(hash: string, prefix: string, plan: string, label: string, now: number): Promise<StoredKey> {
    const { rows } = await this.db.query(
      'INSERT INTO api_keys (hash, prefix, plan, label, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [hash, prefix, plan, label, now],
    );
    return { id: num(rows[0]?.id), prefix, plan, label, createdAt: now, revokedAt: null };
  }

  async list(): Promise<StoredKey[]> {
    const { rows } = await this.db.query(
      'SELECT id, prefix, plan, label, created_at, revoked_at FROM api_keys ORDER BY id',
    );
    return rows.map((r) => ({
      id: num(r.id),
      prefix: String(r.prefix),
      plan: String(r.plan),
      label: String(r.label),
      createdAt: num(r.created_at),
      revokedAt: r.revoked_at === null ? null : num(r.revoked_at),
    }));
  }

  async revoke(idOrPrefix: string, now: number): Promise<number> {
    const byId = /^\d+$/.test(idOrPrefix);
    const result = await this.db.query(
      `UPDATE api_keys SET revoked_at = $1 WHERE revoked_at IS NULL AND ${byId ? 'id = $2' : 'prefix = $2'}`,
      [now, byId ? Number(idOrPrefix) : idOrPrefix],
    );
    return result.rowCount ?? 0;
  }

  async count(): Promise<number> {
    return num((await this.db.query('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL')).rows[0]?.n ?? 0);
  }

  async candidates(prefix: string): Promise<{ hash: string; plan: string }[]> {
    const { rows } = await this.db.query('SELECT hash, plan FROM api_keys WHERE prefix = $1 AND revoked_at IS NULL', [
      prefix,
    ]);
    return rows.map((r) => ({ hash: String(r.hash), plan: String(r.plan) }));
  }
}

class PgSimStateStore implements SimStateStore {
  constructor(private readonly db: Queryable) {}

  async load(): Promise<SimState | undefined> {
    const { rows } = await this.db.query('SELECT height, next_block_time, fair FROM sim_state WHERE id = 1');
    const row = rows[0];
    return row === undefined
      ? undefined
      : { height: num(row.height), nextBlockTime: num(row.next_block_time), fair: row.fair as Buffer };
  }
}

/** A PostgreSQL database's store (see `Store`). */
export class PostgresStore implements Store {
  readonly market: PgMarketStore;
  readonly trades: PgTradeStore;
  readonly bars: PgBarStore;
  readonly keys: PgKeyStore;
  readonly sim: PgSimStateStore;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    this.market = new PgMarketStore(pool);
    this.trades = new PgTradeStore(pool);
    this.bars = new PgBarStore(pool);
    this.keys = new PgKeyStore(pool);
    this.sim = new PgSimStateStore(pool);
  }

  /** Connects and brings the schema to the latest version (each migration in its own transaction). */
  static async open(url: string): Promise<PostgresStore> {
    // Bounded waits: with the database gone, a request fails in seconds (503) instead of hanging.
    const pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 3_000, query_timeout: 15_000 });
    // An idle client losing its connection (the database restarting) must not crash the process.
    pool.on('error', () => undefined);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresStore(pool, url);
  }

  async commit(batch: CommitBatch): Promise<void> {
    // A writer commits on the session that holds its lock: if that session is gone, so is the commit.
    const client = this.writer ? this.writer.session() : await this.pool.connect();
    try {
      await client.query('BEGIN');
      if (batch.removeTradesAfter !== undefined) await removeTradesAfter(client, batch.removeTradesAfter);
      if (batch.remove) await removeRows(client, batch.remove);
      for (const t of batch.tokens ?? []) {
        await client.query(
          'INSERT INTO tokens (id, unit, ticker, name, decimals, logo_kind) VALUES ($1, $2, $3, $4, $5, $6)',
          [t.id, t.unit, t.ticker, t.name, t.decimals, t.logoKind],
        );
      }
      for (const t of batch.tokenUpdates ?? [])
        await client.query('UPDATE tokens SET ticker = $1, name = $2, decimals = $3 WHERE id = $4', [
          t.ticker,
          t.name,
          t.decimals,
          t.id,
        ]);
      for (const l of batch.logos ?? [])
        await client.query('UPDATE tokens SET logo_kind = $1, logo_png = $2 WHERE id = $3', [
          l.kind,
          l.kind === 0 ? null : l.png,
          l.id,
        ]);
      for (const p of batch.pairs ?? [])
        await client.query('INSERT INTO pairs (id, base, quote) VALUES ($1, $2, $3)', [p.id, p.base, p.quote]);
      for (const p of batch.pools ?? []) {
        await client.query(
          'INSERT INTO pools (id, pool_id, grp, pair_id, n, fee_bps, base_reserve, quote_reserve, simulated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
          [p.id, p.poolId, p.group, p.pairId, p.n, p.feeBps, p.baseReserve, p.quoteReserve, p.simulated],
        );
      }
      const trades = batch.trades ?? [];
      if (trades.length > 0) {
        const col = <T>(pick: (t: TradeRecord) => T) => trades.map(pick);
        // One statement for the batch; unnest keeps the batch's order, so seq follows ingest order.
        await client.query(
          `INSERT INTO trades (event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume, agg_prev_price, agg_price, agg_prev_tvl, agg_tvl)
           SELECT e, p, a, b, pp, pr, pt, tv, v, app, ap, apt, at
           FROM unnest($1::text[], $2::int[], $3::int[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::bigint[],
                       $10::float8[], $11::float8[], $12::float8[], $13::float8[]) WITH ORDINALITY AS x(e, p, a, b, pp, pr, pt, tv, v, app, ap, apt, at, ord)
           ORDER BY ord`,
          [
            col((t) => t.eventId),
            col((t) => t.pool),
            col((t) => t.agg),
            col((t) => t.blockTime),
            col((t) => t.prevPrice),
            col((t) => t.price),
            col((t) => t.prevTvl),
            col((t) => t.tvl),
            col((t) => t.volume),
            col((t) => t.aggPrevPrice),
            col((t) => t.aggPrice),
            col((t) => t.aggPrevTvl),
            col((t) => t.aggTvl),
          ],
        );
      }
      if (batch.bars) {
        const bars = [...batch.bars.entries()].map(({ series, resolution, bar }) => ({
          series,
          res: RESOLUTION_SECONDS[resolution],
          bar,
        }));
        await insertBars(client, bars, true);
      }
      const changed = new Map<number, number[]>();
      for (const r of batch.reaggregate ?? [])
        changed.set(r.agg, await reaggregate(client, r.agg, r.pools, r.from, r.replay));
      for (const { series, aggregate, times } of mergeRefolds(batch.refold, changed))
        await refoldBuckets(client, series, aggregate, times);
      if (batch.barsStale === true)
        await client.query(
          'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [BARS_STALE, '1'],
        );
      else if (batch.barsStale === false) await client.query('DELETE FROM meta WHERE key = $1', [BARS_STALE]);
      for (const r of batch.reserves ?? [])
        await client.query('UPDATE pools SET base_reserve = $1, quote_reserve = $2 WHERE id = $3', [
          r.base,
          r.quote,
          r.id,
        ]);
      for (const [key, value] of Object.entries(batch.meta ?? {})) {
        await client.query(
          'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [key, value],
        );
      }
      if (batch.journal) {
        const { removeAfter, append, removeBefore } = batch.journal;
        if (removeAfter !== undefined) await client.query('DELETE FROM chain_journal WHERE slot > $1', [removeAfter]);
        if (append && append.length > 0) {
          await client.query(
            `INSERT INTO chain_journal (slot, id, height, before, created)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[])`,
            [
              append.map((r) => r.slot),
              append.map((r) => r.id),
              append.map((r) => r.height),
              append.map((r) => JSON.stringify(r.before)),
              append.map((r) => (r.created ? JSON.stringify(r.created) : null)),
            ],
          );
        }
        if (removeBefore !== undefined) await client.query('DELETE FROM chain_journal WHERE slot < $1', [removeBefore]);
      }
      if (batch.chainLp) {
        const { set = [], remove = [] } = batch.chainLp;
        if (remove.length > 0) await client.query('DELETE FROM chain_lp WHERE pool = ANY($1::int[])', [remove]);
        if (set.length > 0) {
          await client.query(
            `INSERT INTO chain_lp (pool, lp) SELECT * FROM unnest($1::int[], $2::text[]) ON CONFLICT (pool) DO UPDATE SET lp = excluded.lp`,
            [set.map(([id]) => id), set.map(([, lp]) => lp)],
          );
        }
      }
      if (batch.simState) {
        await client.query(
          `INSERT INTO sim_state (id, height, next_block_time, fair) VALUES (1, $1, $2, $3)
           ON CONFLICT (id) DO UPDATE SET height = excluded.height, next_block_time = excluded.next_block_time, fair = excluded.fair`,
          [batch.simState.height, batch.simState.nextBlockTime, batch.simState.fair],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      if (!this.writer) (client as pg.PoolClient).release();
    }
  }

  private writer: WriterLock | undefined;

  /**
   * Takes the single-writer lock (a session advisory lock on a connection of its own, held until
   * `close`; freed by PostgreSQL when the writer dies). False when another session holds it. From
   * then on commits run on that session. If it drops (PostgreSQL restarting, the network), commits are
   * refused while the lock is taken again; if another writer took it meanwhile, `onTaken` is told and
   * commits stay refused.
   */
  async lockWriter(options: WriterLockOptions = {}): Promise<boolean> {
    const lock = new WriterLock(this.url, options);
    if (!(await lock.acquire())) return false;
    this.writer = lock;
    return true;
  }

  /** PostgreSQL has no bulk mode of ours: commits are durable either way. */
  setBulkMode(): Promise<void> {
    return Promise.resolve();
  }

  async ping(): Promise<void> {
    // A writer that lost its lock answers queries but commits nothing: not well.
    if (this.writer) this.writer.session();
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.writer?.release();
    this.writer = undefined;
    await this.pool.end();
  }
}

/** Key of the single writer's session advisory lock. */
const WRITER_LOCK_KEY = 727002;

export interface WriterLockOptions {
  /** Another writer holds the lock after this one lost its session: this one must stop writing. */
  readonly onTaken?: (message: string) => void;
  readonly log?: (line: string, fields?: { readonly level?: 'info' | 'warn' }) => void;
  /** First delay between attempts to take the lock back (doubling up to 5 s); default 250 ms. */
  readonly retryMs?: number;
}

/** The commit refused because the writer's lock is not held (see `PostgresStore.lockWriter`). */
export class WriterLockLost extends Error {
  override readonly name = 'WriterLockLost';
  readonly code = 'WRITER_LOCK_LOST';
}

/**
 * The single writer's PostgreSQL session holding the advisory lock. A session lock lives exactly as
 * long as its connection, so losing the connection loses the lock: the writer then refuses to commit
 * until it has taken the lock again on a new session, and gives up (onTaken) if another writer has it.
 */
class WriterLock {
  private client: pg.Client | undefined;
  private state: 'held' | 'lost' | 'taken' | 'closed' = 'lost';
  private retry: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;

  constructor(
    private readonly url: string,
    private readonly options: WriterLockOptions,
  ) {}

  /** Connects a session and tries the lock once; true when held. A connection failure is thrown. */
  async acquire(): Promise<boolean> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 3_000,
      query_timeout: 60_000,
      keepAlive: true,
    });
    // Until it is ours, a failing session is only a failed attempt; once ours, its loss is the lock's.
    client.on('error', (error: Error) => this.dropped(client, error.message));
    client.on('end', () => this.dropped(client, 'the connection ended'));
    try {
      await client.connect();
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK_KEY]);
      if (rows[0]?.ok !== true || this.state === 'closed') {
        await client.end().catch(() => undefined);
        return false;
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    this.state = 'held';
    this.attempt = 0;
    return true;
  }

  /** The session to commit on; throws WriterLockLost while the lock is not held. */
  session(): pg.Client {
    if (this.state === 'held' && this.client) return this.client;
    throw new WriterLockLost(
      this.state === 'taken'
        ? 'another writer took the database while this one was disconnected: this writer no longer commits'
        : 'the writer lost its PostgreSQL session (and with it the writer lock): not committing until the lock is taken again',
    );
  }

  private dropped(client: pg.Client, why: string): void {
    if (client !== this.client || this.state !== 'held') return;
    this.client = undefined;
    this.state = 'lost';
    this.options.log?.(
      `store: the writer lost its PostgreSQL session (${why}): commits are refused until the writer lock is taken again`,
      { level: 'warn' },
    );
    this.schedule();
  }

  private schedule(): void {
    if (this.state !== 'lost' || this.retry !== undefined) return;
    const delay = Math.min(5_000, (this.options.retryMs ?? 250) * 2 ** Math.min(this.attempt, 5));
    this.attempt++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reacquire();
    }, delay);
    this.retry.unref?.();
  }

  private async reacquire(): Promise<void> {
    if (this.state !== 'lost') return;
    let held: boolean;
    try {
      held = await this.acquire();
    } catch {
      // PostgreSQL is still away: try again later.
      this.schedule();
      return;
    }
    if (held) {
      this.options.log?.('store: the writer lock is held again; committing resumes');
      return;
    }
    if (this.state !== 'lost') return;
    this.state = 'taken';
    this.options.onTaken?.(
      'another writer took the database while this writer was disconnected from PostgreSQL: this writer stops (its later commits are refused)',
    );
  }

  async release(): Promise<void> {
    const client = this.client;
    this.state = 'closed';
    this.client = undefined;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    if (!client) return;
    await client.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    // One migrator at a time (two nodes starting together).
    await client.query('SELECT pg_advisory_lock(727001)');
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const { rows } = await client.query('SELECT version FROM schema_version');
    const current = rows.length === 0 ? 0 : num(rows[0]?.version);
    if (current > MIGRATIONS.length)
      throw new Error(
        `The database was written by a newer version (schema ${current}, this build knows ${MIGRATIONS.length}).`,
      );
    for (let version = current; version < MIGRATIONS.length; version++) {
      await client.query('BEGIN');
      await client.query(MIGRATIONS[version] ?? '');
      await client.query('DELETE FROM schema_version');
      await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version + 1]);
      await client.query('COMMIT');
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.query('SELECT pg_advisory_unlock(727001)').catch(() => undefined);
    client.release();
  }
}
