import type { Resolution } from '../shared/resolutions';
import type { LibrarySymbolInfo } from './tradingview-types';

/**
 * The gateway URLs the datafeed asks, built in one place and without zod, so that the page's boot
 * script (src/app/boot.ts), which runs before the datafeed's code has loaded, asks for exactly what
 * the datafeed will.
 */

export type QueryValue = string | number | boolean | undefined;

/** Builds `<base><path>?<query>` (undefined values left out); `base` may be relative, e.g. `/gw/v1`. */
export function gatewayUrl(base: string, path: string, query: Readonly<Record<string, QueryValue>> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return `${base.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
}

/** What /history's `symbol` carries for a symbol: its pool ID when known, else its name. */
export function historySymbol(info: Pick<LibrarySymbolInfo, 'ticker' | 'name'>): string {
  return info.ticker ?? info.name;
}

/** The /history query of the last `countback` bars before `to` (the countback extension), always with TVL. */
export function lastBarsQuery(symbol: string, resolution: Resolution, to: number, countback: number): Record<string, QueryValue> {
  return { symbol, resolution, to, countback, include_tvl: true };
}
