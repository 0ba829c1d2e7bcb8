import { toWireResolution } from '@/datafeed/resolution-map';
import { GATEWAY_PREFIX } from '@/shared/api/gateway-prefix';
import { gatewayUrl, lastBarsQuery } from '@/shared/api/gateway-urls';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { isPoolId } from '@/shared/id-rules';
import { RESOLUTION_SECONDS } from '@/shared/resolutions';
import { parseSymbolName } from '@/shared/symbols';

/**
 * The page's first chart: what a page's URL asks to chart, the chart's first /history request, and the
 * bars the page carries for it. One definition for the server, which puts that request's answer in the
 * page (src/server/first-paint.ts, the server's one import of the app besides the skeleton), for the page's first paint, which draws it before the app's code has
 * loaded (src/app/first-paint.ts), and for the app's chart, which asks the same URL when the page has no
 * answer: all build the same URL.
 */

/** The id of the page's inlined copy of /gw/v1/info: a JSON script element (not run: a Content-Security-Policy allows it). */
export const INLINED_INFO_ELEMENT_ID = 'inlined-info';

/**
 * The id of the preferences the page was laid out with (the preferences cookie's, as the server read
 * it for the skeleton): a JSON script element. The page's first paint draws with them, as the skeleton
 * shows them, without opening the browser's storage first.
 */
export const INLINED_PREFERENCES_ELEMENT_ID = 'inlined-preferences';

/** The id of the page's inlined first bars: a JSON script element whose `data-url` is the request it answers. */
export const INLINED_BARS_ELEMENT_ID = 'inlined-first-bars';

/** The first bars the page carries: the first chart's first request (firstBarsUrl) and its answer's body, as the gateway gave it. */
export interface InlinedFirstBars {
  readonly url: string;
  /** The answer's body (JSON text). */
  readonly body: string;
}

/** The chart's resolution when the URL names none: one hour. */
export const DEFAULT_RESOLUTION = '60';

const RESOLUTION_SPELLINGS: Readonly<Record<string, string>> = {
  '1': '1',
  '1m': '1',
  '1min': '1',
  '5': '5',
  '5m': '5',
  '5min': '5',
  '15': '15',
  '15m': '15',
  '15min': '15',
  '60': '60',
  '60m': '60',
  '60min': '60',
  '1h': '60',
  '1d': '1D',
  d: '1D',
  '1440': '1D',
  '24h': '1D',
};

/** `60`, `60min`, `1h`, `1D`, `1d`, `D` ... in the library's spelling; undefined when not a resolution we serve. */
export function normaliseResolution(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return RESOLUTION_SPELLINGS[value.trim().toLowerCase()];
}

/** What a page's query string asks to chart (the app's whole selection: src/app/lib/selection.ts). */
export interface PageChart {
  /** The screen: a pair's chart, or the market overview of the group (`view=markets`). */
  readonly view: 'chart' | 'markets';
  readonly group: string;
  /** Symbol name, pool ID or token ticker as written in the URL; undefined: the group's deepest pair. */
  readonly symbol: string | undefined;
  /** Library resolution: 1, 5, 15, 60 or 1D. */
  readonly resolution: string;
}

/** Reads what a query string (`?group=&symbol=&res=&view=`) asks to chart. */
export function pageChart(search: string): PageChart {
  const params = new URLSearchParams(search);
  return {
    view: params.get('view') === 'markets' ? 'markets' : 'chart',
    group: params.get('group')?.trim() || AGGREGATE_GROUP,
    symbol: params.get('symbol')?.trim() || undefined,
    resolution: normaliseResolution(params.get('res') ?? params.get('resolution')) ?? DEFAULT_RESOLUTION,
  };
}

/** Bars asked for at once: the first page, and each older page on scroll. */
export const PAGE_BARS = 300;

/** Seconds per bar of a library resolution (3600 for an unknown one). */
export function resolutionSeconds(resolution: string): number {
  const wire = toWireResolution(resolution);
  return wire === undefined ? 3600 : RESOLUTION_SECONDS[wire];
}

/**
 * The chart's first request: the last PAGE_BARS bars before the end of the current bar's bucket. The
 * end is a bucket boundary, not "now", so the server, the page's first paint and the chart ask for the
 * same URL unless a bucket ended in between (then the chart asks again), and answers of the same
 * bucket are alike for the server's cache too.
 */
export function firstPage(
  resolution: string,
  nowMs: number,
): { readonly from: number; readonly to: number; readonly countBack: number } {
  const step = resolutionSeconds(resolution);
  const to = (Math.floor(nowMs / 1000 / step) + 1) * step;
  return { from: to - PAGE_BARS * step, to, countBack: PAGE_BARS };
}

/** The pool ID of a group's deepest pool, when /gw/v1/info names it (group names match in any case). */
export function deepestOf(
  info: { readonly deepest?: Readonly<Record<string, string>> | undefined } | undefined,
  group: string,
): string | undefined {
  const deepest = info?.deepest;
  if (!deepest) return undefined;
  const key = Object.keys(deepest).find((g) => g.toLowerCase() === group.toLowerCase());
  return key === undefined ? undefined : deepest[key];
}

/**
 * What /history's `symbol` carries for the chart of `target` before its symbol is resolved: a symbol
 * name as it is, a pool ID in lower case (src/app/lib/provisional-symbol.ts); undefined for anything
 * else (a token ticker needs the search first).
 */
export function historyTarget(target: string): string | undefined {
  if (parseSymbolName(target)) return target;
  return isPoolId(target) ? target.toLowerCase() : undefined;
}

/**
 * The URL of the chart's first request for `target` (a symbol name or pool ID as in the URL, or the
 * group's deepest pool) at `nowMs`; undefined when the chart cannot ask before the symbol is resolved
 * (a token ticker) or for an unknown resolution.
 */
export function firstBarsUrl(resolution: string, target: string | undefined, nowMs: number): string | undefined {
  const symbol = target === undefined ? undefined : historyTarget(target);
  const wire = toWireResolution(resolution);
  if (symbol === undefined || wire === undefined) return undefined;
  const { to, countBack } = firstPage(resolution, nowMs);
  return gatewayUrl(GATEWAY_PREFIX, '/history', lastBarsQuery(symbol, wire, to, countBack));
}

/** The chart `search` opens first: its pair (the URL's, or the group's deepest as `info` names it) and the URL of its first bars. */
export function firstChartOf(
  search: string,
  info: Parameters<typeof deepestOf>[0],
  nowMs: number,
): { readonly target: string; readonly url: string } | undefined {
  const chart = pageChart(search);
  if (chart.view !== 'chart') return undefined;
  const target = chart.symbol ?? deepestOf(info, chart.group);
  const url = firstBarsUrl(chart.resolution, target, nowMs);
  return target === undefined || url === undefined ? undefined : { target, url };
}
