import { BOOT_BARS_ELEMENT_ID, BOOT_INFO_ELEMENT_ID, GATEWAY_PREFIX } from '@/shared/api/gateway-prefix';
import { gatewayUrl } from '@/shared/api/gateway-urls';
import { firstChartOf } from '@/shared/first-chart';
import { groupStatsUrl } from '@/app/features/overview/lib/group-stats-url';
import type { FetchLike } from '@/datafeed';
import { parseSelection } from '@/app/lib/selection';
import { provideEarly, startEarly } from './early-requests';

/** The URL of /gw/v1/info, which the app reads first (data source, each group's deepest pair). */
export const INFO_URL = gatewayUrl(GATEWAY_PREFIX, '/info');

/** The deepest pools of an /info body not yet validated (the app validates it when it takes it). */
function deepestIn(body: unknown): Record<string, string> | undefined {
  if (typeof body !== 'object' || body === null || !('deepest' in body)) return undefined;
  const { deepest } = body;
  if (typeof deepest !== 'object' || deepest === null) return undefined;
  return Object.fromEntries(Object.entries(deepest).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** The first chart's bars as the boot script asked them: for its first picture of the chart (boot/boot-chart.ts). */
export interface FirstBars {
  /** The symbol name or pool ID asked. */
  readonly target: string;
  /** A copy of the answer, taken as it came (the app reads the answer itself). */
  readonly copy: Promise<Response>;
}

/** The first chart's bars that the page itself carries (InlineBars), for the request the boot script builds. */
export interface BarsInPage {
  /** The symbol name or pool ID of the bars. */
  readonly target: string;
  /** The answer's body (JSON). */
  readonly body: string;
}

/** What the boot script keeps of its requests: a copy of /info's body, and the first bars' (FirstBars). */
export interface BootAnswers {
  /** /info's body (undefined when it failed). */
  readonly info: Promise<unknown>;
  /** The first bars, with `copyFirstBars`; undefined where no bars were asked. */
  readonly firstBars: Promise<FirstBars | undefined>;
  /**
   * The first bars when the page carries them for the very request the boot script built, known at
   * once (without awaiting anything): the picture can be drawn in the boot script's own run. Undefined
   * otherwise, and always when the bars had to wait for /info.
   */
  readonly inPage: BarsInPage | undefined;
}

/** The page's inline copy of /gw/v1/info (the server puts it in the page's HTML), if it has one. */
export function inlineInfo(page: Pick<Document, 'getElementById'> = document): unknown {
  try {
    const text = page.getElementById(BOOT_INFO_ELEMENT_ID)?.textContent;
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** The page's inline answer to its first chart's first request (the server puts it in the page's HTML), if it has one. */
export interface InlineBars {
  /** The request's URL (shared/first-chart.ts's firstBarsUrl, as the server built it). */
  readonly url: string;
  /** The answer's body (JSON). */
  readonly body: string;
}

/** The page's inline first bars (InlineBars), if it has them. */
export function inlineBars(page: Pick<Document, 'getElementById'> = document): InlineBars | undefined {
  const element = page.getElementById(BOOT_BARS_ELEMENT_ID);
  const url = element?.getAttribute('data-url');
  const body = element?.textContent;
  return url && body ? { url, body } : undefined;
}

/**
 * Asks, for the page at `search`, what the first chart needs: /info, and the first bars of the URL's
 * pair, or of the group's deepest pair once /info names it; for the market overview (`view=markets`),
 * /info and the group's statistics. The answers wait for the app (early-requests.ts). With
 * `copyFirstBars`, the first bars' answer is also copied (FirstBars) for the page's first picture of
 * the chart. With `inlineInfo` (the page's copy of /info), /info is not asked and the deepest pair's
 * bars are asked without waiting for it. With `inlineBars` (the page's answer to the first bars'
 * request), that URL is not asked: the answer is there (unless the page's clock and ours disagree on
 * the current bar's bucket, and so on the URL: then it is asked), and `inPage` holds it at once.
 */
export function bootRequests(
  search: string,
  fetchImpl?: FetchLike,
  nowMs: () => number = Date.now,
  options: { readonly copyFirstBars?: boolean; readonly inlineInfo?: unknown; readonly inlineBars?: InlineBars | undefined } = {},
): BootAnswers {
  const selection = parseSelection(search);
  let inPage: BarsInPage | undefined;
  // The chart the page opens first, chosen as the server chooses it (shared/first-chart.ts): the URL's
  // pair, or the group's deepest pair as an /info body names it.
  const firstBars = (infoBody: unknown): FirstBars | undefined => {
    const chart = firstChartOf(search, { deepest: deepestIn(infoBody) }, nowMs());
    if (chart === undefined) return undefined;
    const { target, url } = chart;
    const inline = options.inlineBars;
    if (inline?.url === url) {
      provideEarly(url, inline.body);
      inPage = { target, body: inline.body };
    }
    const answer = startEarly(url, fetchImpl);
    // Copied as soon as it comes, before the app (which takes it later) can read it.
    return options.copyFirstBars ? { target, copy: answer.then((response) => response.clone()) } : undefined;
  };
  // The page's own copy of /info, there at once (and the app's first /info is answered with it: one
  // request fewer before the bars), or a copy of /info's body as it comes (the app takes the answer).
  const inline = options.inlineInfo;
  const info =
    inline !== undefined
      ? (provideEarly(INFO_URL, JSON.stringify(inline)), Promise.resolve(inline))
      : startEarly(INFO_URL, fetchImpl)
          .then((response): Promise<unknown> | undefined => (response.ok ? response.clone().json() : undefined))
          .catch(() => undefined);
  // The market overview draws no chart: its one request is the group's statistics.
  if (selection.view === 'markets') {
    startEarly(groupStatsUrl(selection.group), fetchImpl);
    return { info, firstBars: Promise.resolve(undefined), inPage: undefined };
  }
  // The URL's pair, or the group's deepest pair as the page's copy of /info names it: at once. Else the
  // group's deepest pair once /info has come.
  if (selection.symbol !== undefined || inline !== undefined) {
    const asked = firstBars(inline);
    return { info, firstBars: Promise.resolve(asked), inPage };
  }
  return { info, firstBars: info.then(firstBars), inPage: undefined };
}
