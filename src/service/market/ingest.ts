import type { Db } from '../store/database';
import type { MarketStore } from '../store/market-store';
import { BarBatch, VOLUME_SCALE, type TradeRecord, type TradeStore } from '../store/trade-store';
import { poolPrice, poolTvl, sumAggregate, type Pool } from './model';

export type CommitListener = (records: readonly TradeRecord[]) => void;

export interface SwapOptions {
  /**
   * The caller vouches that the event id was never ingested, so the store is not asked: the
   * simulator's ids (`sim:<height>:<i>`, a prefix importers refuse) never repeat.
   */
  readonly newId?: boolean;
}

/**
 * The single write path for trades, used by the simulator and the importers. Swaps change reserves in
 * memory and are buffered; `commit` writes trades, bars and reserves in one transaction, so a crash
 * leaves bars consistent with trades, and only then tells listeners (the stream hub, caches): no
 * client ever sees an event that is not durable.
 */
export class Ingestor {
  private pending: TradeRecord[] = [];
  private readonly bars = new BarBatch();
  /** Reserves of every pool touched since the last commit, as they were before: restored on failure. */
  private readonly before = new Map<Pool, [number, number]>();
  private readonly listeners = new Set<CommitListener>();
  private readonly pendingIds = new Set<string>();
  /** While set, commits write trades alone and mark the bars stale (see `withDeferredBars`). */
  private deferBars = false;

  constructor(
    private readonly db: Db,
    private readonly trades: TradeStore,
    private readonly pools: MarketStore,
  ) {}

  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether an event id was already ingested (stored, or pending in this batch). */
  has(eventId: string): boolean {
    return this.pendingIds.has(eventId) || this.trades.hasEvent(eventId);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Records a swap: the pool's reserves become (base, quote) raw units at `blockTime`, with `volume`
   * in whole base units. Returns the trade record (stored at the next commit), or undefined when the
   * event id was already ingested (stored or pending): ingest is idempotent, a replay changes nothing.
   */
  swap(pool: Pool, base: number, quote: number, blockTime: number, volume: number, eventId: string, options: SwapOptions = {}): TradeRecord | undefined {
    if (!options.newId && this.has(eventId)) return undefined;
    const aggregate = pool.pair.aggregate;
    this.remember(pool);
    this.remember(aggregate);
    const prevPrice = poolPrice(pool);
    const prevTvl = poolTvl(pool);
    const aggPrevPrice = poolPrice(aggregate);
    const aggPrevTvl = poolTvl(aggregate);
    pool.baseReserve = base;
    pool.quoteReserve = quote;
    sumAggregate(pool.pair);
    const record: TradeRecord = {
      eventId,
      pool: pool.id,
      agg: aggregate.id,
      blockTime,
      prevPrice,
      price: poolPrice(pool),
      prevTvl,
      tvl: poolTvl(pool),
      volume: Math.round(volume * VOLUME_SCALE),
      aggPrevPrice,
      aggPrice: poolPrice(aggregate),
      aggPrevTvl,
      aggTvl: poolTvl(aggregate),
    };
    this.pending.push(record);
    this.pendingIds.add(eventId);
    if (!this.deferBars) this.bars.add(record);
    return record;
  }

  private remember(pool: Pool): void {
    if (!this.before.has(pool)) this.before.set(pool, [pool.baseReserve, pool.quoteReserve]);
  }

  /**
   * Writes everything pending (plus `alsoWrite`, e.g. the simulator's state) in one transaction.
   * On failure, reserves are restored to their last committed values and the error is rethrown.
   */
  commit(alsoWrite?: () => void): readonly TradeRecord[] {
    const records = this.pending;
    try {
      this.db.transaction(() => {
        this.trades.write(records, this.bars);
        if (this.deferBars && records.length > 0) this.trades.setBarsStale(true);
        for (const pool of this.before.keys()) this.pools.saveReserves(pool);
        alsoWrite?.();
      })();
    } catch (error) {
      for (const [pool, [base, quote]] of this.before) {
        pool.baseReserve = base;
        pool.quoteReserve = quote;
      }
      this.reset();
      throw error;
    }
    this.reset();
    if (records.length > 0) for (const listener of this.listeners) listener(records);
    return records;
  }

  /**
   * Runs a bulk load (the first backfill): its commits write trades alone and mark the bars stale,
   * then every bar is rebuilt in one pass written in key order — several times faster than folding
   * each commit into bars spread over the whole table. A crash in between leaves the stale mark, and
   * `openMarket` rebuilds the bars before anything else reads them. Returns what `run` returns.
   */
  withDeferredBars<T>(run: () => T, onRebuild?: (done: number, total: number) => void): T {
    if (this.pending.length > 0) throw new Error('commit pending swaps before a bulk load');
    this.deferBars = true;
    let result: T;
    try {
      result = run();
      if (this.pending.length > 0) this.commit();
    } finally {
      this.deferBars = false;
    }
    if (this.trades.barsStale) this.trades.rebuildBars(onRebuild);
    return result;
  }

  /** Drops pending swaps and restores reserves (used when a batch is abandoned). */
  rollback(): void {
    for (const [pool, [base, quote]] of this.before) {
      pool.baseReserve = base;
      pool.quoteReserve = quote;
    }
    this.reset();
  }

  private reset(): void {
    this.pending = [];
    this.pendingIds.clear();
    this.bars.clear();
    this.before.clear();
  }
}
