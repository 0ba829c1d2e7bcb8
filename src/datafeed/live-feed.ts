import type { LiveMetadata, LiveRollback } from '../shared/api/gateway';
import type { TradeEvent } from '../shared/api/stream';
import type { Bar } from '../shared/bars';
import { RESOLUTION_SECONDS, type Resolution } from '../shared/resolutions';
import { asSeconds, type UnixSeconds } from '../shared/time';
import type { HistoryLoader } from './history-loader';
import { IDLE_STATUS, LiveConnection, type LiveConnectionOptions, type LiveConnectionStatus } from './live-connection';
import { LiveSeries, type BarsReplacement, type SyncMode } from './live-series';

/** One listener of live bars (`onBars`, or `subscribeBars` through the library's shape). */
export interface BarListener {
  /** The current bar after every trade, a new bar at each bucket boundary (wire units: seconds). */
  onBar(bar: Bar): void;
  /**
   * History changed under the bars already given. With a replacement (after a chain rollback): put its
   * bars in place of those from `replacement.from` on; the ones before stand. Without (a resync found a
   * difference): load them all again.
   */
  onReset?(replacement?: BarsReplacement): void;
}

/** One listener of trade events (`UdfDatafeed.onTrades`). */
export interface TradeListener {
  /** Each trade event of a followed pool, as the gateway sent it, in the stream's order. */
  onTrade(event: TradeEvent): void;
  /**
   * The followed pools are live: once after subscribing (fetch what came before now, e.g. stored
   * trades, then rely on `onTrade`), and again with `resync: true` whenever events may have been
   * missed since (fetch again). Not called again after a drop that the gateway replayed without loss.
   */
  onLive?(info: { readonly resync: boolean }): void;
  /**
   * The market rolled back on the chain to `rollback.time` (Unix seconds): every trade after it was
   * undone, of any pool. Whatever was built from trades since then (a tape, running statistics) should
   * be fetched again; events that follow are of the new chain. Called for every listener.
   */
  onRollback?(rollback: LiveRollback): void;
  /**
   * What the market knows of some tokens changed (decimals, names): every answer about them reads anew.
   * A listener without this hears it as a rollback to the start (`EVERYTHING`): whatever it built from
   * trades is fetched again. Called for every listener.
   */
  onMetadata?(metadata: LiveMetadata): void;
}

/** A rollback to before any trade: how a change of token metadata reaches what was built from trades. */
export const EVERYTHING: LiveRollback = { slot: 0, id: '', time: 0 };

interface TradeSubscription {
  readonly pools: ReadonlySet<string>;
  readonly listener: TradeListener;
  /** `onLive` was called since subscribing. */
  wasLive: boolean;
}

interface SeriesEntry {
  readonly key: string;
  readonly series: LiveSeries;
  readonly listeners: Map<string, BarListener>;
  /** Token of the sync in flight (a retry only continues the latest one). */
  syncToken: number;
}

export interface LiveFeedOptions {
  readonly connection: LiveConnectionOptions;
  readonly history: HistoryLoader;
  readonly anchorWaitMs: number;
  /** Delay before retrying a failed sync. */
  readonly syncRetryMs: number;
  /** Problems without a callback of their own. */
  readonly warn: (message: string) => void;
  readonly now: () => number;
}

/**
 * Rollbacks are handled (listeners told, every series loaded again) at most one per this window: the
 * first at once, those after it within the window merged into one naming the deepest point, handled
 * when the window ends. Our gateway already merges per second; this keeps a page's requests bounded
 * behind any gateway (a storm of rollbacks is a handful of reloads, not one per rollback).
 */
export const ROLLBACK_MERGE_MS = 1_000;

/** Snapshots of recent history reach this far past the present (bars cannot start in the future). */
const SNAPSHOT_HORIZON_SECONDS = 7 * 86_400;
/** Bars a snapshot asks for when the chart's newest bar is unknown. */
const SNAPSHOT_COUNTBACK = 2;

/**
 * Everything live, over ONE LiveConnection for all pools: bars (one series per pool and resolution
 * shared by its listeners, synced with /history when the gateway says a subscription is live
 * (`connected`: merge what happened since getBars) or that events were lost (`resync`)), trade events
 * for their listeners, and the connection's status.
 */
export class LiveFeed {
  private readonly series = new Map<string, SeriesEntry>();
  private readonly keyOf = new Map<string, string>();
  private readonly trades = new Set<TradeSubscription>();
  private readonly statusListeners = new Set<(status: LiveConnectionStatus) => void>();
  private readonly metadataListeners = new Set<(metadata: LiveMetadata) => void>();
  private published: LiveConnectionStatus = IDLE_STATUS;
  private readonly connection: LiveConnection;
  /** When the last rollback was handled (Date.now, as the timer's clock), the deepest one held since, and the trades held behind it. */
  private rollbackHandledAt = Number.NEGATIVE_INFINITY;
  private heldRollback: LiveRollback | undefined;
  private heldTrades: TradeEvent[] = [];
  private rollbackTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: LiveFeedOptions) {
    this.connection = new LiveConnection(options.connection, {
      onTrade: (event) => this.onTrade(event),
      onRollback: (rollback) => this.onRollback(rollback),
      onMetadata: (metadata) => this.onMetadata(metadata),
      onStatus: (status) => this.onStatus(status),
      onError: (message) => options.warn(`Live updates: ${message}`),
    });
  }

  /** The live connection's status now. */
  get status(): LiveConnectionStatus {
    return this.connection.status;
  }

  /** Calls `listener` on every change of the status (not with the current one); returns the unsubscribe. */
  onStatusChange(listener: (status: LiveConnectionStatus) => void): () => void {
    const entry = (status: LiveConnectionStatus) => listener(status);
    this.statusListeners.add(entry);
    return () => this.statusListeners.delete(entry);
  }

  /** Calls `listener` on every change of token metadata (after the trade listeners); returns the unsubscribe. */
  onMetadataChange(listener: (metadata: LiveMetadata) => void): () => void {
    const entry = (metadata: LiveMetadata) => listener(metadata);
    this.metadataListeners.add(entry);
    return () => this.metadataListeners.delete(entry);
  }

  /** Follows the trade events of `pools` (Aggregate pool IDs); returns the unsubscribe. */
  followTrades(pools: Iterable<string>, listener: TradeListener): () => void {
    const subscription: TradeSubscription = {
      pools: new Set([...pools].map((p) => p.toLowerCase())),
      listener,
      wasLive: false,
    };
    this.trades.add(subscription);
    this.connection.setPools(this.pools());
    // Already streaming these pools (for a chart, another listener): live now.
    if ([...subscription.pools].every((pool) => this.connection.isLive(pool))) {
      queueMicrotask(() => {
        if (this.trades.has(subscription) && !subscription.wasLive) this.tellLive(subscription, false);
      });
    }
    return () => {
      if (this.trades.delete(subscription)) this.connection.setPools(this.pools());
    };
  }

  subscribe(
    listenerGuid: string,
    poolId: string,
    resolution: Resolution,
    listener: BarListener,
    known: Bar | undefined,
  ): void {
    if (this.keyOf.has(listenerGuid)) this.unsubscribe(listenerGuid);
    const pool = poolId.toLowerCase();
    const key = `${pool}|${resolution}`;
    let entry = this.series.get(key);
    if (!entry) {
      const listeners = new Map<string, BarListener>();
      const series = new LiveSeries(
        pool,
        resolution,
        known,
        {
          emit: (bar) => this.emit(listeners, bar),
          reset: (replacement) => {
            for (const l of [...listeners.values()]) this.safely(() => l.onReset?.(replacement));
          },
        },
        { anchorWaitMs: this.options.anchorWaitMs },
      );
      entry = { key, series, listeners, syncToken: 0 };
      this.series.set(key, entry);
      entry.listeners.set(listenerGuid, listener);
      // Already streaming this pool (another resolution or chart): sync now; otherwise on `connected`.
      if (this.connection.isLive(pool)) void this.sync(entry, 'merge');
    } else {
      entry.listeners.set(listenerGuid, listener);
      const bar = entry.series.currentBar;
      if (entry.series.state === 'live' && bar) this.emit(new Map([[listenerGuid, listener]]), bar);
    }
    this.keyOf.set(listenerGuid, key);
    this.connection.setPools(this.pools());
  }

  unsubscribe(listenerGuid: string): void {
    const key = this.keyOf.get(listenerGuid);
    if (key === undefined) return;
    this.keyOf.delete(listenerGuid);
    const entry = this.series.get(key);
    if (!entry) return;
    entry.listeners.delete(listenerGuid);
    if (entry.listeners.size === 0) {
      entry.series.dispose();
      this.series.delete(key);
    }
    this.connection.setPools(this.pools());
  }

  close(): void {
    clearTimeout(this.rollbackTimer);
    this.rollbackTimer = undefined;
    this.heldRollback = undefined;
    this.heldTrades = [];
    for (const entry of this.series.values()) entry.series.dispose();
    this.series.clear();
    this.keyOf.clear();
    this.trades.clear();
    this.connection.close();
    this.statusListeners.clear();
  }

  private pools(): Set<string> {
    const pools = new Set([...this.series.values()].map((e) => e.series.poolId));
    for (const subscription of this.trades) for (const pool of subscription.pools) pools.add(pool);
    return pools;
  }

  private onTrade(event: TradeEvent): void {
    // Behind a held rollback: the trades of the new chain come after it, as the gateway sent them.
    if (this.heldRollback !== undefined) {
      this.heldTrades.push(event);
      return;
    }
    const pool = event.pool_id.toLowerCase();
    for (const entry of this.series.values()) if (entry.series.poolId === pool) entry.series.onEvent(event);
    for (const subscription of [...this.trades]) {
      if (subscription.pools.has(pool) && this.trades.has(subscription))
        this.safely(() => subscription.listener.onTrade(event));
    }
  }

  /**
   * A rollback from the gateway: handled at once when none was in the last window (ROLLBACK_MERGE_MS),
   * else held, merged with any other in the window into the deepest one, and handled when the window
   * ends; trades that come meanwhile are held behind it and delivered after it, in order.
   */
  private onRollback(rollback: LiveRollback): void {
    const held = this.heldRollback;
    this.heldRollback = held === undefined || rollback.slot < held.slot ? rollback : held;
    if (this.rollbackTimer !== undefined) return;
    const wait = this.rollbackHandledAt + ROLLBACK_MERGE_MS - Date.now();
    if (wait <= 0) {
      this.handleRollback();
      return;
    }
    this.rollbackTimer = setTimeout(() => {
      this.rollbackTimer = undefined;
      this.handleRollback();
    }, wait);
  }

  /**
   * The held rollback: trade listeners hear it first (what they keep from trades after the point goes
   * stale before any bar is loaded again), then every series loads its bars from the rollback's bucket
   * on (now, or when its pool goes live) and hands them to its listeners in place of theirs; then the
   * trades held behind it.
   */
  private handleRollback(): void {
    const rollback = this.heldRollback;
    if (rollback === undefined) return;
    this.heldRollback = undefined;
    this.rollbackHandledAt = Date.now();
    for (const subscription of [...this.trades]) {
      if (this.trades.has(subscription)) this.safely(() => subscription.listener.onRollback?.(rollback));
    }
    for (const entry of [...this.series.values()]) {
      entry.series.noteRollback(asSeconds(rollback.time));
      if (entry.series.state !== 'waiting') void this.sync(entry, entry.series.hasBeenLive ? 'resync' : 'merge');
    }
    const trades = this.heldTrades;
    this.heldTrades = [];
    for (const event of trades) this.onTrade(event);
  }

  /**
   * Token metadata changed: trade listeners hear it (as a rollback to the start when they have no handler
   * of their own), then every series loads its bars again, whole (their prices and volumes are in whole units
   * of the decimals known now).
   */
  private onMetadata(metadata: LiveMetadata): void {
    for (const subscription of [...this.trades]) {
      if (!this.trades.has(subscription)) continue;
      const { listener } = subscription;
      this.safely(() => (listener.onMetadata ? listener.onMetadata(metadata) : listener.onRollback?.(EVERYTHING)));
    }
    for (const listener of [...this.metadataListeners]) this.safely(() => listener(metadata));
    for (const entry of [...this.series.values()]) {
      entry.series.noteRollback(asSeconds(EVERYTHING.time));
      if (entry.series.state !== 'waiting') void this.sync(entry, entry.series.hasBeenLive ? 'resync' : 'merge');
    }
  }

  private onStatus(status: LiveConnectionStatus): void {
    if (status.state === 'live') {
      for (const entry of [...this.series.values()]) {
        const { series } = entry;
        if (!this.connection.isLive(series.poolId)) continue;
        if (status.resync) void this.sync(entry, series.hasBeenLive ? 'resync' : 'merge');
        else if (series.state === 'waiting') void this.sync(entry, 'merge');
      }
      for (const subscription of [...this.trades]) {
        if (![...subscription.pools].every((pool) => this.connection.isLive(pool))) continue;
        if (!subscription.wasLive) this.tellLive(subscription, false);
        else if (status.resync) this.tellLive(subscription, true);
      }
    }
    // The connection reports every status it sets (each `connected` may need a sync); listeners hear changes, and every resync.
    const last = this.published;
    this.published = status;
    const same =
      last.state === status.state &&
      last.detail === status.detail &&
      last.pools.join() === status.pools.join() &&
      !status.resync;
    if (!same) for (const listener of [...this.statusListeners]) this.safely(() => listener(status));
  }

  private tellLive(subscription: TradeSubscription, resync: boolean): void {
    subscription.wasLive = true;
    this.safely(() => subscription.listener.onLive?.({ resync }));
  }

  private async sync(entry: SeriesEntry, mode: SyncMode): Promise<void> {
    const { series } = entry;
    const token = series.beginSync();
    entry.syncToken = token;
    const from = series.syncFrom;
    const to = this.horizon(from);
    const outcome =
      from === undefined
        ? await this.options.history.last(series.poolId, series.resolution, to, SNAPSHOT_COUNTBACK)
        : await this.options.history.range(series.poolId, series.resolution, from, to);
    if (this.series.get(entry.key) !== entry || entry.syncToken !== token) return;
    if (!outcome.ok) {
      this.options.warn(
        `Live updates: could not load recent ${series.resolution} bars of ${series.poolId}: ${outcome.error}`,
      );
      setTimeout(() => {
        if (this.series.get(entry.key) === entry && entry.syncToken === token) void this.sync(entry, mode);
      }, this.options.syncRetryMs);
      return;
    }
    series.completeSync(token, outcome.value, mode);
  }

  private horizon(from: UnixSeconds | undefined): UnixSeconds {
    const now = Math.floor(this.options.now() / 1000);
    return asSeconds(Math.max(now, from ?? 0) + SNAPSHOT_HORIZON_SECONDS + RESOLUTION_SECONDS['1d']);
  }

  private emit(listeners: ReadonlyMap<string, BarListener>, bar: Bar): void {
    for (const listener of [...listeners.values()]) this.safely(() => listener.onBar(bar));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.warn(`A live listener threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
