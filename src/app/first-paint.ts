import type { FetchLike } from '@/datafeed';
import { barsOfHistory } from '@/datafeed/history-bars';
import { GATEWAY_PREFIX } from '@/shared/api/gateway-prefix';
import { gatewayUrl } from '@/shared/api/gateway-urls';
import { historyAnswerOf } from '@/app/lib/history-check';
import {
  firstChartOf,
  INLINED_BARS_ELEMENT_ID,
  INLINED_INFO_ELEMENT_ID,
  INLINED_PREFERENCES_ELEMENT_ID,
  type InlinedFirstBars,
} from '@/app/lib/first-chart';
// The chart's own modules, not the feature's index (its React component would come into this script).
import { Chart } from '@/app/features/chart/lib/chart';
import { CHART_PLACE_SELECTOR, PrerenderedChart } from '@/app/features/chart/lib/prerendered-chart';
import { groupStatsUrl } from '@/app/features/overview/lib/group-stats-url';
import { provisionalSymbolInfo } from '@/app/lib/provisional-symbol';
import { parseSelection, type Selection } from '@/app/lib/selection';
import { preferencesOf, storedPreferences, type Preferences } from '@/app/stores/preferences';

/**
 * The page's first paint in the browser: what the page's one script (main.tsx) does before the app's
 * code has loaded, in its own run. The server sent the chart page already laid out (the app's own
 * first render, src/app/skeleton.tsx) with /gw/v1/info, the first chart's first bars and the
 * preferences it is laid out with inlined in it (src/server/first-paint.ts). Here:
 * - the app's chart (features/chart's Chart, the one a trader uses) is made in the chart's place and
 *   shows those bars at once, answering the pointer; the app's chart component takes it over where it
 *   is (`chart`), and neither asks for nor draws those bars again;
 * - what the page does not carry (under Vite's servers, or from an upstream too slow for the page) is
 *   asked at once (`early`), and the app's first request of each URL gets that answer.
 * The page's /info goes to the app as it is (`info`); the app checks it as it takes it.
 */
export interface FirstPaint {
  /** The page's inlined /gw/v1/info, not checked yet; undefined without one. */
  readonly info: unknown;
  /** The app's chart, drawn from the page's first bars; undefined when it was not drawn. */
  readonly chart: PrerenderedChart | undefined;
  /** Answers asked (or carried by the page) before the app's code loaded. */
  readonly early: EarlyAnswers;
}

/** The URL of /gw/v1/info, which the app reads first (data source, each group's deepest pair). */
export const INFO_URL = gatewayUrl(GATEWAY_PREFIX, '/info');

/**
 * Requests answered before the app asks them: started at once, or answered by what the page carries.
 * The app's first request of each URL takes its answer (`first`); one nobody takes goes with the page.
 */
export class EarlyAnswers {
  private readonly answers = new Map<string, Promise<Response>>();

  constructor(private readonly fetchImpl: FetchLike) {}

  /** Starts a GET of `url` now (once per URL); its answer waits for the app's first request of `url`. */
  start(url: string): Promise<Response> {
    let pending = this.answers.get(url);
    if (!pending) {
      pending = this.fetchImpl(url, { headers: { Accept: 'application/json' } });
      this.answers.set(url, pending);
    }
    return pending;
  }

  /** Answers `url` with JSON the page carries. */
  provide(url: string, json: string): void {
    this.answers.set(
      url,
      Promise.resolve(new Response(json, { status: 200, headers: { 'Content-Type': 'application/json' } })),
    );
  }

  /** The early answer of `url`, if there is one not yet taken (taking it removes it). */
  take(url: string): Promise<Response> | undefined {
    const pending = this.answers.get(url);
    this.answers.delete(url);
    return pending;
  }

  /** `fetchImpl`, except that a URL answered early gets that answer the first time. */
  first(fetchImpl: FetchLike): FetchLike {
    return (input, init) => this.take(input) ?? fetchImpl(input, init);
  }
}

/** Where the first paint reads from: the browser's page, URL, storage, clock and fetch. */
export interface FirstPaintEnvironment {
  readonly doc: Document;
  readonly search: string;
  /** The browser's storage, opened only when the page carries no preferences (under Vite's servers). */
  readonly storage: () => Pick<Storage, 'getItem'> | undefined;
  readonly now: () => number;
  readonly fetch: FetchLike;
}

function browserEnvironment(): FirstPaintEnvironment {
  const storage = () => {
    try {
      return localStorage;
    } catch {
      return undefined;
    }
  };
  return { doc: document, search: location.search, storage, now: Date.now, fetch: (input, init) => fetch(input, init) };
}

/**
 * Whether the app's first chart looks as the first paint would draw it: a chart page (not the
 * overview, not compare mode, one chart) without indicators and in ADA, from the URL and, where it names none,
 * the stored choices. Elsewhere the app draws its chart itself.
 */
export function firstChartFits(selection: Selection, preferences: Preferences): boolean {
  return (
    selection.view === 'chart' &&
    selection.layout.kind === '1' &&
    !preferences.compare &&
    selection.indicators === '' &&
    preferences.indicators === '' &&
    selection.currency === 'ada' &&
    preferences.currency === 'ada'
  );
}

/** The text of the page's JSON element `id`, parsed; undefined without one (or unreadable). */
function inlinedJson(doc: Document, id: string): unknown {
  try {
    const text = doc.getElementById(id)?.textContent;
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The preferences the page was laid out with (the server's skeleton read them from the preferences
 * cookie, which the app writes), if it carries them. Drawing with them, the chart looks as the page
 * around it, and the first paint does not wait for the browser's storage to open (a few milliseconds
 * of the main thread on two cores, before the first candles); the app reads the storage as it starts.
 */
function inlinedPreferences(doc: Document): Preferences | undefined {
  const json = inlinedJson(doc, INLINED_PREFERENCES_ELEMENT_ID);
  return json === undefined ? undefined : preferencesOf(json);
}

/** The page's inlined first bars, if it carries them. */
function inlinedBars(doc: Document): InlinedFirstBars | undefined {
  const element = doc.getElementById(INLINED_BARS_ELEMENT_ID);
  const url = element?.getAttribute('data-url');
  const body = element?.textContent;
  return url && body ? { url, body } : undefined;
}

/** The deepest pools an /info body names (not checked yet: the app checks it). */
function deepestIn(info: unknown): Record<string, string> | undefined {
  if (typeof info !== 'object' || info === null || !('deepest' in info)) return undefined;
  const { deepest } = info;
  if (typeof deepest !== 'object' || deepest === null) return undefined;
  return Object.fromEntries(
    Object.entries(deepest).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The app's chart in the chart's place of the page, showing the page's first bars of `target`; undefined when it cannot. */
function drawChart(
  doc: Document,
  target: string,
  body: string,
  selection: Selection,
  preferences: Preferences,
): PrerenderedChart | undefined {
  const place = doc.querySelector<HTMLElement>(CHART_PLACE_SELECTOR);
  const info = provisionalSymbolInfo(target);
  if (!place || !info) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return undefined;
  }
  // The datafeed's check of a /history answer (without zod): what fails it, the app's chart asks again and explains.
  const history = historyAnswerOf(answer);
  if (!history || history.t.length === 0) return undefined;
  const chart = new Chart(place, {
    theme: preferences.theme,
    showVolume: preferences.showVolume,
    showTvl: preferences.showTvl,
    logScale: preferences.logScale,
    timeZone: preferences.timeZone,
  });
  chart.setInverted(selection.inverted);
  chart.showBars(info, selection.resolution, barsOfHistory(history));
  return new PrerenderedChart(chart, { target, resolution: selection.resolution });
}

/** The page's first paint (FirstPaint): run once, by the page's one script, before the app's code loads. */
export function firstPaint(env: FirstPaintEnvironment = browserEnvironment()): FirstPaint {
  const { doc, search, now } = env;
  const selection = parseSelection(search);
  const preferences = inlinedPreferences(doc) ?? storedPreferences(env.storage());
  doc.documentElement.dataset.theme = preferences.theme;
  const early = new EarlyAnswers(env.fetch);
  const info = inlinedJson(doc, INLINED_INFO_ELEMENT_ID);
  if (info === undefined) void early.start(INFO_URL).catch(() => undefined);
  else early.provide(INFO_URL, JSON.stringify(info));
  // The market overview draws no chart: its one request is the group's statistics.
  if (selection.view === 'markets') {
    void early.start(groupStatsUrl(selection.group)).catch(() => undefined);
    return { info, chart: undefined, early };
  }
  // The chart the page opens first, chosen as the server chose it: the URL's pair, or the group's
  // deepest as /info names it (asked once /info has come when the page does not carry it).
  const inlined = inlinedBars(doc);
  const first = firstChartOf(search, { deepest: deepestIn(info) }, now());
  if (first === undefined && info === undefined && selection.symbol === undefined) {
    void early
      .start(INFO_URL)
      .then((response) => response.clone().json() as Promise<unknown>)
      .then((body) => {
        const later = firstChartOf(search, { deepest: deepestIn(body) }, now());
        if (later) void early.start(later.url).catch(() => undefined);
      })
      .catch(() => undefined);
    return { info, chart: undefined, early };
  }
  if (first === undefined) return { info, chart: undefined, early };
  // The page's bars answer the chart's first request only when they are of the very URL it asks (the
  // page's clock and ours in the same bar's bucket).
  if (inlined?.url !== first.url) {
    void early.start(first.url).catch(() => undefined);
    return { info, chart: undefined, early };
  }
  early.provide(first.url, inlined.body);
  const chart = firstChartFits(selection, preferences)
    ? drawChart(doc, first.target, inlined.body, selection, preferences)
    : undefined;
  return { info, chart, early };
}
