import { AGGREGATE_GROUP, type GroupName } from '../../shared/groups';
import { BarBatch } from '../store/bar-batch';
import type {
  BulkLoad,
  ChainLpChange,
  CommitBatch,
  CreatedRows,
  IdentityRow,
  IdentitySourceName,
  JournalChange,
  NextIds,
  PoolRow,
  RollbackPoint,
  SimState,
  Store,
  TokenRow,
  TradeRecord,
} from '../store/ports';
import { aggregatePoolId } from './generate';
import {
  aggregateReplay,
  pairKey,
  poolRawPrice,
  poolRawTvl,
  sumAggregate,
  type LogoKind,
  type Market,
  type Pair,
  type Pool,
  type Token,
} from './model';

export type CommitListener = (records: readonly TradeRecord[]) => void;

export interface SwapOptions {
  /**
   * The caller vouches that the event id was never ingested, so it is not checked against the pending
   * batch, nor kept in its set of ids (`has` looks through the pending trades instead): the
   * simulator's ids (`sim:<height>:<i>`, a prefix importers refuse) never repeat.
   */
  readonly newId?: boolean;
  /**
   * The trade is older than its series' latest (an out-of-order import): it is not folded into the
   * pending bars; the buckets holding its time are folded again from the stored trades at commit.
   */
  readonly backdated?: boolean;
  /**
   * The trade's Aggregate columns are computed from the stored trades at commit, in time order, from
   * each pool's state as its trades give it (market/model.ts `aggregateReplay`), and the Aggregate's
   * bars folded again from them: the importers' rule for a pair of several pools, so that the columns
   * and bars of a file do not depend on the order its trades are imported in (to the bit).
   */
  readonly aggregateFromStore?: boolean;
}

export interface NewToken {
  readonly unit: string;
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
  readonly logoKind: LogoKind;
}

export interface NewPool {
  readonly poolId: string;
  readonly group: Exclude<GroupName, typeof AGGREGATE_GROUP>;
  readonly baseReserve: number;
  readonly quoteReserve: number;
  readonly feeBps: number;
  readonly simulated: boolean;
}

/** Told of each commit: its store transaction's seconds, the trades it wrote, whether it succeeded. */
export type CommitObserver = (seconds: number, trades: number, ok: boolean) => void;

/** What a committed rollback changed, for caches of bars to forget exactly that. */
export interface RolledBack {
  /** Every trade after this time (Unix seconds) was removed. */
  readonly after: number;
  /** The series (pool row ids) whose trades, reserves or bars it may have changed: the pools it put back and their Aggregates. */
  readonly series: ReadonlySet<number>;
  /** Pool row ids from this one on were deleted and will be handed out again (undefined: none). */
  readonly freedFrom?: number;
}

/** What a commit writes besides the pending changes (in the same transaction). */
export interface CommitExtras {
  readonly simState?: SimState;
  /** A rollback written first in the same transaction (see `CommitBatch.removeTradesAfter`). */
  readonly removeTradesAfter?: number;
  readonly meta?: Readonly<Record<string, string>>;
  /** The chain source's rollback journal (see `CommitBatch.journal`). */
  readonly journal?: JournalChange;
  /** The chain source's LP supplies (see `CommitBatch.chainLp`). */
  readonly chainLp?: ChainLpChange;
  /** The chain point a rollback went back to (see `CommitBatch.rollbackTo`). */
  readonly rollbackTo?: RollbackPoint;
}

/**
 * The single write path, used by every source: the simulator, the importers and the chain. Changes
 * are made in memory at once and collected in a pending batch — new tokens, pairs and pools (ids handed
 * out here, the one writer), token metadata and logos, swaps with their bars and reserves — and
 * `commit` writes the batch in one store transaction. Only after it succeeded are listeners told (the
 * stream hub, caches): no client ever sees an event that is not durable. When it fails, memory is put
 * back as it was at the last commit and the error is rethrown. Commits run one at a time.
 */
export class Ingestor {
  private pending: TradeRecord[] = [];
  private bars = new BarBatch();
  /** Series to fold again in the buckets of some times (backdated trades), by series: [aggregate, times]. */
  private refold = new Map<number, [boolean, Set<number>]>();
  /** Pairs of several pools whose Aggregate columns are computed again from a time on (backdated trades). */
  private reaggregate = new Map<Pair, number>();
  /** Reserves of every pool touched since the last commit, as they were before: restored on failure. */
  private readonly before = new Map<Pool, [number, number]>();
  private readonly listeners = new Set<CommitListener>();
  private readonly rollbackListeners = new Set<(rolledBack: RolledBack) => void>();
  private readonly batchListeners = new Set<(batch: CommitBatch) => void>();
  private readonly pendingIds = new Set<string>();
  /** Pending trades of `newId` swaps, whose ids are not in `pendingIds`. */
  private unlisted = 0;
  private tokens: TokenRow[] = [];
  private tokenUpdates: { token: Token; before: Pick<Token, 'ticker' | 'name' | 'decimals'> }[] = [];
  private logos: { token: Token; kind: LogoKind; png: Buffer | null; key: string | null; before: LogoKind }[] = [];
  /** Identity records set (a record) or removed (null) since the last commit, by source and unit, with the one before. */
  private identities = new Map<
    string,
    { unit: string; source: IdentitySourceName; record: IdentityRow | null; before: IdentityRow | undefined }
  >();
  private newTokens: Token[] = [];
  private newPairs: Pair[] = [];
  private newPools: Pool[] = [];
  /** Rows deleted by `removeCreated`, with what puts them back if the commit fails. */
  private removed: { rows: CreatedRows; freedFrom: number; undo: () => void } | undefined;
  private meta: Record<string, string> = {};
  /** While set, commits write trades alone and mark the bars stale (see `withDeferredBars`). */
  private deferBars = false;
  /** The store's bulk load while `withDeferredBars` runs one: commits go to it. */
  private bulk: BulkLoad | undefined;
  /** The commit in flight: the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Why the last commit failed (cleared by the next that succeeds). */
  private failure: { readonly message: string; readonly at: number } | undefined;

  /** The last commit's failure while writes keep failing (health reports it), else undefined. */
  get lastCommitError(): { readonly message: string; readonly at: number } | undefined {
    return this.failure;
  }

  private constructor(
    private readonly store: Store,
    readonly market: Market,
    private readonly ids: NextIds,
  ) {}

  static async open(store: Store, market: Market): Promise<Ingestor> {
    return new Ingestor(store, market, await store.market.nextIds());
  }

  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called after every successful commit with what it wrote (the cluster's commit bus publishes it). */
  onBatch(listener: (batch: CommitBatch) => void): () => void {
    this.batchListeners.add(listener);
    return () => this.batchListeners.delete(listener);
  }

  /**
   * Adds meta entries to every batch as it is taken, written in that batch's transaction (a cluster's
   * writer numbers its commits so readers know which ones a snapshot of the store includes).
   */
  stampBatches(stamp: () => Readonly<Record<string, string>>): void {
    this.stamp = stamp;
  }

  private stamp: (() => Readonly<Record<string, string>>) | undefined;

  /** Told how long each commit took, how many trades it wrote and whether it succeeded (metrics). */
  observeCommits(observer: CommitObserver): void {
    this.observer = observer;
  }

  private observer: CommitObserver | undefined;

  /** Called after a commit that rolled trades back: caches of bars forget what it touched. */
  onRollback(listener: (rolledBack: RolledBack) => void): () => void {
    this.rollbackListeners.add(listener);
    return () => this.rollbackListeners.delete(listener);
  }

  /**
   * Sets a pool's reserves without a trade event (a deposit or withdrawal that keeps the price, or a
   * rollback putting a pool back): written with the next commit, its Aggregate's sums follow.
   */
  setReserves(pool: Pool, base: number, quote: number): void {
    this.remember(pool);
    this.remember(pool.pair.aggregate);
    pool.baseReserve = base;
    pool.quoteReserve = quote;
    sumAggregate(pool.pair);
    this.market.prices++;
  }

  /** Whether an event id was already ingested (stored, or pending in this batch). */
  async has(eventId: string): Promise<boolean> {
    if (this.pendingIds.has(eventId) || (this.unlisted > 0 && this.pending.some((r) => r.eventId === eventId)))
      return true;
    return this.store.trades.hasEvent(eventId);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Whether anything at all waits for the next commit. */
  get dirty(): boolean {
    return (
      this.pending.length > 0 ||
      this.before.size > 0 ||
      this.newTokens.length > 0 ||
      this.newPairs.length > 0 ||
      this.newPools.length > 0 ||
      this.tokenUpdates.length > 0 ||
      this.logos.length > 0 ||
      this.identities.size > 0 ||
      this.removed !== undefined ||
      Object.keys(this.meta).length > 0
    );
  }

  /**
   * Deletes what a rollback undoes: tokens, pairs (with their Aggregate pools) and DEX pools that the
   * undone writes created — the newest rows of each table, none of them with a trade left — from
   * memory at once and from the store with the next commit, and hands their row ids out again, so the
   * market is exactly what it would be had they never been made. Only with nothing else pending (the
   * caller commits first); a failed commit puts them back.
   */
  removeCreated(rows: CreatedRows): void {
    if (this.dirty) throw new Error('removeCreated: commit pending changes first');
    const pools = rows.pools.map((id) => this.market.poolsById.get(id)).filter((p): p is Pool => p !== undefined);
    const pairIds = new Set(rows.pairs);
    const pairs = [...this.market.pairs.values()].filter((p) => pairIds.has(p.id)).sort((a, b) => a.id - b.id);
    const tokens = rows.tokens.map((id) => this.market.tokensById.get(id)).filter((t): t is Token => t !== undefined);
    const ids = { ...this.ids };
    for (const pool of pools) {
      // A pair's other pools keep their reserves; its Aggregate's sums follow (written with the commit).
      if (!pairIds.has(pool.pair.id)) this.remember(pool.pair.aggregate);
      this.market.removePool(pool);
    }
    for (const pair of pairs) this.market.removePair(pair);
    for (const token of tokens) this.market.removeToken(token);
    const lowest = (list: readonly number[], next: number) => (list.length > 0 ? Math.min(...list) : next);
    this.ids.token = lowest(rows.tokens, this.ids.token);
    this.ids.pair = lowest(rows.pairs, this.ids.pair);
    this.ids.pool = lowest([...rows.pools, ...pairs.map((p) => p.aggregate.id)], this.ids.pool);
    this.removed = {
      rows,
      freedFrom: this.ids.pool,
      undo: () => {
        for (const token of tokens) this.market.addToken(token);
        for (const pair of pairs) this.market.addPair(pair);
        for (const pool of [...pools].sort((a, b) => a.id - b.id)) this.market.addPool(pool);
        for (const pair of new Set(pools.map((p) => p.pair))) sumAggregate(pair);
        Object.assign(this.ids, ids);
      },
    };
  }

  /** Adds a token (committed with the next commit). */
  addToken(token: NewToken): Token {
    const created: Token = { id: this.ids.token++, ...token };
    this.market.addToken(created);
    this.newTokens.push(created);
    this.tokens.push({
      id: created.id,
      unit: created.unit,
      ticker: created.ticker,
      name: created.name,
      decimals: created.decimals,
      logoKind: created.logoKind,
    });
    return created;
  }

  updateToken(token: Token, changes: Pick<Token, 'ticker' | 'name' | 'decimals'>): void {
    this.tokenUpdates.push({ token, before: { ticker: token.ticker, name: token.name, decimals: token.decimals } });
    token.ticker = changes.ticker;
    token.name = changes.name;
    token.decimals = changes.decimals;
    this.market.touch();
  }

  /** Sets a token's logo; `key` says what a stored PNG was made from (the logo cache's key), null when unknown. */
  setLogo(token: Token, kind: LogoKind, png: Buffer | null, key: string | null = null): void {
    this.logos.push({ token, kind, png, key, before: token.logoKind });
    token.logoKind = kind;
  }

  /**
   * Sets what a source says of a token (replacing what it said before), or removes it (`source` given, no record):
   * in the market at once, in the store with the next commit. The token's own row (name, ticker, decimals) is the
   * caller's to update (`updateToken`), in the same commit.
   */
  setIdentity(record: IdentityRow): void;
  setIdentity(unit: string, source: IdentitySourceName): void;
  setIdentity(recordOrUnit: IdentityRow | string, removedSource?: IdentitySourceName): void {
    const [unit, source, record] =
      typeof recordOrUnit === 'string'
        ? [recordOrUnit, removedSource as IdentitySourceName, null]
        : [recordOrUnit.unit, recordOrUnit.source, recordOrUnit];
    const key = `${source}|${unit}`;
    const before = this.identities.has(key)
      ? this.identities.get(key)?.before
      : this.market.identities.get(unit)?.get(source);
    this.identities.set(key, { unit, source, record, before });
    this.market.setIdentity(unit, source, record ?? undefined);
  }

  setMeta(key: string, value: string): void {
    this.meta[key] = value;
  }

  /** The pair of two tokens, created with its Aggregate pool when new. */
  ensurePair(base: Token, quote: Token): Pair {
    const existing = this.market.pairs.get(pairKey(base.unit, quote.unit));
    if (existing) return existing;
    const pair: Pair = { id: this.ids.pair++, base, quote, pools: [], aggregate: undefined as unknown as Pool };
    pair.aggregate = {
      id: this.ids.pool++,
      poolId: aggregatePoolId(base.unit, quote.unit),
      group: AGGREGATE_GROUP,
      pair,
      n: 1,
      feeBps: 0,
      baseReserve: 0,
      quoteReserve: 0,
      simulated: false,
    };
    this.market.addPair(pair);
    this.newPairs.push(pair);
    return pair;
  }

  /** Adds a DEX pool to a pair; its n is the next free number of the pair in that group. */
  addPool(pair: Pair, pool: NewPool): Pool {
    this.remember(pair.aggregate);
    const created: Pool = {
      id: this.ids.pool++,
      poolId: pool.poolId,
      group: pool.group,
      pair,
      n: pair.pools.filter((p) => p.group === pool.group).length + 1,
      feeBps: pool.feeBps,
      baseReserve: pool.baseReserve,
      quoteReserve: pool.quoteReserve,
      simulated: pool.simulated,
    };
    this.market.addPool(created);
    sumAggregate(pair);
    this.newPools.push(created);
    return created;
  }

  /**
   * Records a swap: the pool's reserves become (base, quote) raw units at `blockTime`, with `volume`
   * in raw base units (rounded to a whole raw unit). Returns the trade record (stored at the next commit), or undefined when the
   * event id is already pending. Whether it was stored before is the caller's to ask (`has`).
   */
  swap(
    pool: Pool,
    base: number,
    quote: number,
    blockTime: number,
    volume: number,
    eventId: string,
    options: SwapOptions = {},
  ): TradeRecord | undefined {
    if (!options.newId && this.pendingIds.has(eventId)) return undefined;
    const aggregate = pool.pair.aggregate;
    this.remember(pool);
    this.remember(aggregate);
    // Raw units (market/units.ts): the decimals are applied where values leave the service.
    const prevPrice = poolRawPrice(pool);
    const prevTvl = poolRawTvl(pool);
    const aggPrevPrice = poolRawPrice(aggregate);
    const aggPrevTvl = poolRawTvl(aggregate);
    pool.baseReserve = base;
    pool.quoteReserve = quote;
    sumAggregate(pool.pair);
    this.market.prices++;
    const record: TradeRecord = {
      eventId,
      pool: pool.id,
      agg: aggregate.id,
      blockTime,
      prevPrice,
      price: poolRawPrice(pool),
      prevTvl,
      tvl: poolRawTvl(pool),
      volume: Math.round(volume),
      aggPrevPrice,
      aggPrice: poolRawPrice(aggregate),
      aggPrevTvl,
      aggTvl: poolRawTvl(aggregate),
    };
    this.pending.push(record);
    // A set of every id costs a hash of a fresh string per trade: a simulator's (new) ids are not kept.
    if (options.newId) this.unlisted++;
    else this.pendingIds.add(eventId);
    const fromStore = options.aggregateFromStore === true && pool.pair.pools.length > 1;
    if (options.backdated) {
      this.refoldAt(pool.id, false, blockTime);
      this.refoldAt(aggregate.id, true, blockTime);
    } else if (!this.deferBars) {
      if (fromStore) this.bars.addPool(record);
      else this.bars.add(record);
    }
    if (fromStore) {
      // The pair's other pools may be at later states than this trade's time (an older trade imported
      // late) and the trade changes the pair at every later trade: computed again in the store.
      this.reaggregate.set(pool.pair, Math.min(this.reaggregate.get(pool.pair) ?? blockTime, blockTime));
      this.refoldAt(aggregate.id, true, blockTime);
    }
    return record;
  }

  /** Marks a series' bucket holding `blockTime` to be folded again at commit. */
  private refoldAt(series: number, aggregateSeries: boolean, blockTime: number): void {
    const known = this.refold.get(series);
    if (known) known[1].add(blockTime);
    else this.refold.set(series, [aggregateSeries, new Set([blockTime])]);
  }

  /**
   * `swap`, unless the event id was ingested before (stored or pending): the idempotent entry point
   * for sources that may replay events (importers, a chain source resuming). Resolves with the record,
   * or undefined for a replay, which changes nothing.
   */
  async swapOnce(
    pool: Pool,
    base: number,
    quote: number,
    blockTime: number,
    volume: number,
    eventId: string,
  ): Promise<TradeRecord | undefined> {
    if (await this.has(eventId)) return undefined;
    return this.swap(pool, base, quote, blockTime, volume, eventId);
  }

  private remember(pool: Pool): void {
    if (!this.before.has(pool)) this.before.set(pool, [pool.baseReserve, pool.quoteReserve]);
  }

  /**
   * Writes everything pending (plus `extras`, e.g. the simulator's state) in one transaction, after
   * any commit in flight. On failure, memory goes back to the last committed state and the error is
   * rethrown. Resolves with the trades written.
   */
  commit(extras: CommitExtras = {}): Promise<readonly TradeRecord[]> {
    // The batch is taken now, so changes made while an earlier commit is in flight go to the next one.
    const taken = this.take(extras);
    const target = this.bulk ?? this.store;
    const run = this.tail.then(async () => {
      const started = performance.now();
      const trades = taken.batch.trades?.length ?? 0;
      try {
        await target.commit(taken.batch);
      } catch (error) {
        this.observer?.((performance.now() - started) / 1000, trades, false);
        taken.undo();
        this.failure = { message: error instanceof Error ? error.message : String(error), at: Date.now() };
        throw error;
      }
      this.observer?.((performance.now() - started) / 1000, trades, true);
      this.failure = undefined;
      const records = taken.batch.trades ?? [];
      const after = taken.batch.removeTradesAfter;
      if (after !== undefined) {
        // A trade after the point changed its pool's reserves: every such pool was put back (setReserves), with its Aggregate.
        const rolledBack: RolledBack = {
          after,
          series: new Set((taken.batch.reserves ?? []).map((r) => r.id)),
          ...(taken.freedFrom !== undefined ? { freedFrom: taken.freedFrom } : {}),
        };
        for (const listener of this.rollbackListeners) listener(rolledBack);
      }
      for (const listener of this.batchListeners) listener(taken.batch);
      if (records.length > 0) for (const listener of this.listeners) listener(records);
      return records;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Detaches the pending changes as a batch, with what puts memory back if it fails. */
  private take(extras: CommitExtras): { batch: CommitBatch; undo: () => void; freedFrom: number | undefined } {
    const newPools = this.newPools;
    const newPairs = this.newPairs;
    const pools: PoolRow[] = [...newPairs.map((p) => p.aggregate), ...newPools].map((p) => ({
      id: p.id,
      poolId: p.poolId,
      group: p.group,
      pairId: p.pair.id,
      n: p.n,
      feeBps: p.feeBps,
      baseReserve: p.baseReserve,
      quoteReserve: p.quoteReserve,
      simulated: p.simulated,
    }));
    const created = new Set<Pool>([...newPairs.map((p) => p.aggregate), ...newPools]);
    const batch: CommitBatch = {
      tokens: this.tokens,
      tokenUpdates: this.tokenUpdates.map(({ token }) => ({
        id: token.id,
        ticker: token.ticker,
        name: token.name,
        decimals: token.decimals,
      })),
      logos: this.logos.map(({ token, kind, png, key }) => ({ id: token.id, kind, png, key })),
      ...(this.identities.size > 0
        ? {
            identities: {
              remove: [...this.identities.values()]
                .filter((change) => change.record === null)
                .map(({ unit, source }) => [unit, source] as const),
              set: [...this.identities.values()].flatMap((change) => change.record ?? []),
            },
          }
        : {}),
      pairs: newPairs.map((p) => ({ id: p.id, base: p.base.id, quote: p.quote.id })),
      pools,
      trades: this.pending,
      ...(this.deferBars ? (this.pending.length > 0 ? { barsStale: true } : {}) : { bars: this.bars }),
      // New pools are written with their reserves of now; the others get an update.
      reserves: [...this.before.keys()]
        .filter((p) => !created.has(p))
        .map((p) => ({ id: p.id, base: p.baseReserve, quote: p.quoteReserve })),
      meta: { ...this.meta, ...extras.meta, ...this.stamp?.() },
      ...(extras.removeTradesAfter !== undefined ? { removeTradesAfter: extras.removeTradesAfter } : {}),
      ...(this.reaggregate.size > 0
        ? {
            reaggregate: [...this.reaggregate].map(([pair, from]) => ({
              agg: pair.aggregate.id,
              pools: pair.pools.map((p) => p.id),
              from,
              replay: aggregateReplay(pair),
            })),
          }
        : {}),
      ...(this.refold.size > 0 && !this.deferBars
        ? { refold: [...this.refold].map(([series, [aggregate, times]]) => ({ series, aggregate, times: [...times] })) }
        : {}),
      ...(extras.simState ? { simState: extras.simState } : {}),
      ...(extras.journal ? { journal: extras.journal } : {}),
      ...(extras.chainLp ? { chainLp: extras.chainLp } : {}),
      ...(extras.rollbackTo ? { rollbackTo: extras.rollbackTo } : {}),
      ...(this.removed ? { remove: this.removed.rows } : {}),
    };
    const before = new Map(this.before);
    const newTokens = this.newTokens;
    const tokenUpdates = this.tokenUpdates;
    const logos = this.logos;
    const identities = this.identities;
    const removed = this.removed;
    this.reset();
    const undo = () => {
      removed?.undo();
      for (const [pool, [base, quote]] of before) {
        pool.baseReserve = base;
        pool.quoteReserve = quote;
      }
      this.market.prices++;
      for (const { token, before: was } of tokenUpdates.reverse()) Object.assign(token, was);
      for (const { token, before: was } of logos.reverse()) token.logoKind = was;
      for (const { unit, source, before: was } of identities.values()) this.market.setIdentity(unit, source, was);
      for (const pool of newPools) this.market.removePool(pool);
      for (const pair of newPairs) this.market.removePair(pair);
      for (const token of newTokens) this.market.removeToken(token);
      for (const pair of new Set([...before.keys()].map((p) => p.pair)))
        if (this.market.pairs.has(pairKey(pair.base.unit, pair.quote.unit))) sumAggregate(pair);
      // Ids handed out stay used: a gap in row ids is harmless, a reused id could collide with a later batch.
    };
    return { batch, undo, freedFrom: removed?.freedFrom };
  }

  /**
   * Runs a bulk load (the first backfill): its commits write trades alone and mark the bars stale,
   * then every bar is written in one pass in key order — several times faster than folding each
   * commit into bars spread over the whole table. Where the store has a bulk load of its own
   * (`Store.bulkLoad`: a store without trades yet, and no listener to tell of each commit), the
   * commits go to it: SQLite folds the bars as it writes the trades, on a thread of its own, while
   * `run` makes the next batch; each commit then resolves once its batch is handed over, and the whole
   * load is durable when this resolves. Otherwise the bars are rebuilt from the stored trades at the
   * end. A crash in between leaves the stale mark, and opening the market rebuilds the bars before
   * anything else reads them. Returns what `run` returns; after a failure, memory may be ahead of the
   * store (close the market).
   */
  async withDeferredBars<T>(run: () => Promise<T>, onRebuild?: (done: number, total: number) => void): Promise<T> {
    if (this.pending.length > 0) throw new Error('commit pending swaps before a bulk load');
    const quiet = this.listeners.size === 0 && this.batchListeners.size === 0 && this.rollbackListeners.size === 0;
    const bulk = quiet ? await this.store.bulkLoad?.() : undefined;
    this.deferBars = true;
    this.bulk = bulk;
    let result: T;
    try {
      result = await run();
      if (this.dirty) await this.commit();
      await this.tail;
      await bulk?.finish(onRebuild);
    } finally {
      this.deferBars = false;
      this.bulk = undefined;
      await bulk?.close();
    }
    if (await this.store.bars.stale()) await this.store.bars.rebuild(onRebuild);
    return result;
  }

  /** Drops pending changes and puts memory back (used when a batch is abandoned). */
  rollback(): void {
    this.take({}).undo();
  }

  private reset(): void {
    this.pending = [];
    this.pendingIds.clear();
    this.unlisted = 0;
    this.bars = new BarBatch();
    this.refold = new Map();
    this.reaggregate = new Map();
    this.before.clear();
    this.tokens = [];
    this.tokenUpdates = [];
    this.logos = [];
    this.identities = new Map();
    this.newTokens = [];
    this.newPairs = [];
    this.newPools = [];
    this.removed = undefined;
    this.meta = {};
  }
}
