/**
 * Versioned schema migrations; index i takes the schema from version i to i + 1. Never edit a shipped
 * step: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- Tokens. unit = policy ID || asset name, lowercase hex; '' is ADA.
  CREATE TABLE tokens (
    id        INTEGER PRIMARY KEY,
    unit      TEXT NOT NULL UNIQUE,
    ticker    TEXT NOT NULL,
    name      TEXT NOT NULL,
    decimals  INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 19),
    -- 0: no logo, 1: generated from the unit, 2: the PNG in logo_png (from the registry)
    logo_kind INTEGER NOT NULL DEFAULT 0,
    logo_png  BLOB
  );

  CREATE TABLE pairs (
    id    INTEGER PRIMARY KEY,
    base  INTEGER NOT NULL REFERENCES tokens(id),
    quote INTEGER NOT NULL REFERENCES tokens(id),
    UNIQUE (base, quote)
  );

  -- Pools, including one Aggregate pool per pair. id is the bar series of the pool.
  -- Reserves are in raw (smallest) units; for an Aggregate pool they are the sums over the pair.
  CREATE TABLE pools (
    id            INTEGER PRIMARY KEY,
    pool_id       TEXT NOT NULL UNIQUE,
    grp           TEXT NOT NULL,
    pair_id       INTEGER NOT NULL REFERENCES pairs(id),
    n             INTEGER NOT NULL,
    fee_bps       REAL NOT NULL,
    base_reserve  REAL NOT NULL,
    quote_reserve REAL NOT NULL,
    simulated     INTEGER NOT NULL,
    UNIQUE (pair_id, grp, n)
  );

  -- Every trade, once (event_id makes ingest idempotent), with the state change of its pool and of its
  -- pair's Aggregate pool: enough to rebuild every bar. volume is in millionths of a whole base unit.
  CREATE TABLE trades (
    seq            INTEGER PRIMARY KEY,
    event_id       TEXT NOT NULL UNIQUE,
    pool           INTEGER NOT NULL REFERENCES pools(id),
    agg            INTEGER NOT NULL REFERENCES pools(id),
    block_time     INTEGER NOT NULL,
    prev_price     REAL NOT NULL,
    price          REAL NOT NULL,
    prev_tvl       REAL NOT NULL,
    tvl            REAL NOT NULL,
    volume         INTEGER NOT NULL,
    agg_prev_price REAL NOT NULL,
    agg_price      REAL NOT NULL,
    agg_prev_tvl   REAL NOT NULL,
    agg_tvl        REAL NOT NULL
  );

  -- For statistics over a pool's or an Aggregate's recent trades.
  CREATE INDEX trades_pool_time ON trades (pool, block_time);
  CREATE INDEX trades_agg_time ON trades (agg, block_time);

  -- OHLCV bars per series (pool id) and resolution (bucket seconds); t = bucket start.
  CREATE TABLE bars (
    series INTEGER NOT NULL,
    res    INTEGER NOT NULL,
    t      INTEGER NOT NULL,
    o      REAL NOT NULL,
    h      REAL NOT NULL,
    l      REAL NOT NULL,
    c      REAL NOT NULL,
    v      INTEGER NOT NULL,
    tvl    REAL NOT NULL,
    PRIMARY KEY (series, res, t)
  ) WITHOUT ROWID;

  -- API keys, stored as SHA-256 hashes of the key.
  CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    plan       TEXT NOT NULL,
    label      TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );

  -- The simulator's own state (fair prices, clock), saved with the trades it produced.
  CREATE TABLE sim_state (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    height          INTEGER NOT NULL,
    next_block_time REAL NOT NULL,
    fair            BLOB NOT NULL
  );
  `,
  // 2: stored keys are found by their clear prefix, then compared by hash in constant time.
  `
  CREATE INDEX api_keys_prefix ON api_keys (prefix);
  `,
  // 3: the chain source's rollback journal, one row per block (it was one meta value rewritten whole
  // on every block): the block and the reserves (JSON [[pool row id, base, quote], ...]) it changed.
  `
  CREATE TABLE chain_journal (
    slot   INTEGER PRIMARY KEY,
    id     TEXT NOT NULL,
    height INTEGER NOT NULL,
    before TEXT NOT NULL
  );
  `,
  // 4: exact rollbacks of the chain source: what each journalled block created (JSON {tokens, pairs,
  // pools} of row ids: a rollback deletes them), and the LP supply of each chain pool (decimal text: it
  // exceeds 2^53), which tells a deposit or withdrawal from a swap across restarts and rollbacks.
  `
  ALTER TABLE chain_journal ADD COLUMN created TEXT;
  CREATE TABLE chain_lp (
    pool INTEGER PRIMARY KEY REFERENCES pools(id),
    lp   TEXT NOT NULL
  );
  `,
  // 5: raw units (docs/decisions.md "Raw units in the store, decimals at the edge"): prices in raw base units per
  // raw quote unit, TVLs and volumes in raw base units, whatever the tokens' decimals; they are applied where values
  // leave the service. Trades and bars stored in whole units (volumes in millionths) with the decimals known when
  // they were written are converted once.
  rawUnitsMigration('INTEGER'),
];

/**
 * The conversion of stored trades and bars to raw units, for both engines (`integer` is each one's 64-bit integer
 * type): a price times 10^(base decimals - quote decimals), a TVL times 10^(base decimals), a volume (millionths of a
 * whole base unit) times 10^(base decimals - 6), rounded to a raw unit.
 */
export function rawUnitsMigration(integer: 'INTEGER' | 'BIGINT'): string {
  const factors = `(SELECT pools.id AS series,
      power(10.0, bt.decimals - qt.decimals) AS fp, power(10.0, bt.decimals) AS fb, power(10.0, bt.decimals - 6) AS fv
    FROM pools JOIN pairs ON pairs.id = pools.pair_id
      JOIN tokens bt ON bt.id = pairs.base JOIN tokens qt ON qt.id = pairs.quote)`;
  return `
  UPDATE trades SET
    prev_price = prev_price * f.fp, price = price * f.fp, agg_prev_price = agg_prev_price * f.fp, agg_price = agg_price * f.fp,
    prev_tvl = prev_tvl * f.fb, tvl = tvl * f.fb, agg_prev_tvl = agg_prev_tvl * f.fb, agg_tvl = agg_tvl * f.fb,
    volume = CAST(ROUND(volume * f.fv) AS ${integer})
  FROM ${factors} AS f WHERE trades.pool = f.series;
  UPDATE bars SET o = o * f.fp, h = h * f.fp, l = l * f.fp, c = c * f.fp, tvl = tvl * f.fb,
    v = CAST(ROUND(v * f.fv) AS ${integer})
  FROM ${factors} AS f WHERE bars.series = f.series;
  `;
}

/**
 * The trades' secondary indexes, as migration 1 made them. A bulk load drops them and makes them again
 * at its end (one sort each instead of an insert into each per trade); opening a store makes again any
 * that a load cut short left missing.
 */
export const TRADE_INDEXES: readonly { readonly name: string; readonly on: string }[] = [
  { name: 'trades_pool_time', on: 'trades (pool, block_time)' },
  { name: 'trades_agg_time', on: 'trades (agg, block_time)' },
];
