import { statement, type RowsStatement, type Statement } from './program';

/**
 * Every statement of the store, written once for both engines (`?` placeholders; the dialect's words
 * where the engines differ). The programs of reads.ts and rules.ts run them; the engines prepare each
 * once.
 */

/** Meta key present while the bars lag the trades (see `BarStore.stale`). */
export const BARS_STALE = 'bars_stale';

/** A series is a DEX pool's (its trades' `pool` column and their own prices) or an Aggregate's (`agg`, the `agg_` prices). */
export type SeriesSide = 'pool' | 'agg';

export const sideOf = (aggregate: boolean): SeriesSide => (aggregate ? 'agg' : 'pool');

/** A statement for each side of a series. */
function bySide(make: (column: SeriesSide, prefix: '' | 'agg_') => Statement): Readonly<Record<SeriesSide, Statement>> {
  return { pool: make('pool', ''), agg: make('agg', 'agg_') };
}

// ---- The market ----

export const LOAD_TOKENS = statement('SELECT id, unit, ticker, name, decimals, logo_kind FROM tokens ORDER BY id');
export const LOAD_PAIRS = statement('SELECT id, base, quote FROM pairs ORDER BY id');
export const LOAD_POOLS = statement(
  'SELECT id, pool_id, grp, pair_id, n, fee_bps, base_reserve, quote_reserve, simulated FROM pools ORDER BY id',
);
export const META = statement('SELECT value FROM meta WHERE key = ?');
export const NEXT_IDS = statement(
  'SELECT (SELECT coalesce(max(id), 0) + 1 FROM tokens) AS token, (SELECT coalesce(max(id), 0) + 1 FROM pairs) AS pair, (SELECT coalesce(max(id), 0) + 1 FROM pools) AS pool',
);
export const LOGO = statement('SELECT logo_png FROM tokens WHERE id = ?');
export const LOGO_KEY = statement('SELECT logo_key FROM tokens WHERE id = ?');
export const JOURNAL = statement(
  'SELECT slot, id, height, before, created, identities FROM chain_journal ORDER BY slot',
);
export const CHAIN_LP = statement('SELECT pool, lp FROM chain_lp ORDER BY pool');
export const LOAD_IDENTITIES = statement(
  'SELECT unit, source, name, ticker, decimals, description, url, logo, learnt_at FROM token_identity ORDER BY unit, source',
);
export const SET_IDENTITIES: RowsStatement = {
  kind: 'insert',
  table: 'token_identity',
  columns: [
    ['unit', 'text'],
    ['source', 'text'],
    ['name', 'text'],
    ['ticker', 'text'],
    ['decimals', 'int'],
    ['description', 'text'],
    ['url', 'text'],
    ['logo', 'text'],
    ['learnt_at', 'real'],
  ],
  onConflict: () =>
    `ON CONFLICT (unit, source) DO UPDATE SET name = excluded.name, ticker = excluded.ticker, decimals = excluded.decimals,
     description = excluded.description, url = excluded.url, logo = excluded.logo, learnt_at = excluded.learnt_at`,
};
export const DELETE_IDENTITY = statement('DELETE FROM token_identity WHERE unit = ? AND source = ?');

export const INSERT_TOKENS: RowsStatement = {
  kind: 'insert',
  table: 'tokens',
  columns: [
    ['id', 'int'],
    ['unit', 'text'],
    ['ticker', 'text'],
    ['name', 'text'],
    ['decimals', 'int'],
    ['logo_kind', 'int'],
  ],
};
export const UPDATE_TOKENS: RowsStatement = {
  kind: 'update',
  table: 'tokens',
  columns: [
    ['id', 'int'],
    ['ticker', 'text'],
    ['name', 'text'],
    ['decimals', 'int'],
  ],
};
export const SET_LOGOS: RowsStatement = {
  kind: 'update',
  table: 'tokens',
  columns: [
    ['id', 'int'],
    ['logo_kind', 'int'],
    ['logo_png', 'blob'],
    ['logo_key', 'text'],
  ],
};
export const INSERT_PAIRS: RowsStatement = {
  kind: 'insert',
  table: 'pairs',
  columns: [
    ['id', 'int'],
    ['base', 'int'],
    ['quote', 'int'],
  ],
};
export const INSERT_POOLS: RowsStatement = {
  kind: 'insert',
  table: 'pools',
  columns: [
    ['id', 'int'],
    ['pool_id', 'text'],
    ['grp', 'text'],
    ['pair_id', 'int'],
    ['n', 'int'],
    ['fee_bps', 'real'],
    ['base_reserve', 'real'],
    ['quote_reserve', 'real'],
    ['simulated', 'bool'],
  ],
};
export const SET_RESERVES: RowsStatement = {
  kind: 'update',
  table: 'pools',
  columns: [
    ['id', 'int'],
    ['base_reserve', 'real'],
    ['quote_reserve', 'real'],
  ],
};
export const SET_META: RowsStatement = {
  kind: 'insert',
  table: 'meta',
  columns: [
    ['key', 'text'],
    ['value', 'text'],
  ],
  onConflict: () => 'ON CONFLICT (key) DO UPDATE SET value = excluded.value',
};
export const CLEAR_META = statement('DELETE FROM meta WHERE key = ?');
export const SAVE_SIM = statement(
  `INSERT INTO sim_state (id, height, next_block_time, fair) VALUES (1, ?, ?, ?)
   ON CONFLICT (id) DO UPDATE SET height = excluded.height, next_block_time = excluded.next_block_time, fair = excluded.fair`,
);
export const LOAD_SIM = statement('SELECT height, next_block_time, fair FROM sim_state WHERE id = 1');

// ---- The chain source's journal and LP supplies ----

export const INSERT_JOURNAL: RowsStatement = {
  kind: 'insert',
  table: 'chain_journal',
  columns: [
    ['slot', 'bigint'],
    ['id', 'text'],
    ['height', 'bigint'],
    ['before', 'text'],
    ['created', 'text'],
    ['identities', 'text'],
  ],
};
export const JOURNAL_REMOVE_AFTER = statement('DELETE FROM chain_journal WHERE slot > ?');
export const JOURNAL_REMOVE_BEFORE = statement('DELETE FROM chain_journal WHERE slot < ?');
export const SET_CHAIN_LP: RowsStatement = {
  kind: 'insert',
  table: 'chain_lp',
  columns: [
    ['pool', 'int'],
    ['lp', 'text'],
  ],
  onConflict: () => 'ON CONFLICT (pool) DO UPDATE SET lp = excluded.lp',
};
export const DELETE_CHAIN_LP: RowsStatement = { kind: 'delete', table: 'chain_lp', columns: [['pool', 'int']] };

// ---- Removing created rows (a rollback of the chain source) ----

export const POOLS_OF_PAIRS = statement(
  (d) => `SELECT id FROM pools WHERE pair_id IN (SELECT value FROM ${d.idTable('p')})`,
);
export const DELETE_BARS_OF: RowsStatement = { kind: 'delete', table: 'bars', columns: [['series', 'int']] };
export const DELETE_POOLS: RowsStatement = { kind: 'delete', table: 'pools', columns: [['id', 'int']] };
export const DELETE_PAIRS: RowsStatement = { kind: 'delete', table: 'pairs', columns: [['id', 'int']] };
export const DELETE_TOKENS: RowsStatement = { kind: 'delete', table: 'tokens', columns: [['id', 'int']] };

// ---- Trades ----

/** Every column of a trade, as `tradeOf` (rows.ts) reads it. */
const TRADE_COLUMNS =
  'seq, event_id, pool, agg, block_time, prev_price, price, prev_tvl, tvl, volume, agg_prev_price, agg_price, agg_prev_tvl, agg_tvl';

export const INSERT_TRADES: RowsStatement = {
  kind: 'insert',
  table: 'trades',
  columns: [
    ['event_id', 'text'],
    ['pool', 'int'],
    ['agg', 'int'],
    ['block_time', 'bigint'],
    ['prev_price', 'real'],
    ['price', 'real'],
    ['prev_tvl', 'real'],
    ['tvl', 'real'],
    ['volume', 'bigint'],
    ['agg_prev_price', 'real'],
    ['agg_price', 'real'],
    ['agg_prev_tvl', 'real'],
    ['agg_tvl', 'real'],
  ],
};
export const HAS_EVENT = statement('SELECT 1 AS one FROM trades WHERE event_id = ?');
export const COUNT_TRADES = statement('SELECT count(*) AS n FROM trades');
export const LAST_TRADE_TIME = bySide((column) =>
  statement(`SELECT max(block_time) AS t FROM trades WHERE ${column} = ?`),
);
/** A series' state after its last trade at or before a time. */
export const STATE_BEFORE = bySide((column, prefix) =>
  statement(
    `SELECT ${prefix}price AS price, ${prefix}tvl AS tvl FROM trades
     WHERE ${column} = ? AND block_time <= ? ORDER BY block_time DESC, seq DESC LIMIT 1`,
  ),
);
/** A series' state before its first trade after a time. */
export const STATE_AFTER = bySide((column, prefix) =>
  statement(
    `SELECT ${prefix}prev_price AS price, ${prefix}prev_tvl AS tvl FROM trades
     WHERE ${column} = ? AND block_time > ? ORDER BY block_time, seq LIMIT 1`,
  ),
);
export const VOLUME_SINCE = bySide((column) =>
  statement(`SELECT coalesce(sum(volume), 0) AS v FROM trades WHERE ${column} = ? AND block_time > ?`),
);
/** One pass over a list of series: per series, the queries of stateAt (price) and volumeSince. */
export const WINDOW_STATS = bySide((column, prefix) =>
  statement(
    (d) => `SELECT s.value AS series,
       coalesce(
         (SELECT ${prefix}price FROM trades WHERE ${column} = s.value AND block_time <= ? ORDER BY block_time DESC, seq DESC LIMIT 1),
         (SELECT ${prefix}prev_price FROM trades WHERE ${column} = s.value AND block_time > ? ORDER BY block_time, seq LIMIT 1)
       ) AS price,
       (SELECT coalesce(sum(volume), 0) FROM trades WHERE ${column} = s.value AND block_time > ?) AS volume
     FROM ${d.idTable('s')}`,
  ),
);
export const BUSIEST_AGGREGATES = statement(
  'SELECT agg AS series, count(*) AS trades FROM trades GROUP BY agg ORDER BY trades DESC, agg LIMIT ?',
);

const LISTS = new Map<string, Statement>();
/** Trades after a seq in ingest order, only a pool's or an Aggregate's when asked. */
export function listTrades(pool: boolean, agg: boolean): Statement {
  const key = `${pool}${agg}`;
  let found = LISTS.get(key);
  if (!found) {
    const where = ['seq > ?', ...(pool ? ['pool = ?'] : []), ...(agg ? ['agg = ?'] : [])].join(' AND ');
    found = statement(`SELECT ${TRADE_COLUMNS} FROM trades WHERE ${where} ORDER BY seq`);
    LISTS.set(key, found);
  }
  return found;
}

/** A series' trades newest first, from the start or before a (block time, seq) cursor. */
export const RECENT_TRADES = {
  newest: bySide((column) =>
    statement(`SELECT ${TRADE_COLUMNS} FROM trades WHERE ${column} = ? ORDER BY block_time DESC, seq DESC LIMIT ?`),
  ),
  before: bySide((column) =>
    statement(
      `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${column} = ? AND (block_time < ? OR (block_time = ? AND seq < ?))
       ORDER BY block_time DESC, seq DESC LIMIT ?`,
    ),
  ),
};

/** Trades after a time go (a rollback): the series they touched, then the trades. */
export const AFFECTED_SERIES = statement(
  'SELECT DISTINCT pool AS series, 0 AS agg FROM trades WHERE block_time > ? UNION SELECT DISTINCT agg AS series, 1 AS agg FROM trades WHERE block_time > ?',
);
export const DELETE_TRADES_AFTER = statement('DELETE FROM trades WHERE block_time > ?');

/** A pool's state after its last trade before a time (a re-aggregation starts from it). */
export const LAST_STATE_BEFORE = statement(
  'SELECT price, tvl FROM trades WHERE pool = ? AND block_time < ? ORDER BY block_time DESC, seq DESC LIMIT 1',
);
/** A pair's trades from a time on, in time order (ties in ingest order), with their Aggregate columns. */
export const PAIR_TRADES_FROM = statement(
  `SELECT seq, pool, block_time, prev_price, price, prev_tvl, tvl, agg_prev_price, agg_price, agg_prev_tvl, agg_tvl
   FROM trades WHERE agg = ? AND block_time >= ? ORDER BY block_time, seq`,
);
export const SET_AGGREGATE_COLUMNS: RowsStatement = {
  kind: 'update',
  table: 'trades',
  columns: [
    ['seq', 'bigint'],
    ['agg_prev_price', 'real'],
    ['agg_price', 'real'],
    ['agg_prev_tvl', 'real'],
    ['agg_tvl', 'real'],
  ],
};

// ---- Bars ----

/** A series' trades as bar events (block time, previous price, price, TVL, volume), in time order. */
export const EVENTS = bySide((column, prefix) =>
  statement(
    `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades WHERE ${column} = ? ORDER BY block_time, seq`,
  ),
);
/** `EVENTS` with from <= block_time < to. */
export const EVENTS_IN = bySide((column, prefix) =>
  statement(
    `SELECT block_time, ${prefix}prev_price, ${prefix}price, ${prefix}tvl, volume FROM trades
     WHERE ${column} = ? AND block_time >= ? AND block_time < ? ORDER BY block_time, seq`,
  ),
);

const BAR_COLUMNS: RowsStatement['columns'] = [
  ['series', 'int'],
  ['res', 'int'],
  ['t', 'bigint'],
  ['o', 'real'],
  ['h', 'real'],
  ['l', 'real'],
  ['c', 'real'],
  ['v', 'bigint'],
  ['tvl', 'real'],
];
/** New bars (no stored bar has their keys). */
export const INSERT_BARS: RowsStatement = { kind: 'insert', table: 'bars', columns: BAR_COLUMNS };
/** Bars merged into the stored ones by the bar rule (shared/bars mergeBars): a later partial bar folds into its bucket's. */
export const MERGE_BARS: RowsStatement = {
  kind: 'insert',
  table: 'bars',
  columns: BAR_COLUMNS,
  onConflict: (d) =>
    `ON CONFLICT (series, res, t) DO UPDATE SET h = ${d.greatest('bars.h', 'excluded.h')}, l = ${d.least('bars.l', 'excluded.l')}, c = excluded.c, v = bars.v + excluded.v, tvl = excluded.tvl`,
};
export const DELETE_BARS_IN = statement('DELETE FROM bars WHERE series = ? AND res = ? AND t >= ? AND t < ?');
export const DELETE_ALL_BARS = statement('DELETE FROM bars');
/** Every series (pool row), whether an Aggregate's, in key order. */
export const SERIES = statement('SELECT id, grp = ? AS agg FROM pools ORDER BY id');

export const BAR_RANGE = statement(
  'SELECT t, o, h, l, c, v, tvl FROM bars WHERE series = ? AND res = ? AND t >= ? AND t < ? ORDER BY t',
);
export const BAR_EXTENT = statement('SELECT min(t) AS first, max(t) AS last FROM bars WHERE series = ? AND res = ?');
export const COUNTBACK_NTH = statement(
  'SELECT t FROM bars WHERE series = ? AND res = ? AND t < ? ORDER BY t DESC LIMIT 1 OFFSET ?',
);
export const COUNTBACK_OLDEST = statement(
  'SELECT t FROM bars WHERE series = ? AND res = ? AND t < ? ORDER BY t LIMIT 1',
);
export const ALL_BARS = statement('SELECT series, res, t, o, h, l, c, v, tvl FROM bars ORDER BY series, res, t');

// ---- API keys ----

export const CREATE_KEY = statement(
  'INSERT INTO api_keys (hash, prefix, plan, label, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
);
export const LIST_KEYS = statement('SELECT id, prefix, plan, label, created_at, revoked_at FROM api_keys ORDER BY id');
export const REVOKE_KEY = {
  id: statement('UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND id = ?'),
  prefix: statement('UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL AND prefix = ?'),
};
export const COUNT_KEYS = statement('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL');
export const KEY_CANDIDATES = statement('SELECT hash, plan FROM api_keys WHERE prefix = ? AND revoked_at IS NULL');
