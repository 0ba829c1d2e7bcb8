import { gatewayInfoSchema, type LiveMetadata } from '../shared/api/gateway';
import { GATEWAY_PREFIX } from '../shared/api/gateway-prefix';
import type { TradeEvent } from '../shared/api/stream';
import type { Bar } from '../shared/bars';
import { AGGREGATE_GROUP, ALL_GROUPS } from '../shared/groups';
import { isPoolId } from '../shared/id-rules';
import { asSeconds, type UnixSeconds } from '../shared/time';
import { GatewayClient, type FetchLike, type Outcome } from './gateway-client';
import { HistoryLoader, type BarsAnswer } from './history-loader';
import { toLibraryBar, toLibrarySymbolInfo, toSearchResultItem } from './library-format';
import { IDLE_STATUS, type EventSourceConstructor, type LiveConnectionStatus } from './live-connection';
import { LiveFeed, type BarListener, type TradeListener } from './live-feed';
import { SUPPORTED_RESOLUTIONS, toWireResolution, unsupportedResolutionMessage } from './resolution-map';
import { SymbolCatalog } from './symbol-catalog';
import { historySymbol } from './urls';
import type { SearchRow, SymbolSearchIndex } from './symbol-search';
import { gatewayTokenNames, type TokenNameSource } from './token-names';
import type {
  DatafeedConfiguration,
  DatafeedErrorCallback,
  HistoryCallback,
  IBasicDataFeed,
  LibrarySymbolInfo,
  OnReadyCallback,
  PeriodParams,
  ResolutionString,
  ResolveCallback,
  SearchSymbolsCallback,
  ServerTimeCallback,
  SubscribeBarsCallback,
} from './tradingview-types';

export interface UdfDatafeedOptions {
  /** The gateway's REST and live base (default `/gw/v1`, same origin). */
  readonly baseUrl?: string;
  /** Default: the global fetch. */
  readonly fetch?: FetchLike;
  /** Default: the global EventSource; without one, subscribeBars delivers no live updates. */
  readonly EventSource?: EventSourceConstructor;
  /** Wait after a change of subscriptions before reconnecting the live stream (default 100 ms). */
  readonly liveDebounceMs?: number;
  /** Backoff of reopening a live connection the browser gave up on: first delay and cap (default 1 s, 30 s; exponential with jitter). */
  readonly liveReopenInitialMs?: number;
  readonly liveReopenMaxMs?: number;
  /** Uniform [0, 1) for the backoff's jitter (default Math.random). */
  readonly random?: () => number;
  /** How long a group's symbols are reused (default 10 minutes). */
  readonly symbolCacheMs?: number;
  /**
   * Token names for search (`World Mobile` finds WMT). Default: the gateway's batch of every token's
   * metadata (GET `<baseUrl>/token-info`); search works without names where the gateway has none.
   */
  readonly tokenNames?: TokenNameSource;
  /** Results of `searchSymbols` (default 50, the library's convention). */
  readonly searchLimit?: number;
  /** How long live events that do not chain to a snapshot are held before being applied (default 1 s). */
  readonly anchorWaitMs?: number;
  /** Delay before retrying a failed live sync (default 2 s). */
  readonly syncRetryMs?: number;
  /** Problems that have no callback of their own (live errors, throwing callbacks). Default: console.warn. */
  readonly onWarning?: (message: string) => void;
  /** Clock in ms (default Date.now). */
  readonly now?: () => number;
}

/** Symbol types the datafeed knows (every pair is spot). */
const SYMBOL_TYPES = [
  { name: 'All types', value: '' },
  { name: 'Spot', value: 'spot' },
];

/**
 * What `onTrades` follows: a resolved symbol, pool IDs / symbol names (resolved through the symbol
 * lists), or pool IDs the caller knows to be Aggregate pools (`{ aggregatePools }`: no lookup, e.g.
 * the rows of an Aggregate list).
 */
export type TradesTarget =
  LibrarySymbolInfo | string | readonly string[] | { readonly aggregatePools: readonly string[] };

/** The range `bars` asks for (Unix seconds, as on the wire). */
export interface BarsRange {
  /** Inclusive start (bar start times). */
  readonly from: number;
  /** Exclusive end. */
  readonly to: number;
  /** Fewest bars wanted while older history exists (0: just the range). */
  readonly countBack: number;
}

/**
 * The datafeed over the gateway: it never holds an API key. Two faces over the same data and the same
 * one live connection:
 *
 * - TradingView's `IBasicDataFeed` (onReady ... subscribeBars), handed to the Charting Library
 *   unchanged: times in the library's units (PeriodParams in seconds, bars in milliseconds), bars with
 *   an extra `tvl` field (the library ignores it). Resolutions `1`, `5`, `15`, `60`, `1D`.
 * - Our own, for the app: `bars` and `onBars` (bars as `src/shared/bars.ts` defines them, times in
 *   seconds like the wire and lightweight-charts), `onTrades` (each trade event as received),
 *   `liveStatus` / `onLiveStatus` (the live connection), search, and `gateway` (the HTTP client).
 *
 * Live data exist for Aggregate symbols only (the stream serves Aggregate pools); a live subscription
 * to another symbol is accepted, never ticks and opens no connection.
 */
export class UdfDatafeed implements IBasicDataFeed {
  /** The gateway's HTTP client (REST under the same base), for callers with requests of their own. */
  readonly gateway: GatewayClient;
  private readonly client: GatewayClient;
  private readonly catalog: SymbolCatalog;
  private readonly history: HistoryLoader;
  private readonly live: LiveFeed | undefined;
  private readonly passive = new Set<string>();
  /**
   * Newest bar returned by getBars per `identity|resolution`, filed under the symbol's ticker (pool ID)
   * AND its name: a chart may draw from a stand-in that has only the name (a deep link, before the
   * symbol resolved) and subscribe with the resolved symbol. What a new subscription's chart has.
   */
  private readonly newest = new Map<string, Bar>();
  private readonly searchLimit: number;
  private readonly warn: (message: string) => void;
  private readonly now: () => number;
  private configuration: Promise<DatafeedConfiguration> | undefined;
  private warnedNoLive = false;
  private listenerSeq = 0;

  constructor(options: UdfDatafeedOptions = {}) {
    const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.client = new GatewayClient(options.baseUrl ?? GATEWAY_PREFIX, fetchImpl);
    this.gateway = this.client;
    this.now = options.now ?? Date.now;
    this.catalog = new SymbolCatalog(this.client, {
      ttlMs: options.symbolCacheMs ?? 10 * 60_000,
      now: this.now,
      tokenNames: options.tokenNames ?? gatewayTokenNames(this.client),
    });
    this.history = new HistoryLoader(this.client);
    this.searchLimit = options.searchLimit ?? 50;
    this.warn = options.onWarning ?? ((message) => console.warn(`datafeed: ${message}`));
    const EventSourceImpl =
      options.EventSource ??
      (typeof globalThis.EventSource === 'function' ? (globalThis.EventSource as EventSourceConstructor) : undefined);
    this.live = EventSourceImpl
      ? new LiveFeed({
          connection: {
            EventSource: EventSourceImpl,
            url: (pools, lastEventId) => this.client.url('/live', { pools: pools.join(','), lastEventId }),
            debounceMs: options.liveDebounceMs ?? 100,
            reopenInitialMs: options.liveReopenInitialMs ?? 1000,
            reopenMaxMs: options.liveReopenMaxMs ?? 30_000,
            ...(options.random ? { random: options.random } : {}),
          },
          history: this.history,
          anchorWaitMs: options.anchorWaitMs ?? 1000,
          syncRetryMs: options.syncRetryMs ?? 2000,
          warn: this.warn,
          now: this.now,
        })
      : undefined;
    // Token metadata changed (before the series reload): the symbol lists are read anew (a ticker may have renamed
    // pairs, decimals changed price scales), and every later request checks the browser's cache with the gateway.
    this.live?.onMetadataChange(() => {
      this.client.revalidate();
      this.catalog.forget();
    });
  }

  /** Calls the configuration callback asynchronously: resolutions, the groups as exchanges, symbol types. */
  onReady(callback: OnReadyCallback): void {
    this.configuration ??= this.catalog.groups().then((outcome) => {
      if (!outcome.ok) this.warn(`Could not load the groups (${outcome.error}); using the known list`);
      const groups = outcome.ok ? outcome.value : ALL_GROUPS;
      return {
        supported_resolutions: [...SUPPORTED_RESOLUTIONS],
        exchanges: [
          { value: '', name: 'All groups', desc: 'Every DEX group and Aggregate' },
          ...groups.map((group) => ({
            value: group,
            name: group,
            desc: group === AGGREGATE_GROUP ? 'Every DEX combined (summed reserves)' : group,
          })),
        ],
        symbols_types: SYMBOL_TYPES.map((t) => ({ ...t })),
        supports_marks: false,
        supports_timescale_marks: false,
        supports_time: true,
      };
    });
    void this.configuration.then((config) => this.safely(() => callback(config)));
  }

  /** The server's clock in Unix seconds (from /gw/v1/info; the local clock if the gateway cannot say). */
  getServerTime(callback: ServerTimeCallback): void {
    void this.client.get('/info', {}, gatewayInfoSchema).then((outcome) => {
      if (!outcome.ok) this.warn(`Server time unavailable (${outcome.error}); using the local clock`);
      const time = outcome.ok ? outcome.value.time : Math.floor(this.now() / 1000);
      this.safely(() => callback(time));
    });
  }

  /**
   * The library's symbol search: `exchange` '' searches every group. At most `searchLimit` results,
   * ranked (exact ticker first, then by liquidity). Failures give an empty list (the library's search
   * has no error callback) and a warning.
   */
  searchSymbols(userInput: string, exchange: string, symbolType: string, onResult: SearchSymbolsCallback): void {
    void this.catalog.search(userInput, exchange, this.searchLimit, symbolType).then((outcome) => {
      if (!outcome.ok) this.warn(`Symbol search failed: ${outcome.error}`);
      const items = outcome.ok ? outcome.value.map(toSearchResultItem) : [];
      this.safely(() => onResult(items));
    });
  }

  /**
   * Ranked search for our own UI: rows with pair, group, pool ID and TVL. `group` undefined or ''
   * searches every group; `limit` may be large (a virtualized list). Rejects with the server's message.
   */
  async search(query: string, group?: string, limit = this.searchLimit): Promise<SearchRow[]> {
    const outcome = await this.catalog.search(query, group, limit);
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome.value;
  }

  /**
   * One symbol of a group as search lists it, by name or ticker (pool ID), without building the
   * group's search index; undefined when the group has no such symbol. Rejects with the server's message.
   */
  async lookup(nameOrTicker: string, group: string): Promise<SearchRow | undefined> {
    const outcome = await this.catalog.group(group);
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome.value.find(nameOrTicker);
  }

  /**
   * The search index itself (of one group, or of every group when `group` is undefined or ''), for a
   * UI that searches on every keystroke without a promise per query. Rejects with the server's message.
   */
  async searchIndex(group?: string): Promise<SymbolSearchIndex> {
    const outcome = await this.catalog.index(group);
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome.value;
  }

  /**
   * Forgets the cached symbol lists, so the next search or resolve sees symbols added since (a
   * "Retry" after an unknown symbol). The gateway may still answer from its own short cache (60 s).
   */
  refreshSymbols(): void {
    this.catalog.forget();
  }

  /** Resolves `NAME`, `GROUP:NAME` or a ticker (pool ID). Unknown symbols reach `onError`. */
  resolveSymbol(symbolName: string, onResolve: ResolveCallback, onError: DatafeedErrorCallback): void {
    void this.catalog.resolve(symbolName).then((outcome) => {
      if (outcome.ok) {
        const info = toLibrarySymbolInfo(outcome.value);
        this.safely(() => onResolve(info));
      } else {
        this.safely(() => onError(outcome.error));
      }
    });
  }

  /**
   * Bars of [from, to) (seconds), oldest first, with `time` in milliseconds; at least `countBack` bars
   * while older history exists; `noData: true` when nothing exists before `to`. Errors (including the
   * server's errmsg) reach `onError`.
   */
  getBars(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    periodParams: PeriodParams,
    onResult: HistoryCallback,
    onError: DatafeedErrorCallback,
  ): void {
    void this.loadBars(symbolInfo, resolution, periodParams).then((outcome) => {
      if (outcome.ok) {
        const bars = outcome.value.bars.map(toLibraryBar);
        this.safely(() => onResult(bars, { noData: outcome.value.noData }));
      } else {
        this.safely(() => onError(outcome.error));
      }
    });
  }

  /**
   * Bars of [from, to) (Unix seconds), oldest first, as `src/shared/bars.ts` defines them (`time` in
   * seconds): getBars for callers that want a promise and the wire's units. At least `countBack` bars
   * while older history exists; `noData` when nothing exists before `to`. Rejects with the server's message.
   */
  async bars(symbolInfo: LibrarySymbolInfo, resolution: ResolutionString, range: BarsRange): Promise<BarsAnswer> {
    const outcome = await this.loadBars(symbolInfo, resolution, {
      from: asSeconds(range.from),
      to: asSeconds(range.to),
      countBack: range.countBack,
    });
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome.value;
  }

  private async loadBars(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    period: { readonly from: UnixSeconds; readonly to: UnixSeconds; readonly countBack: number },
  ): Promise<Outcome<BarsAnswer>> {
    const wire = toWireResolution(resolution);
    if (wire === undefined) return { ok: false, error: unsupportedResolutionMessage(resolution) };
    const symbol = historySymbol(symbolInfo);
    const to = asSeconds(Math.max(0, Math.floor(period.to)));
    const from = asSeconds(Math.min(to, Math.max(0, Math.floor(period.from))));
    const countBack = Number.isFinite(period.countBack) ? Math.max(0, Math.floor(period.countBack)) : 0;
    const outcome = await this.history.bars(symbol, wire, { from, to, countBack });
    if (!outcome.ok) return outcome;
    const last = outcome.value.bars.at(-1);
    if (last) {
      for (const key of newestKeys(symbolInfo, wire)) {
        const known = this.newest.get(key);
        if (!known || last.time >= known.time) this.newest.set(key, last);
      }
    }
    return outcome;
  }

  /**
   * Live bars of an Aggregate symbol at a resolution: the current bar after every trade, a new bar at
   * each bucket boundary, `onResetCacheNeededCallback` when a resync shows that history changed.
   * Other symbols have no live updates: the subscription is kept (so unsubscribe works) and never ticks.
   */
  subscribeBars(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    onTick: SubscribeBarsCallback,
    listenerGuid: string,
    onResetCacheNeededCallback: () => void,
  ): void {
    // The library has no partial reset: it asks for the bars again (a rollback's replacement is ours).
    this.follow(symbolInfo, resolution, listenerGuid, {
      onBar: (bar) => onTick(toLibraryBar(bar)),
      onReset: () => onResetCacheNeededCallback(),
    });
  }

  unsubscribeBars(listenerGuid: string): void {
    this.passive.delete(listenerGuid);
    this.live?.unsubscribe(listenerGuid);
  }

  /**
   * subscribeBars for our own callers: live bars of an Aggregate symbol as `src/shared/bars.ts` defines
   * them (`time` in seconds), `onReset` when history changed under the bars given (load them again).
   * `newest`: the newest bar the caller has, when it did not come from `bars` (the page's own first
   * bars, src/app/first-paint.ts): live bars continue from it. Returns the unsubscribe. Other symbols
   * never tick.
   */
  onBars(symbolInfo: LibrarySymbolInfo, resolution: ResolutionString, listener: BarListener, newest?: Bar): () => void {
    const guid = `onBars#${++this.listenerSeq}`;
    this.follow(symbolInfo, resolution, guid, listener, newest);
    return () => this.unsubscribeBars(guid);
  }

  private follow(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    listenerGuid: string,
    listener: BarListener,
    newest?: Bar,
  ): void {
    this.unsubscribeBars(listenerGuid);
    const wire = toWireResolution(resolution);
    // The library passes back what resolveSymbol gave (with the ticker); otherwise look the name up.
    const poolId =
      symbolInfo.ticker ??
      this.catalog
        .cached()
        .find((c) => c.group === symbolInfo.exchange)
        ?.find(symbolInfo.name)?.ticker ??
      '';
    const streams = streamsLive(symbolInfo);
    if (wire === undefined || !streams || !isPoolId(poolId) || !this.live) {
      if (wire === undefined) this.warn(unsupportedResolutionMessage(resolution));
      if (!this.live && streams) this.warnNoLive();
      this.passive.add(listenerGuid);
      return;
    }
    // The newest bar the chart got, whichever identity its getBars used (a stand-in has only the name).
    let known: Bar | undefined = newest;
    for (const key of newestKeys({ ticker: poolId, name: symbolInfo.name }, wire)) {
      const bar = this.newest.get(key);
      if (bar && (!known || bar.time > known.time)) known = bar;
    }
    this.live.subscribe(listenerGuid, poolId, wire, listener, known);
  }

  /**
   * Each trade event of `target` as the gateway sends it (the stream's event, with `pool_id` and
   * `block_time`), in order; with `onLive` (pass a `TradeListener`), told when the pools are live and
   * when events may have been missed. `target`: a resolved symbol, or pool IDs or symbol names (looked
   * up in the symbol lists). Aggregate pools only (the stream serves no other): other symbols never
   * trade here, and names that are not Aggregate symbols are reported through `onWarning`. Shares the
   * one live connection with the bars. Returns the unsubscribe.
   */
  onTrades(target: TradesTarget, listener: TradeListener | ((event: TradeEvent) => void)): () => void {
    const live = this.live;
    if (!live) {
      this.warnNoLive();
      return () => undefined;
    }
    const handlers: TradeListener = typeof listener === 'function' ? { onTrade: listener } : listener;
    let stop: (() => void) | undefined;
    let stopped = false;
    const start = (pools: readonly string[]) => {
      if (!stopped && pools.length > 0) stop = live.followTrades(pools, handlers);
    };
    if (isAggregatePools(target)) {
      start(target.aggregatePools.filter((pool) => isPoolId(pool)));
    } else if (isSymbolInfo(target)) {
      const ticker = target.ticker;
      start(streamsLive(target) && ticker !== undefined && isPoolId(ticker) ? [ticker] : []);
    } else {
      const names = typeof target === 'string' ? [target] : [...target];
      void Promise.all(names.map((name) => this.catalog.resolve(name))).then((outcomes) => {
        const pools: string[] = [];
        outcomes.forEach((outcome, i) => {
          if (outcome.ok && outcome.value.exchange === AGGREGATE_GROUP) pools.push(outcome.value.ticker);
          else if (!stopped)
            this.warn(
              `No live trades for ${names[i] ?? ''}: ${outcome.ok ? 'live updates exist for Aggregate pools only' : outcome.error}`,
            );
        });
        start(pools);
      });
    }
    return () => {
      stopped = true;
      stop?.();
      stop = undefined;
    };
  }

  /** The live connection's status now (always `idle` without an EventSource). */
  get liveStatus(): LiveConnectionStatus {
    return this.live?.status ?? IDLE_STATUS;
  }

  /**
   * Calls `listener` on every change of the live connection's status (connecting, live with or without
   * a resync, reconnecting, refused with the gateway's reason, idle), not with the current one: read
   * `liveStatus` for that. Returns the unsubscribe.
   */
  onLiveStatus(listener: (status: LiveConnectionStatus) => void): () => void {
    return this.live?.onStatusChange(listener) ?? (() => undefined);
  }

  /**
   * Calls `listener` when what the market knows of some tokens changed (names, tickers, decimals): answers
   * about them read anew (the app reloads its queries; the datafeed reloads its live series itself).
   */
  onMetadata(listener: (metadata: LiveMetadata) => void): () => void {
    return this.live?.onMetadataChange(listener) ?? (() => undefined);
  }

  /** Closes the live connection and drops every subscription. */
  close(): void {
    this.passive.clear();
    this.live?.close();
  }

  private warnNoLive(): void {
    if (this.warnedNoLive) return;
    this.warnedNoLive = true;
    this.warn('No EventSource available: live updates are off');
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.warn(`A chart callback threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Whether a symbol streams (Aggregate symbols only). */
function streamsLive(symbolInfo: LibrarySymbolInfo): boolean {
  return symbolInfo.listed_exchange === AGGREGATE_GROUP || symbolInfo.exchange === AGGREGATE_GROUP;
}

function isAggregatePools(target: TradesTarget): target is { readonly aggregatePools: readonly string[] } {
  return typeof target === 'object' && 'aggregatePools' in target;
}

function isSymbolInfo(target: TradesTarget): target is LibrarySymbolInfo {
  return typeof target === 'object' && !Array.isArray(target) && !isAggregatePools(target);
}

/** Keys of the `newest` map for a symbol: its ticker (pool ID) and its name, any case. */
function newestKeys(symbol: { readonly ticker?: string | undefined; readonly name: string }, wire: string): string[] {
  const ids = [symbol.ticker, symbol.name].filter((id): id is string => id !== undefined && id !== '');
  return [...new Set(ids.map((id) => `${id.toLowerCase()}|${wire}`))];
}
