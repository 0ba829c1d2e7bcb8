import type { UnixMillis, UnixSeconds } from '../shared/time';

/**
 * The part of TradingView's Charting Library datafeed API (charting_library.d.ts, `IBasicDataFeed`)
 * that this adapter implements, with the library's field names. Declared here so the adapter builds
 * without the (licensed) library; an object typed by these interfaces can be handed to the library
 * unchanged. Units: `PeriodParams.from/to` and the server time are Unix SECONDS, `Bar.time` is Unix
 * MILLISECONDS, as in the library.
 */

/** A resolution as the library spells it: `1`, `5`, `15`, `60` (minutes), `1D` (a day). */
export type ResolutionString = string;

/** One bar for the library (this adapter's bars also carry `tvl`, see `toLibraryBar`; the library ignores it). */
export interface Bar {
  /** Bucket start, Unix milliseconds, UTC. */
  readonly time: UnixMillis;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume?: number;
}

/** The range the library asks `getBars` for. */
export interface PeriodParams {
  /** Leftmost requested bar start, Unix seconds (inclusive). */
  readonly from: UnixSeconds;
  /** Rightmost requested bar start, Unix seconds (exclusive). */
  readonly to: UnixSeconds;
  /** Bars the library wants at least; older ones past `from` are welcome when the range holds fewer. */
  readonly countBack: number;
  /** True on the first request after a symbol or resolution change. */
  readonly firstDataRequest: boolean;
}

export interface HistoryMetadata {
  /** No bar in the requested range and none earlier: the library stops asking for older history. */
  readonly noData?: boolean;
  /** Time of the next older bar, Unix milliseconds, when the range is empty but older bars exist. */
  readonly nextTime?: number | null;
}

export interface Exchange {
  readonly value: string;
  readonly name: string;
  readonly desc: string;
}

export interface DatafeedSymbolType {
  readonly name: string;
  readonly value: string;
}

/** What `onReady` hands the library. */
export interface DatafeedConfiguration {
  readonly exchanges?: Exchange[];
  readonly supported_resolutions?: ResolutionString[];
  readonly currency_codes?: string[];
  readonly supports_marks?: boolean;
  readonly supports_time?: boolean;
  readonly supports_timescale_marks?: boolean;
  readonly symbols_types?: DatafeedSymbolType[];
}

/** One row of the library's symbol search. */
export interface SearchSymbolResultItem {
  /** Short symbol name. */
  readonly symbol: string;
  /** `EXCHANGE:SYMBOL` (older library versions show it; newer ones build it from symbol and exchange). */
  readonly full_name: string;
  readonly description: string;
  readonly exchange: string;
  /** What the library passes to `resolveSymbol` when the row is picked. */
  readonly ticker?: string;
  readonly type: string;
}

export type SeriesFormat = 'price' | 'volume';

/** A resolved symbol. */
export interface LibrarySymbolInfo {
  /** Symbol name, e.g. `ADA.SNEK_Aggregate_Pool1`. */
  readonly name: string;
  /** Unique identifier used for data requests: the pool ID. */
  readonly ticker?: string;
  readonly description: string;
  readonly type: string;
  /** Trading hours: `24x7`. */
  readonly session: string;
  readonly timezone: 'Etc/UTC';
  /** The group (DEX or Aggregate). */
  readonly exchange: string;
  readonly listed_exchange: string;
  readonly format: SeriesFormat;
  /** 10^decimals of the price. */
  readonly pricescale: number;
  /** Minimal price change, in 1/pricescale units. */
  readonly minmov: number;
  readonly has_intraday?: boolean;
  /** Minute resolutions the datafeed serves directly; the library builds others from them. */
  readonly intraday_multipliers?: string[];
  readonly has_daily?: boolean;
  readonly daily_multipliers?: string[];
  readonly has_weekly_and_monthly?: boolean;
  readonly has_empty_bars?: boolean;
  readonly supported_resolutions?: ResolutionString[];
  readonly volume_precision?: number;
  readonly data_status?: 'streaming' | 'endofday' | 'delayed_streaming';
  /** Currency the prices are in: the pair's base (ADA for ADA pairs). */
  readonly currency_code?: string;
}

export type OnReadyCallback = (configuration: DatafeedConfiguration) => void;
export type SearchSymbolsCallback = (items: SearchSymbolResultItem[]) => void;
export type ResolveCallback = (symbolInfo: LibrarySymbolInfo) => void;
export type HistoryCallback = (bars: Bar[], meta?: HistoryMetadata) => void;
export type SubscribeBarsCallback = (bar: Bar) => void;
/** Server time in Unix seconds. */
export type ServerTimeCallback = (serverTime: number) => void;
export type DatafeedErrorCallback = (reason: string) => void;

/** Extra arguments the library may pass to `resolveSymbol` (unused here). */
export interface SymbolResolveExtension {
  readonly currencyCode?: string;
  readonly unitId?: string;
  readonly session?: string;
}

/** `IExternalDatafeed & IDatafeedChartApi` of the library (without marks, quotes and depth). */
export interface IBasicDataFeed {
  onReady(callback: OnReadyCallback): void;
  getServerTime?(callback: ServerTimeCallback): void;
  searchSymbols(userInput: string, exchange: string, symbolType: string, onResult: SearchSymbolsCallback): void;
  resolveSymbol(
    symbolName: string,
    onResolve: ResolveCallback,
    onError: DatafeedErrorCallback,
    extension?: SymbolResolveExtension,
  ): void;
  getBars(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    periodParams: PeriodParams,
    onResult: HistoryCallback,
    onError: DatafeedErrorCallback,
  ): void;
  subscribeBars(
    symbolInfo: LibrarySymbolInfo,
    resolution: ResolutionString,
    onTick: SubscribeBarsCallback,
    listenerGuid: string,
    onResetCacheNeededCallback: () => void,
  ): void;
  unsubscribeBars(listenerGuid: string): void;
}
