import type { Resolution } from '../../shared/resolutions';
import type { Bar } from '../../shared/bars';

/**
 * What the service needs from a store, as interfaces a second implementation (PostgreSQL) satisfies
 * too. Every method returns a promise, even on SQLite (whose calls complete at once): network drivers
 * are asynchronous, and the callers must not care which store they have. Rows are plain data: the
 * in-memory market model (`market/`) is built from them and never seen here.
 *
 * Writes: one logical write (a simulated block or several, an import batch, a chain block, the
 * creation of the market) is one `Store.commit(batch)`, applied in one transaction — all of it or
 * none. The single writer allocates new row ids (`MarketStore.nextIds`), so a batch can create a pool
 * and trade on it. API keys are the one other write (`KeyStore`), each call its own transaction.
 */

export interface TokenRow {
  readonly id: number;
  readonly unit: string;
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
  /** 0 none, 1 generated, 2 stored (see market/model LOGO_*). */
  readonly logoKind: number;
}

export interface PairRow {
  readonly id: number;
  /** Token row ids. */
  readonly base: number;
  readonly quote: number;
}

export interface PoolRow {
  /** Row id; also the pool's bar series. */
  readonly id: number;
  readonly poolId: string;
  readonly group: string;
  readonly pairId: number;
  readonly n: number;
  readonly feeBps: number;
  readonly baseReserve: number;
  readonly quoteReserve: number;
  readonly simulated: boolean;
}

/** A source of token identity that keeps records (docs/chain.md "Token identity"). */
export type IdentitySourceName = 'cip68' | 'registry';

/**
 * What one source says of a token (`token_identity`): every field but the unit, the source and the time is optional,
 * a source may know only some. The identity served is made from these (service/identity/identity.ts).
 */
export interface IdentityRow {
  readonly unit: string;
  readonly source: IdentitySourceName;
  readonly name?: string | undefined;
  readonly ticker?: string | undefined;
  readonly decimals?: number | undefined;
  readonly description?: string | undefined;
  /** The token's site (https). */
  readonly url?: string | undefined;
  /**
   * Where its logo is: a URI (`ipfs://`, `https://`, `ar://`, `data:`), or `png:<sha256>` for PNG bytes the source
   * gave inline (a registry's base64 logo), kept with the logos.
   */
  readonly logo?: string | undefined;
  /** When the source said it (Unix seconds). */
  readonly at: number;
}

/** A record changed by a journalled chain block: its unit and source, and the record before it (null: none). */
export type JournalIdentity = readonly [unit: string, source: IdentitySourceName, before: IdentityRow | null];

export interface MarketRows {
  /** In id order, as are the others. */
  readonly tokens: readonly TokenRow[];
  readonly pairs: readonly PairRow[];
  readonly pools: readonly PoolRow[];
  /** Every source's record of a token (by unit, then source); absent when there is none. */
  readonly identities?: readonly IdentityRow[];
  /**
   * The meta value `COMMIT_POSITION_META` as of the same snapshot: which commit of a cluster's writer
   * these rows include (absent where no writer stamps its commits).
   */
  readonly position?: string;
}

/** Meta key a cluster's writer stamps each commit with (`<writer>#<seq>`, in the commit's transaction). */
export const COMMIT_POSITION_META = 'commit_position';

/** The next free row ids; the single writer hands them out. */
export interface NextIds {
  token: number;
  pair: number;
  pool: number;
}

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

/** A series' price as of the start of a window and the volume traded in it (`TradeStore.windowStats`). */
export interface WindowStats {
  readonly price: number | undefined;
  /** Millionths of a whole base unit. */
  readonly volume: number;
}

/** Raw bar rows as read for /history: columns t, o, h, l, c, v, tvl, in raw units. */
export type BarRow = [number, number, number, number, number, number, number];

/** The simulator's state, saved with the trades of each of its commits. */
export interface SimState {
  readonly height: number;
  readonly nextBlockTime: number;
  /** Fair prices and their times, then the last block time (float64, opaque to the store). */
  readonly fair: Buffer;
}

/** An API key as stored (never the key itself: its hash and clear prefix). */
export interface StoredKey {
  readonly id: number;
  readonly prefix: string;
  readonly plan: string;
  readonly label: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/**
 * A pool's state as a chain block found it: pool row id, base and quote reserves, and its LP supply
 * (a decimal string; null where it was not known). Older journal rows have no fourth element.
 */
export type JournalPoolState = readonly [number, number, number] | readonly [number, number, number, string | null];

/** Row ids of what a write created: tokens, pairs (each with its Aggregate pool) and DEX pools. */
export interface CreatedRows {
  readonly tokens: readonly number[];
  readonly pairs: readonly number[];
  readonly pools: readonly number[];
}

/**
 * One block of the chain source's rollback journal: the block, the state every pool it changed had
 * before it, and what it created (so that a rollback can put the pools back and delete the rest).
 */
export interface JournalRow {
  readonly slot: number;
  readonly id: string;
  readonly height: number;
  readonly before: readonly JournalPoolState[];
  /** Absent in rows written before creations were journalled. */
  readonly created?: CreatedRows;
  /** The identity records the block changed, as they were before it (absent: none). */
  readonly identities?: readonly JournalIdentity[];
}

/** Changes to the rollback journal of a commit: rows after a slot dropped, then rows added (in slot order), then rows before a slot dropped. */
export interface JournalChange {
  readonly removeAfter?: number;
  readonly append?: readonly JournalRow[];
  readonly removeBefore?: number;
}

/** The chain source's LP supplies of its pools (pool row id → decimal string), set or removed with a commit. */
export interface ChainLpChange {
  readonly set?: readonly (readonly [number, string])[];
  readonly remove?: readonly number[];
}

/** A trade of a pair as `CommitBatch.reaggregate` reads it: its pool's states before and after. */
export interface PairTradeRow {
  readonly seq: number;
  readonly pool: number;
  readonly prevPrice: number;
  readonly price: number;
  readonly prevTvl: number;
  readonly tvl: number;
}

/** A trade's Aggregate columns. */
export interface AggregateColumns {
  readonly aggPrevPrice: number;
  readonly aggPrice: number;
  readonly aggPrevTvl: number;
  readonly aggTvl: number;
}

/**
 * New Aggregate columns for a pair's trades from a time on, given each pool's last state before it
 * (by pool row id; a pool with no trade before is absent) and those trades in time order (ties in
 * ingest order): one answer per trade, in the same order.
 */
export type AggregateReplay = (
  before: ReadonlyMap<number, { readonly price: number; readonly tvl: number }>,
  trades: readonly PairTradeRow[],
) => readonly AggregateColumns[];

/** Everything one logical write changes, applied in one transaction. */
export interface CommitBatch {
  /**
   * A rollback, applied first: every trade with block_time > this is deleted, and the bars of the
   * series those trades touched are folded again from the remaining trades, from the bucket holding
   * the first deleted second on (a bar depends only on the trades of its bucket). Bars then equal a
   * rebuild. Sources whose block times only grow (the chain) undo their last blocks with it.
   */
  readonly removeTradesAfter?: number;
  /**
   * Rows a rollback deletes, after `removeTradesAfter` (none of their trades are left by then): the DEX
   * pools, the pairs with their Aggregate pools, the tokens, and every bar of those series. The chain
   * source deletes what the blocks it undoes created, the newest rows of each table.
   */
  readonly remove?: CreatedRows;
  /**
   * Series whose bars are folded again (after this batch's trades are written) in exactly the buckets
   * holding `times`, at every resolution, from the stored trades: trades older than a series' latest
   * (an out-of-order import) are not folded into `bars` but re-fold the buckets they touch (a bar
   * depends only on the trades of its bucket). Bars fold trades in time order (ties in ingest order).
   */
  readonly refold?: readonly {
    readonly series: number;
    readonly aggregate: boolean;
    readonly times: readonly number[];
  }[];
  /**
   * Pairs whose trades' Aggregate columns are computed again from `from` on, after this batch's trades
   * are written and before `refold`: a trade imported older than its pair's latest changes the pair's
   * state at every later trade of the pair (an Aggregate sums its pools). `agg` is the Aggregate's
   * series and `pools` its pools' (each pool's last state before `from` is one indexed look-up);
   * `replay` computes the columns (market/model.ts `aggregateReplay`). The buckets of the
   * trades whose columns changed are folded again as well (beside `refold`'s).
   */
  readonly reaggregate?: readonly {
    readonly agg: number;
    readonly pools: readonly number[];
    readonly from: number;
    readonly replay: AggregateReplay;
  }[];
  readonly tokens?: readonly TokenRow[];
  readonly tokenUpdates?: readonly Pick<TokenRow, 'id' | 'ticker' | 'name' | 'decimals'>[];
  /**
   * Identity records removed (by unit and source), then set (replacing any of the same unit and source): what the
   * sources said of tokens, written with the token changes they cause.
   */
  readonly identities?: {
    readonly remove?: readonly (readonly [unit: string, source: IdentitySourceName])[];
    readonly set?: readonly IdentityRow[];
  };
  /**
   * Logo changes: the kind, the PNG when the kind is `stored`, and what the PNG was made from (the logo cache's key,
   * `MarketStore.logoKey`; absent: unknown, an imported PNG).
   */
  readonly logos?: readonly {
    readonly id: number;
    readonly kind: number;
    readonly png: Buffer | null;
    readonly key?: string | null;
  }[];
  readonly pairs?: readonly PairRow[];
  readonly pools?: readonly PoolRow[];
  readonly trades?: readonly TradeRecord[];
  /** Bars touched by `trades`, folded in memory, merged into the stored ones by the bar rule (bar-batch.ts's `BarBatch`). */
  readonly bars?: FoldedBars;
  /** Set while a bulk load writes trades alone (bars rebuilt at its end); see `BarStore.stale`. */
  readonly barsStale?: boolean;
  /** New reserves of existing (or new) pools. */
  readonly reserves?: readonly { readonly id: number; readonly base: number; readonly quote: number }[];
  readonly meta?: Readonly<Record<string, string>>;
  readonly simState?: SimState;
  /** The chain source's rollback journal, written with the blocks it describes. */
  readonly journal?: JournalChange;
  /** The chain source's LP supplies of its pools. */
  readonly chainLp?: ChainLpChange;
  /**
   * The chain point a rollback went back to (with `removeTradesAfter`): not stored, but told to the
   * stream's clients that asked for it and, in a cluster, to the API nodes with the commit's message.
   */
  readonly rollbackTo?: RollbackPoint;
}

/** Bars folded in memory, each series' newest per bucket, in the bars table's key order (series, resolution, time). */
export interface FoldedBars {
  entries(): Iterable<{ readonly series: number; readonly resolution: Resolution; readonly bar: Bar }>;
}

/** A chain point a rollback went back to, with its block's time (Unix seconds). */
export interface RollbackPoint {
  readonly slot: number;
  readonly id: string;
  readonly blockTime: number;
}

export interface MarketStore {
  /** The whole market's structure and reserves. */
  load(): Promise<MarketRows>;
  nextIds(): Promise<NextIds>;
  /** A token's stored PNG logo, or null. */
  logo(tokenId: number): Promise<Buffer | null>;
  /** What a token's stored PNG logo was made from (the logo cache's key: SHA-256 of the logo its metadata names), or null. */
  logoKey(tokenId: number): Promise<string | null>;
  meta(key: string): Promise<string | undefined>;
  /** The chain source's rollback journal, oldest block first. */
  journal(): Promise<JournalRow[]>;
  /** The chain source's LP supplies of its pools, by pool row id. */
  chainLp(): Promise<Map<number, bigint>>;
}

export interface TradeStore {
  hasEvent(eventId: string): Promise<boolean>;
  /** Time of the latest trade of a pool (`aggregate`: of an Aggregate's series), undefined without trades. */
  lastTradeTime(series: number, aggregate: boolean): Promise<number | undefined>;
  /**
   * Price and TVL of a series as of time `at` (after every trade with block_time <= at): from the last
   * trade at or before it, else from the state before the first trade after it; undefined without trades.
   */
  stateAt(series: number, aggregate: boolean, at: number): Promise<{ price: number; tvl: number } | undefined>;
  /** Sum of volume (raw base units) of a series' trades with block_time > since. */
  volumeSince(series: number, aggregate: boolean, since: number): Promise<number>;
  /**
   * `stateAt(series, since).price` and `volumeSince(series, since)` of many series at once, in one
   * query (a group's 24 h statistics: thousands of series). Every series asked is in the map; `price`
   * is undefined for a series without trades.
   */
  windowStats(series: readonly number[], aggregate: boolean, since: number): Promise<Map<number, WindowStats>>;
  count(): Promise<number>;
  /**
   * Stored trades in ingest order with their position in it (`seq`, increasing), optionally only one
   * pool's or one Aggregate's, or only those after a position; for checks, tools and tests.
   */
  list(filter?: {
    readonly pool?: number;
    readonly agg?: number;
    readonly afterSeq?: number;
  }): Promise<(TradeRecord & { readonly seq: number })[]>;
  /**
   * A series' trades newest first (by block time, then ingest order), `limit` of them, those before
   * the cursor `before` (the block time and seq of the last one of the previous page) when given.
   */
  recent(
    series: number,
    aggregate: boolean,
    limit: number,
    before?: { readonly time: number; readonly seq: number },
  ): Promise<(TradeRecord & { readonly seq: number })[]>;
  /** The Aggregate series with the most trades, busiest first (benchmarks and tests pick pools by it). */
  busiestAggregates(limit: number): Promise<{ series: number; trades: number }[]>;
}

export interface BarStore {
  /** Bars with from <= t < to, oldest first. */
  range(series: number, resolution: Resolution, from: number, to: number): Promise<BarRow[]>;
  /** First and last bar time of a series at a resolution; undefined without bars. */
  extent(series: number, resolution: Resolution): Promise<{ first: number; last: number } | undefined>;
  /** Start time of the `count`-th bar before `to` (the oldest of the last `count`); undefined without bars. */
  countbackStart(series: number, resolution: Resolution, to: number, count: number): Promise<number | undefined>;
  /**
   * Deletes every bar and folds every stored trade again (one transaction), clearing the stale mark.
   * Returns the number of trades folded.
   */
  rebuild(onProgress?: (done: number, total: number) => void): Promise<number>;
  /** Whether the bars lag the trades (a bulk load cut short): rebuild before reading them. */
  stale(): Promise<boolean>;
  /** Every bar as `[series, resolution seconds, ...BarRow]`, in key order; for checks and tests. */
  all(): Promise<[number, number, ...BarRow][]>;
}

export interface KeyStore {
  /** Stores a key (its hash and clear prefix) and returns the stored row. */
  create(hash: string, prefix: string, plan: string, label: string, now: number): Promise<StoredKey>;
  list(): Promise<StoredKey[]>;
  /** Revokes by id or key prefix; returns how many keys were revoked. */
  revoke(idOrPrefix: string, now: number): Promise<number>;
  /** Active keys. */
  count(): Promise<number>;
  /** The active keys with this clear prefix (candidates to compare hashes with). */
  candidates(prefix: string): Promise<{ hash: string; plan: string }[]>;
}

export interface SimStateStore {
  load(): Promise<SimState | undefined>;
}

/** A data directory's store, opened by one writer. */
export interface Store {
  readonly market: MarketStore;
  readonly trades: TradeStore;
  readonly bars: BarStore;
  readonly keys: KeyStore;
  readonly sim: SimStateStore;
  /** Applies a batch in one transaction: all of it or (on any error, rethrown) none of it. */
  commit(batch: CommitBatch): Promise<void>;
  /** Bulk loading (the first backfill): faster, less durable commits; off again afterwards. */
  setBulkMode(bulk: boolean): Promise<void>;
  /**
   * Resolves when the store answers a trivial query now (and a writer still holds its lock); rejects
   * otherwise. For readiness checks: bounded by the engine's connection and query timeouts.
   */
  ping(): Promise<void>;
  /**
   * Starts a bulk load of a store that holds no trades yet (the first backfill), where the store has a
   * faster way than a `commit` per batch and a `bars.rebuild` at the end; undefined where it has none
   * (the caller then does exactly that).
   */
  bulkLoad?(): Promise<BulkLoad | undefined>;
  close(): Promise<void>;
}

/**
 * The trades of a fresh store written in batches, and every bar built at the end (see
 * `Store.bulkLoad`). A batch may hold trades (in time order per series) on pools the store held when
 * the load started, reserves, meta and the simulator's state; a batch with more (new rows, a
 * rollback, re-folds, bars) is refused. While it runs the bars are marked stale, so a load cut short
 * is rebuilt on the next open.
 */
export interface BulkLoad {
  /**
   * Hands a batch over. It may still be being written when this resolves (the caller goes on making
   * the next one): each batch is written in one transaction, in order, and none is known durable
   * before `finish` resolves. Rejects if an earlier batch failed.
   */
  commit(batch: CommitBatch): Promise<void>;
  /** Waits for every batch, writes every bar and clears the stale mark; resolves with the trades folded. */
  finish(onProgress?: (done: number, total: number) => void): Promise<number>;
  /** Ends the load (after `finish`, or abandoning it: what was written stays, its bars stale). */
  close(): Promise<void>;
}

/** Error codes and messages by which a store says it cannot be reached (PostgreSQL down or restarting). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

/** Whether an error means the store is unreachable for now (answered 503), rather than a bug (500). */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connect ECONNREFUSED/i.test(
    error.message,
  );
}
