import type { Dialect } from './program';

/**
 * The store's schema, once for both engines: migration N (1-based) takes a store from version N - 1
 * to N, the same step with the same number on SQLite (`PRAGMA user_version`) and PostgreSQL (table
 * `schema_version`). Each step is SQL with the dialect's few words (`t.types.real` is SQLite's REAL and
 * PostgreSQL's DOUBLE PRECISION); each engine's migrator applies the steps newer than its store's
 * version, each in its own transaction. Never edit a shipped step: append a new one (docs/architecture.md
 * "How to add a migration").
 */
export type Migration = (t: Dialect) => string;

export const MIGRATIONS: readonly Migration[] = [
  // 1: the market, its trades and bars, API keys, the simulator's state.
  ({ types: { int, bigint, real, blob, bool }, autoKey, bigAutoKey, withoutRowid }) => `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- Tokens. unit = policy ID || asset name, lowercase hex; '' is ADA.
  CREATE TABLE tokens (
    id        ${int} PRIMARY KEY,
    unit      TEXT NOT NULL UNIQUE,
    ticker    TEXT NOT NULL,
    name      TEXT NOT NULL,
    decimals  ${int} NOT NULL CHECK (decimals BETWEEN 0 AND 19),
    -- 0: no logo, 1: generated from the unit, 2: the PNG in logo_png (from the registry)
    logo_kind ${int} NOT NULL DEFAULT 0,
    logo_png  ${blob}
  );

  CREATE TABLE pairs (
    id    ${int} PRIMARY KEY,
    base  ${int} NOT NULL REFERENCES tokens(id),
    quote ${int} NOT NULL REFERENCES tokens(id),
    UNIQUE (base, quote)
  );

  -- Pools, including one Aggregate pool per pair. id is the bar series of the pool.
  -- Reserves are in raw (smallest) units; for an Aggregate pool they are the sums over the pair.
  CREATE TABLE pools (
    id            ${int} PRIMARY KEY,
    pool_id       TEXT NOT NULL UNIQUE,
    grp           TEXT NOT NULL,
    pair_id       ${int} NOT NULL REFERENCES pairs(id),
    n             ${int} NOT NULL,
    fee_bps       ${real} NOT NULL,
    base_reserve  ${real} NOT NULL,
    quote_reserve ${real} NOT NULL,
    simulated     ${bool} NOT NULL,
    UNIQUE (pair_id, grp, n)
  );

  -- Every trade, once (event_id makes ingest idempotent), with the state change of its pool and of its
  -- pair's Aggregate pool: enough to rebuild every bar. volume is in millionths of a whole base unit.
  CREATE TABLE trades (
    seq            ${bigAutoKey},
    event_id       TEXT NOT NULL UNIQUE,
    pool           ${int} NOT NULL REFERENCES pools(id),
    agg            ${int} NOT NULL REFERENCES pools(id),
    block_time     ${bigint} NOT NULL,
    prev_price     ${real} NOT NULL,
    price          ${real} NOT NULL,
    prev_tvl       ${real} NOT NULL,
    tvl            ${real} NOT NULL,
    volume         ${bigint} NOT NULL,
    agg_prev_price ${real} NOT NULL,
    agg_price      ${real} NOT NULL,
    agg_prev_tvl   ${real} NOT NULL,
    agg_tvl        ${real} NOT NULL
  );

  -- For statistics over a pool's or an Aggregate's recent trades.
  CREATE INDEX trades_pool_time ON trades (pool, block_time);
  CREATE INDEX trades_agg_time ON trades (agg, block_time);

  -- OHLCV bars per series (pool id) and resolution (bucket seconds); t = bucket start.
  CREATE TABLE bars (
    series ${int} NOT NULL,
    res    ${int} NOT NULL,
    t      ${bigint} NOT NULL,
    o      ${real} NOT NULL,
    h      ${real} NOT NULL,
    l      ${real} NOT NULL,
    c      ${real} NOT NULL,
    v      ${bigint} NOT NULL,
    tvl    ${real} NOT NULL,
    PRIMARY KEY (series, res, t)
  )${withoutRowid};

  -- API keys, stored as SHA-256 hashes of the key.
  CREATE TABLE api_keys (
    id         ${autoKey},
    hash       TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    plan       TEXT NOT NULL,
    label      TEXT NOT NULL DEFAULT '',
    created_at ${bigint} NOT NULL,
    revoked_at ${bigint}
  );

  -- The simulator's own state (fair prices, clock), saved with the trades it produced.
  CREATE TABLE sim_state (
    id              ${int} PRIMARY KEY CHECK (id = 1),
    height          ${int} NOT NULL,
    next_block_time ${real} NOT NULL,
    fair            ${blob} NOT NULL
  );
  `,
  // 2: stored keys are found by their clear prefix, then compared by hash in constant time.
  () => `
  CREATE INDEX api_keys_prefix ON api_keys (prefix);
  `,
  // 3: the chain source's rollback journal, one row per block (it was one meta value rewritten whole
  // on every block): the block and the reserves (JSON [[pool row id, base, quote], ...]) it changed.
  ({ types: { bigint } }) => `
  CREATE TABLE chain_journal (
    slot   ${bigint} PRIMARY KEY,
    id     TEXT NOT NULL,
    height ${bigint} NOT NULL,
    before TEXT NOT NULL
  );
  `,
  // 4: exact rollbacks of the chain source: what each journalled block created (JSON {tokens, pairs,
  // pools} of row ids: a rollback deletes them), and the LP supply of each chain pool (decimal text: it
  // exceeds 2^53), which tells a deposit or withdrawal from a swap across restarts and rollbacks.
  ({ types: { int } }) => `
  ALTER TABLE chain_journal ADD COLUMN created TEXT;
  CREATE TABLE chain_lp (
    pool ${int} PRIMARY KEY REFERENCES pools(id),
    lp   TEXT NOT NULL
  );
  `,
  // 5: raw units (docs/decisions.md "Raw units in the store, decimals at the edge"): prices in raw base
  // units per raw quote unit, TVLs and volumes in raw base units, whatever the tokens' decimals, which
  // are applied where values leave the service. Trades and bars stored in whole units (volumes in
  // millionths) with the decimals known when they were written are converted once: a price times
  // 10^(base decimals - quote decimals), a TVL times 10^(base decimals), a volume times 10^(base
  // decimals - 6), rounded to a raw unit.
  ({ types: { bigint } }) => {
    const factors = `(SELECT pools.id AS series,
      power(10.0, bt.decimals - qt.decimals) AS fp, power(10.0, bt.decimals) AS fb, power(10.0, bt.decimals - 6) AS fv
    FROM pools JOIN pairs ON pairs.id = pools.pair_id
      JOIN tokens bt ON bt.id = pairs.base JOIN tokens qt ON qt.id = pairs.quote)`;
    return `
  UPDATE trades SET
    prev_price = prev_price * f.fp, price = price * f.fp, agg_prev_price = agg_prev_price * f.fp,
    agg_price = agg_price * f.fp, prev_tvl = prev_tvl * f.fb, tvl = tvl * f.fb,
    agg_prev_tvl = agg_prev_tvl * f.fb, agg_tvl = agg_tvl * f.fb, volume = CAST(ROUND(volume * f.fv) AS ${bigint})
  FROM ${factors} AS f WHERE trades.pool = f.series;
  UPDATE bars SET o = o * f.fp, h = h * f.fp, l = l * f.fp, c = c * f.fp, tvl = tvl * f.fb,
    v = CAST(ROUND(v * f.fv) AS ${bigint})
  FROM ${factors} AS f WHERE bars.series = f.series;
  `;
  },
  // 6: the logo cache (docs/chain.md "Logos"): what a token's stored PNG was made from, as the SHA-256 (hex) of the
  // logo its metadata names (a URI, or `png:<hash>` of inline bytes), so that a restart does not fetch it again
  // and a token whose logo changes fetches the new one. NULL: a PNG stored by the registry import, or none.
  () => `
  ALTER TABLE tokens ADD COLUMN logo_key TEXT;
  `,
  // 7: token identity (docs/chain.md "Token identity"): what each source said of a token (its CIP-68
  // reference datum, its CIP-26 registry entry), one row per token and source, kept apart from the
  // token's row (which holds the identity served); and, per journalled block, the records it changed
  // as they were before it (JSON [[unit, source, record or null], ...]), so a rollback puts them back.
  ({ types: { int, real } }) => `
  CREATE TABLE token_identity (
    unit        TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('cip68', 'registry')),
    name        TEXT,
    ticker      TEXT,
    decimals    ${int} CHECK (decimals BETWEEN 0 AND 19),
    description TEXT,
    url         TEXT,
    logo        TEXT,
    learnt_at   ${real} NOT NULL,
    PRIMARY KEY (unit, source)
  );
  ALTER TABLE chain_journal ADD COLUMN identities TEXT;
  `,
];

/** The schema version a store of this build is brought to. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The migrations a store at `version` still needs, as [version they bring it to, SQL] pairs; throws
 * when the store was written by a newer build (`where` names it: the data directory, the database).
 */
export function pendingMigrations(version: number, dialect: Dialect, where: string): [number, string][] {
  if (version > SCHEMA_VERSION)
    throw new Error(`${where} was written by a newer version (schema ${version}, this build knows ${SCHEMA_VERSION}).`);
  return MIGRATIONS.slice(version).map((step, i) => [version + i + 1, step(dialect)]);
}

/**
 * PostgreSQL stores numbered their schema on their own before the numbering was one for both engines:
 * their step 1 was this step 1 with step 2's index, their steps 2 and 3 these steps 3 and 4. The
 * version such a store records, mapped to this numbering (postgres/migrate.ts converts it once).
 */
export const POSTGRES_VERSIONS_BEFORE_ONE_NUMBERING: readonly number[] = [0, 2, 3, 4];

/**
 * The trades' secondary indexes, as migration 1 made them. A bulk load drops them and makes them again
 * at its end (one sort each instead of an insert into each per trade); opening a store makes again any
 * that a load cut short left missing.
 */
export const TRADE_INDEXES: readonly { readonly name: string; readonly on: string }[] = [
  { name: 'trades_pool_time', on: 'trades (pool, block_time)' },
  { name: 'trades_agg_time', on: 'trades (agg, block_time)' },
];
