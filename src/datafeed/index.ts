/** The datafeed layer's public surface: the UDF-style adapter and the types it speaks. */
export { UdfDatafeed, type UdfDatafeedOptions } from './udf-datafeed';
export type { EventSourceConstructor, EventSourceLike } from './live-connection';
export type { FetchLike } from './gateway-client';
export type { SearchOptions, SearchRow, SymbolSearchIndex } from './symbol-search';
export { TOKEN_NAMES_PATH, type TokenNameSource, type TokenNames } from './token-names';
export { SUPPORTED_RESOLUTIONS, toLibraryResolution, toWireResolution } from './resolution-map';
export type * from './tradingview-types';
