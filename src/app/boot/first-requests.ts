import { toWireResolution } from '../../datafeed/resolution-map';
import { gatewayUrl, historySymbol, lastBarsQuery } from '../../datafeed/urls';
import { GATEWAY_PREFIX } from '../../shared/api/gateway-prefix';
import { firstPage } from '../features/chart/lib/first-page';
import { groupStatsUrl } from '../features/overview/lib/group-stats-url';
import { provisionalSymbolInfo } from '../lib/provisional-symbol';
import type { FetchLike } from '../../datafeed';
import { deepestOf } from '../lib/deepest';
import { parseSelection, type Selection } from '../lib/selection';
import { startEarly } from './early-requests';

/** The URL of /gw/v1/info, which the app reads first (data source, each group's deepest pair). */
export const INFO_URL = gatewayUrl(GATEWAY_PREFIX, '/info');

/**
 * The URL of the chart's first request for `target` (a symbol name or pool ID, as in the URL, or the
 * group's deepest pool) at `nowMs`: built by the same functions as the datafeed's request for the
 * chart's stand-in symbol (lib/provisional-symbol.ts), so the two are equal. Undefined when the chart
 * cannot ask before the symbol is resolved (a token ticker) or for an unknown resolution.
 */
export function firstBarsUrl(selection: Pick<Selection, 'resolution'>, target: string | undefined, nowMs: number): string | undefined {
  const info = provisionalSymbolInfo(target);
  const wire = toWireResolution(selection.resolution);
  if (!info || wire === undefined) return undefined;
  const { to, countBack } = firstPage(selection.resolution, nowMs);
  return gatewayUrl(GATEWAY_PREFIX, '/history', lastBarsQuery(historySymbol(info), wire, to, countBack));
}

/** The deepest pools of an /info body not yet validated (the app validates it when it takes it). */
function deepestIn(body: unknown): Record<string, string> | undefined {
  if (typeof body !== 'object' || body === null || !('deepest' in body)) return undefined;
  const { deepest } = body;
  if (typeof deepest !== 'object' || deepest === null) return undefined;
  return Object.fromEntries(Object.entries(deepest).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * Asks, for the page at `search`, what the first chart needs: /info, and the first bars of the URL's
 * pair, or of the group's deepest pair once /info names it; for the market overview (`view=markets`),
 * /info and the group's statistics. The answers wait for the app (early-requests.ts).
 */
export function bootRequests(search: string, fetchImpl?: FetchLike, nowMs: () => number = Date.now): void {
  const selection = parseSelection(search);
  const firstBars = (target: string | undefined) => {
    const url = firstBarsUrl(selection, target, nowMs());
    if (url !== undefined) startEarly(url, fetchImpl);
  };
  const info = startEarly(INFO_URL, fetchImpl);
  // The market overview draws no chart: its one request is the group's statistics.
  if (selection.view === 'markets') {
    startEarly(groupStatsUrl(selection.group), fetchImpl);
    return;
  }
  if (selection.symbol !== undefined) {
    firstBars(selection.symbol);
    return;
  }
  // A copy of /info's body: the app takes the answer itself.
  info
    .then((response) => (response.ok ? response.clone().json() : undefined))
    .then((body: unknown) => {
      const deepest = deepestIn(body);
      firstBars(deepest ? deepestOf({ deepest }, selection.group) : undefined);
    })
    .catch(() => undefined);
}
