/** The datafeed layer's public surface: the adapter (TradingView's datafeed API and our own), its HTTP client, the types they speak. */
export { UdfDatafeed, type BarsRange, type TradesTarget, type UdfDatafeedOptions } from './udf-datafeed';
export type {
  EventSourceConstructor,
  EventSourceLike,
  LiveConnectionState,
  LiveConnectionStatus,
} from './live-connection';
export type { BarListener, TradeListener } from './live-feed';
export type { BarsReplacement } from './live-series';
export type { LiveRollback } from '../shared/api/gateway';
export type { BarsAnswer } from './history-loader';
export { GatewayClient, GatewayError, type FetchLike, type Outcome } from './gateway-client';
export type { QueryValue } from '../shared/api/gateway-urls';
export type { SearchOptions, SearchRow, SymbolSearchIndex } from './symbol-search';
export { TOKEN_NAMES_PATH, type TokenNameSource, type TokenNames } from './token-names';
export { SUPPORTED_RESOLUTIONS, toLibraryResolution, toWireResolution } from './resolution-map';
/** The one bar of our own code: `src/shared/bars.ts` (time in Unix seconds, with TVL). */
export type { Bar } from '../shared/bars';
/** TradingView's datafeed types (the library's `Bar`, in milliseconds, as `LibraryBar`). */
export type {
  Bar as LibraryBar,
  DatafeedConfiguration,
  DatafeedErrorCallback,
  DatafeedSymbolType,
  Exchange,
  HistoryCallback,
  HistoryMetadata,
  IBasicDataFeed,
  LibrarySymbolInfo,
  OnReadyCallback,
  PeriodParams,
  ResolutionString,
  ResolveCallback,
  SearchSymbolResultItem,
  SearchSymbolsCallback,
  SeriesFormat,
  ServerTimeCallback,
  SubscribeBarsCallback,
  SymbolResolveExtension,
} from './tradingview-types';
