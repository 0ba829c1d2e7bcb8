import type { LibrarySymbolInfo } from './tradingview-types';

/**
 * The /history symbol of a symbol, without zod: the page's first paint (src/app/first-paint.ts) asks before
 * the datafeed's code has loaded. The URLs themselves: src/shared/api/gateway-urls.ts.
 */

/** What /history's `symbol` carries for a symbol: its pool ID when known, else its name. */
export function historySymbol(info: Pick<LibrarySymbolInfo, 'ticker' | 'name'>): string {
  return info.ticker ?? info.name;
}
