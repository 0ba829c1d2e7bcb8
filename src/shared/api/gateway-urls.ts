import type { Resolution } from '../resolutions';

/**
 * The gateway URLs the browser asks, built in one place and without zod: the datafeed, the page's boot
 * script (src/app/boot.ts), which asks before the datafeed's code has loaded, and the server, which
 * puts the first chart's answer in the page (src/server/platform.ts), all build the same URL.
 */

export type QueryValue = string | number | boolean | undefined;

/** Builds `<base><path>?<query>` (undefined values left out); `base` may be relative, e.g. `/gw/v1`. */
export function gatewayUrl(base: string, path: string, query: Readonly<Record<string, QueryValue>> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return `${base.replace(/\/+$/, '')}${path}${search === '' ? '' : `?${search}`}`;
}

/** The /history query of the last `countback` bars before `to` (the countback extension), always with TVL. */
export function lastBarsQuery(
  symbol: string,
  resolution: Resolution,
  to: number,
  countback: number,
): Record<string, QueryValue> {
  return { symbol, resolution, to, countback, include_tvl: true };
}
