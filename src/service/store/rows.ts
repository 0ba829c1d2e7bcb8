import type { Row } from './program';
import type {
  CreatedRows,
  IdentityRow,
  IdentitySourceName,
  JournalIdentity,
  JournalRow,
  PoolRow,
  StoredKey,
  TokenRow,
  TradeRecord,
} from './ports';

/**
 * Rows as the engines hand them back, as the ports' types: once for both. The engines' values differ
 * only where a mapper below says so (PostgreSQL's sums are numeric text, its booleans true and false
 * where SQLite has 1 and 0); every other number is a number (PostgreSQL's bigint columns are parsed to
 * numbers: every value the store keeps there is far below 2^53).
 */

/** A number column (PostgreSQL's numeric sums come as text). */
export const num = (value: unknown): number => Number(value);

/** A boolean column or expression: 1 / 0 on SQLite, true / false on PostgreSQL. */
export const bool = (value: unknown): boolean => value === true || value === 1;

export function tokenOf(r: Row): TokenRow {
  return {
    id: num(r.id),
    unit: String(r.unit),
    ticker: String(r.ticker),
    name: String(r.name),
    decimals: num(r.decimals),
    logoKind: num(r.logo_kind),
  };
}

export function poolOf(r: Row): PoolRow {
  return {
    id: num(r.id),
    poolId: String(r.pool_id),
    group: String(r.grp),
    pairId: num(r.pair_id),
    n: num(r.n),
    feeBps: num(r.fee_bps),
    baseReserve: num(r.base_reserve),
    quoteReserve: num(r.quote_reserve),
    simulated: bool(r.simulated),
  };
}

/** A trade with its place in ingest order (statements.ts `TRADE_COLUMNS`). */
export function tradeOf(r: Row): TradeRecord & { readonly seq: number } {
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

/** A journal row as stored (its JSON columns parsed). */
export function journalRowOf(r: Row): JournalRow {
  return {
    slot: num(r.slot),
    id: String(r.id),
    height: num(r.height),
    before: JSON.parse(String(r.before)) as JournalRow['before'],
    ...(r.created !== null && r.created !== undefined ? { created: JSON.parse(String(r.created)) as CreatedRows } : {}),
    ...(r.identities !== null && r.identities !== undefined
      ? { identities: JSON.parse(String(r.identities)) as JournalIdentity[] }
      : {}),
  };
}

/** A text column that may be NULL: undefined then. */
const maybeText = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);

/** An identity record as stored (NULL columns: fields the source did not give, left out). */
export function identityOf(r: Row): IdentityRow {
  const fields = {
    name: maybeText(r.name),
    ticker: maybeText(r.ticker),
    decimals: r.decimals === null || r.decimals === undefined ? undefined : num(r.decimals),
    description: maybeText(r.description),
    url: maybeText(r.url),
    logo: maybeText(r.logo),
  };
  return {
    unit: String(r.unit),
    source: String(r.source) as IdentitySourceName,
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    at: num(r.learnt_at),
  };
}

export function keyOf(r: Row): StoredKey {
  return {
    id: num(r.id),
    prefix: String(r.prefix),
    plan: String(r.plan),
    label: String(r.label),
    createdAt: num(r.created_at),
    revokedAt: r.revoked_at === null || r.revoked_at === undefined ? null : num(r.revoked_at),
  };
}

/** A number column that may be NULL (an aggregate over no rows): undefined then. */
export const maybeNum = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : num(value);
