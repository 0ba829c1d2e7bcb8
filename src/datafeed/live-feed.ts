import type { LiveStatus } from '../shared/api/gateway';
import type { TradeEvent } from '../shared/api/stream';
import type { Bar } from '../shared/bars';
import { RESOLUTION_SECONDS, type Resolution } from '../shared/resolutions';
import { asSeconds, type UnixSeconds } from '../shared/time';
import type { HistoryLoader } from './history-loader';
import { toLibraryBar } from './library-format';
import { LiveConnection, type LiveConnectionOptions } from './live-connection';
import { LiveSeries, type SyncMode } from './live-series';
import type { TvlBar } from './tradingview-types';

/** One subscribeBars listener. */
export interface BarListener {
  readonly onTick: (bar: TvlBar) => void;
  readonly onReset: () => void;
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

/** Snapshots of recent history reach this far past the present (bars cannot start in the future). */
const SNAPSHOT_HORIZON_SECONDS = 7 * 86_400;
/** Bars a snapshot asks for when the chart's newest bar is unknown. */
const SNAPSHOT_COUNTBACK = 2;

/**
 * Live bars for subscribeBars: one series per (pool, resolution) shared by its listeners, fed by one
 * LiveConnection for all pools, and synced with /history when the gateway says a subscription is live
 * (`connected`: merge what happened since getBars) or that events were lost (`resync`).
 */
export class LiveFeed {
  private readonly series = new Map<string, SeriesEntry>();
  private readonly keyOf = new Map<string, string>();
  private readonly connection: LiveConnection;

  constructor(private readonly options: LiveFeedOptions) {
    this.connection = new LiveConnection(options.connection, {
      onTrade: (event) => this.onTrade(event),
      onStatus: (status) => this.onStatus(status),
      onError: (message) => options.warn(`Live updates: ${message}`),
    });
  }

  /** Number of series (pool x resolution) followed. */
  get seriesCount(): number {
    return this.series.size;
  }

  subscribe(listenerGuid: string, poolId: string, resolution: Resolution, listener: BarListener, known: Bar | undefined): void {
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
          emit: (bar) => this.emit(listeners, toLibraryBar(bar)),
          reset: () => {
            for (const l of [...listeners.values()]) this.safely(() => l.onReset());
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
      if (entry.series.state === 'live' && bar) this.emit(new Map([[listenerGuid, listener]]), toLibraryBar(bar));
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
    for (const entry of this.series.values()) entry.series.dispose();
    this.series.clear();
    this.keyOf.clear();
    this.connection.close();
  }

  private pools(): Set<string> {
    return new Set([...this.series.values()].map((e) => e.series.poolId));
  }

  private onTrade(event: TradeEvent): void {
    const pool = event.pool_id.toLowerCase();
    for (const entry of this.series.values()) if (entry.series.poolId === pool) entry.series.onEvent(event);
  }

  private onStatus(status: LiveStatus): void {
    if (status.state !== 'connected') return;
    for (const entry of [...this.series.values()]) {
      const { series } = entry;
      if (!this.connection.isLive(series.poolId)) continue;
      if (status.resync) void this.sync(entry, series.hasBeenLive ? 'resync' : 'merge');
      else if (series.state === 'waiting') void this.sync(entry, 'merge');
    }
  }

  private async sync(entry: SeriesEntry, mode: SyncMode): Promise<void> {
    const { series } = entry;
    const token = series.beginSync();
    entry.syncToken = token;
    const from = series.currentBar?.time;
    const to = this.horizon(from);
    const outcome =
      from === undefined
        ? await this.options.history.last(series.poolId, series.resolution, to, SNAPSHOT_COUNTBACK)
        : await this.options.history.range(series.poolId, series.resolution, from, to);
    if (this.series.get(entry.key) !== entry || entry.syncToken !== token) return;
    if (!outcome.ok) {
      this.options.warn(`Live updates: could not load recent ${series.resolution} bars of ${series.poolId}: ${outcome.error}`);
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

  private emit(listeners: ReadonlyMap<string, BarListener>, bar: TvlBar): void {
    for (const listener of [...listeners.values()]) this.safely(() => listener.onTick(bar));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.warn(`A chart callback threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
