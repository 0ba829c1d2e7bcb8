import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { EarlyAnswers, firstChartFits, firstPaint, INFO_URL, type FirstPaint } from '../../src/app/first-paint';
import { pagePreferences, renderSkeleton } from '../../src/app/skeleton';
import { parseSelection } from '../../src/app/lib/selection';
import {
  DEFAULT_PREFERENCES,
  PREFERENCES_KEY,
  preferencesCookie,
  preferencesFromCookie,
  storedPreferences,
  type Preferences,
} from '../../src/app/stores/preferences';
import { createPreferencesStore } from '../../src/app/stores/preferences-store';
import type { FetchLike } from '../../src/datafeed';
import { firstChartOf, firstPage, PAGE_BARS } from '../../src/app/lib/first-chart';
import { inlinedBarsElement, inlinedInfoElement, inlinedPreferencesElement } from '../../src/server/first-paint';
import { appTestBed, chartReady } from './render-app';

/**
 * The page's first paint in the browser (src/app/first-paint.ts): the app's chart drawn from the bars
 * the page carries into the skeleton's chart place before the app's code has loaded, what it asks when
 * the page carries nothing, and the app's chart taking that chart over without asking or drawing its
 * bars again. The page itself is the server's (its skeleton and inlined elements, made by the same code).
 */

const bed = appTestBed();
const SNEK = 'ADA.SNEK_Aggregate_Pool1';

/** A Storage holding the preferences as the store persists them. */
const storageWith = (value: string | null) => ({ getItem: (key: string) => (key === PREFERENCES_KEY ? value : null) });

/** The platform's fetch, counting what reaches it. */
function counting() {
  const reached: string[] = [];
  const fetchImpl: FetchLike = (input, init) => {
    reached.push(input);
    return bed.tp.fetch(input, init);
  };
  return { reached, fetchImpl };
}

/** The page as the server sends it for `search`: the skeleton in #root, then /info and the first bars (or not). */
async function servePage(
  search: string,
  options: { bars?: boolean; info?: boolean; now?: number; preferences?: Preferences } = {},
): Promise<{ info: unknown; barsUrl: string | undefined }> {
  const info: unknown = await (await bed.tp.fetch(INFO_URL)).json();
  const chart = firstChartOf(search, info as { deepest?: Record<string, string> }, options.now ?? Date.now());
  const body = chart && options.bars !== false ? await (await bed.tp.fetch(chart.url)).text() : undefined;
  // With `preferences`: laid out with them, from the cookie the app wrote, which the page carries too.
  const preferences = pagePreferences(
    options.preferences ? preferencesCookie(options.preferences).split(';')[0] : undefined,
  );
  document.body.innerHTML = `${options.preferences ? inlinedPreferencesElement(preferences) : ''}<div id="root">${await renderSkeleton({ pathname: '/', search, preferences, info })}</div>${options.info === false ? '' : inlinedInfoElement(info)}${
    chart && body ? inlinedBarsElement({ url: chart.url, body }) : ''
  }`;
  return { info, barsUrl: chart?.url };
}

const ROOT = join(__dirname, '../..');

let painted: FirstPaint | undefined;
afterEach(() => {
  painted?.chart?.drop();
  painted = undefined;
  document.body.innerHTML = '';
  performance.clearMarks();
});

function paint(
  search: string,
  fetchImpl: FetchLike,
  now = Date.now,
  storage: Pick<Storage, 'getItem'> | undefined = undefined,
): FirstPaint {
  painted = firstPaint({ doc: document, search, storage: () => storage, now, fetch: fetchImpl });
  return painted;
}

describe('the first page of bars', () => {
  it("ends at the end of the current bar's bucket, the same all through the bucket", () => {
    const hour = 3600;
    const start = 1_795_590_000 - (1_795_590_000 % hour);
    const first = firstPage('60', (start + 1) * 1000);
    expect(first).toEqual({ from: start + hour - PAGE_BARS * hour, to: start + hour, countBack: PAGE_BARS });
    expect(firstPage('60', (start + hour - 1) * 1000)).toEqual(first);
    expect(firstPage('60', (start + hour) * 1000).to).toBe(start + 2 * hour);
    expect(firstPage('1D', (start + 1) * 1000).to % 86_400).toBe(0);
  });
});

describe('early answers', () => {
  it("are taken once by the app's first request of the same URL", async () => {
    const { fetchImpl, reached } = counting();
    const early = new EarlyAnswers(fetchImpl);
    void early.start('/gw/v1/groups');
    void early.start('/gw/v1/groups');
    expect(reached).toEqual(['/gw/v1/groups']);
    const first = early.first(fetchImpl);
    expect((await first('/gw/v1/groups')).ok).toBe(true);
    expect(reached).toEqual(['/gw/v1/groups']);
    await first('/gw/v1/groups');
    expect(reached).toEqual(['/gw/v1/groups', '/gw/v1/groups']);
    early.provide('/gw/v1/x', '{"a":1}');
    expect(await (await first('/gw/v1/x')).json()).toEqual({ a: 1 });
    expect(early.take('/gw/v1/x')).toBeUndefined();
  });
});

describe('the first paint', () => {
  it("draws the app's chart in the skeleton's chart place from the bars the page carries, asking nothing, and marks its first candles", async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    await servePage(search);
    const { fetchImpl, reached } = counting();
    const first = paint(search, fetchImpl);
    expect(reached).toEqual([]);
    const place = document.querySelector<HTMLElement>('[data-testid="price-chart"]');
    expect(first.chart?.shows).toEqual({ target: SNEK, resolution: '60' });
    expect(place?.dataset.status).toBe('ready');
    expect(Number(place?.dataset.bars)).toBeGreaterThan(10);
    expect(place?.querySelectorAll('canvas').length).toBeGreaterThan(0);
    // The legend beside the chart's image, not in it.
    expect(place?.nextElementSibling?.getAttribute('data-testid')).toBe('chart-legend');
    expect(place?.nextElementSibling?.hasAttribute('hidden')).toBe(false);
    expect(performance.getEntriesByName('chart:candles')).toHaveLength(1);
    expect((first.info as { simulated?: boolean }).simulated).toBe(true);
  });

  it('hands the chart to the app, which takes it over where it is: no request for its bars, no second draw', async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    const { barsUrl } = await servePage(search);
    const { fetchImpl, reached } = counting();
    const first = paint(search, fetchImpl);
    const drawn = document.querySelector('.chart__view');
    const app = bed.open(`/${search}`, { prerendered: first.chart, fetchThrough: (fetch) => first.early.first(fetch) });
    const chart = await chartReady(app.container, SNEK);
    // The very element the first paint drew, now in the app's chart place, and the same bars.
    expect(chart.querySelector('.chart__view')).toBe(drawn);
    expect(performance.getEntriesByName('chart:candles')).toHaveLength(1);
    expect(app.fetched).not.toContain(barsUrl);
    expect(reached).not.toContain(barsUrl);
    // It follows the pair live from the bars it has.
    await waitFor(() => expect(chart.dataset.live).toBe('true'), { timeout: 10_000 });
  });

  it("draws the group's deepest pair when the page carries /info and its bars", async () => {
    const search = '?group=MinswapV2&res=15';
    const { info, barsUrl } = await servePage(search);
    const deepest = (info as { deepest: Record<string, string> }).deepest.MinswapV2;
    const { fetchImpl, reached } = counting();
    const first = paint(search, fetchImpl);
    expect(reached).toEqual([]);
    expect(first.chart?.shows).toEqual({ target: deepest, resolution: '15' });
    expect(barsUrl).toContain(`symbol=${deepest ?? ''}`);
  });

  it("asks the first bars itself when the page carries none, or carries those of another bar's bucket, and draws nothing", async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    const now = Date.now();
    const own = firstChartOf(search, undefined, now)?.url ?? '';
    await servePage(search, { now: now - 3_600_000 });
    const { fetchImpl, reached } = counting();
    const first = paint(search, fetchImpl, () => now);
    expect(reached).toEqual([own]);
    expect(first.chart).toBeUndefined();
    expect((await first.early.take(own))?.ok).toBe(true);

    await servePage(search, { bars: false, info: false });
    const second = counting();
    const again = paint(search, second.fetchImpl, () => now);
    expect(second.reached).toEqual([INFO_URL, own]);
    expect(again.chart).toBeUndefined();
    await again.early.take(INFO_URL);
    await again.early.take(own);
  });

  it("asks /info, then the group's deepest pair's bars, when the page carries neither", async () => {
    document.body.innerHTML = '<div id="root"></div>';
    const { fetchImpl, reached } = counting();
    const first = paint('?group=Aggregate&res=60', fetchImpl);
    await waitFor(() => expect(reached.filter((url) => url.startsWith('/gw/v1/history'))).toHaveLength(1));
    expect(reached[0]).toBe(INFO_URL);
    expect(first.chart).toBeUndefined();
  });

  it("asks the market overview's statistics, and draws no chart", async () => {
    await servePage('?view=markets&group=MinswapV2');
    const { fetchImpl, reached } = counting();
    const first = paint('?view=markets&group=MinswapV2', fetchImpl);
    expect(reached).toEqual(['/gw/v1/group-stats?group=MinswapV2']);
    expect(first.chart).toBeUndefined();
    await first.early.take('/gw/v1/group-stats?group=MinswapV2');
  });

  it('draws nothing from an answer that is not bars: the app asks again and says why', async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    const url = firstChartOf(search, undefined, Date.now())?.url ?? '';
    document.body.innerHTML = `<div id="root">${await renderSkeleton({ pathname: '/', search, preferences: pagePreferences(undefined), info: undefined })}</div>${inlinedBarsElement({ url, body: '{"s":"ok","t":[1],"o":[1]}' })}`;
    const first = paint(search, counting().fetchImpl);
    expect(first.chart).toBeUndefined();
  });

  it.each([
    ['a chart page', '/?symbol=ADA.SNEK_Aggregate_Pool1', {}, true],
    ['inverted, at a day', '/?inv=1&res=1D', {}, true],
    ['the market overview', '/?view=markets', {}, false],
    ['indicators in the URL', '/?ind=sma20', {}, false],
    ['indicators chosen before', '/', { indicators: 'rsi14' }, false],
    ['USD in the URL', '/?cur=usd', {}, false],
    ['USD chosen before', '/', { currency: 'usd' as const }, false],
    ['compare mode', '/', { compare: true }, false],
  ])('draws the chart for %s: %s', (_name, url, preferences, fits) => {
    expect(
      firstChartFits(parseSelection(new URL(url, 'http://x').search), { ...DEFAULT_PREFERENCES, ...preferences }),
    ).toBe(fits);
  });

  it('draws in the stored theme, inverted as the URL says', async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60&inv=1`;
    await servePage(search);
    const first = paint(
      search,
      counting().fetchImpl,
      Date.now,
      storageWith(JSON.stringify({ state: { theme: 'light' }, version: 1 })),
    );
    expect(document.documentElement.dataset.theme).toBe('light');
    const place = document.querySelector<HTMLElement>('[data-testid="price-chart"]');
    expect(place?.dataset.theme).toBe('light');
    expect(first.chart).toBeDefined();
    // Inverted: the price of one ADA in SNEK, far above one.
    expect(Number(place?.dataset.lastClose)).toBeGreaterThan(1);
  });
});

describe('the preferences the first paint draws with', () => {
  /** A storage that counts its openings, holding `theme`. */
  const counted = (theme: 'dark' | 'light' = 'dark') => {
    const opened = { count: 0 };
    const storage = () => {
      opened.count++;
      return storageWith(JSON.stringify({ state: { theme }, version: 1 }));
    };
    return { opened, storage };
  };

  it('are those the page was laid out with, the storage never opened: the chart looks as the skeleton around it', async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    await servePage(search, { preferences: { ...DEFAULT_PREFERENCES, theme: 'light', showTvl: false } });
    const { opened, storage } = counted();
    painted = firstPaint({ doc: document, search, storage, now: Date.now, fetch: counting().fetchImpl });
    expect(opened.count).toBe(0);
    expect(painted.chart).toBeDefined();
    expect(document.documentElement.dataset.theme).toBe('light');
    const place = document.querySelector<HTMLElement>('[data-testid="price-chart"]');
    expect(place?.dataset.theme).toBe('light');
    // The skeleton's own theme toggle says the same.
    expect(document.querySelector('[data-testid="theme-toggle"]')?.getAttribute('data-theme')).toBe('light');
  });

  it("decide whether the chart is drawn at all: indicators the page was laid out with are the app's to draw", async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    await servePage(search, { preferences: { ...DEFAULT_PREFERENCES, indicators: 'sma20' } });
    const { opened, storage } = counted();
    painted = firstPaint({ doc: document, search, storage, now: Date.now, fetch: counting().fetchImpl });
    expect(painted.chart).toBeUndefined();
    expect(opened.count).toBe(0);
  });

  it("are the stored ones where the page carries none (under Vite's servers)", async () => {
    const search = `?group=Aggregate&symbol=${SNEK}&res=60`;
    await servePage(search);
    const { opened, storage } = counted('light');
    painted = firstPaint({ doc: document, search, storage, now: Date.now, fetch: counting().fetchImpl });
    expect(opened.count).toBe(1);
    expect(painted.chart).toBeDefined();
    expect(document.documentElement.dataset.theme).toBe('light');
  });
});

describe('the stored preferences, read without the store', () => {
  it('are what the store persisted', async () => {
    const values = new Map<string, string>();
    const storage = {
      getItem: (k: string) => values.get(k) ?? null,
      setItem: (k: string, v: string) => void values.set(k, v),
      removeItem: (k: string) => void values.delete(k),
    };
    const store = createPreferencesStore(storage);
    store.getState().setTheme('light');
    store.getState().toggle('showTvl');
    store.getState().setTimeZone('local');
    store.getState().setIndicators('sma20');
    await Promise.resolve();
    expect(storedPreferences(storage)).toMatchObject({
      theme: 'light',
      showTvl: false,
      showVolume: true,
      timeZone: 'local',
      indicators: 'sma20',
      currency: 'ada',
      compare: false,
    });
  });

  it.each([
    ['nothing stored', null],
    ['not JSON', '{"state":'],
    ['no state', '{"version":1}'],
    ['a state that is not an object', '{"state":"dark"}'],
  ])('are the defaults with %s', (_name, value) => {
    expect(storedPreferences(storageWith(value))).toEqual(DEFAULT_PREFERENCES);
    expect(storedPreferences(undefined)).toEqual(DEFAULT_PREFERENCES);
  });

  it('take a default for each value of the wrong kind', () => {
    const read = storedPreferences(
      storageWith(
        JSON.stringify({
          state: { theme: 'blue', showVolume: 'no', logScale: true, timeZone: 3, currency: 'usd', indicators: 7 },
        }),
      ),
    );
    expect(read).toMatchObject({
      theme: 'dark',
      showVolume: true,
      logScale: true,
      timeZone: 'utc',
      currency: 'usd',
      indicators: '',
    });
  });
});

describe('the preferences cookie', () => {
  it('carries what the first screen shows to the server, and reads back the same', () => {
    const preferences = {
      ...DEFAULT_PREFERENCES,
      theme: 'light' as const,
      showTvl: false,
      timeZone: 'local' as const,
      indicators: 'sma20,rsi14',
      currency: 'usd' as const,
      watchlist: [{ symbol: SNEK, group: 'Aggregate' }],
    };
    const cookie = preferencesCookie(preferences);
    expect(cookie).toMatch(/^preferences=[^;\s]+; Path=\/; Max-Age=\d+; SameSite=Lax$/);
    const header = `other=1; ${cookie.split(';')[0] ?? ''}; last=2`;
    // The watchlist and the recent picks stay in the browser's storage.
    expect(preferencesFromCookie(header)).toEqual({ ...preferences, watchlist: [] });
  });

  it.each([
    ['no Cookie header', undefined],
    ['no preferences cookie', 'a=1; b=2'],
    ['a cookie that is not JSON', 'preferences=%7B%22theme'],
    ['a cookie of another shape', `preferences=${encodeURIComponent('"light"')}`],
  ])('are the defaults with %s', (_name, header) => {
    expect(preferencesFromCookie(header)).toEqual(DEFAULT_PREFERENCES);
  });
});

describe("the skeleton's first frame", () => {
  it("draws the brand's mark in the page itself, the favicon's picture: no image document to make before the first chart", async () => {
    const parser = new DOMParser();
    const page = parser.parseFromString(
      await renderSkeleton({ pathname: '/', search: '', preferences: pagePreferences(undefined), info: undefined }),
      'text/html',
    );
    const logo = page.querySelector('svg.topbar__logo');
    const favicon = parser.parseFromString(
      readFileSync(join(ROOT, 'public/favicon.svg'), 'utf8'),
      'image/svg+xml',
    ).documentElement;
    const shapes = (svg: Element) =>
      [...svg.children].map((shape) => [
        shape.tagName.toLowerCase(),
        Object.fromEntries([...shape.attributes].map((a) => [a.name, a.value])),
      ]);
    expect(logo?.getAttribute('viewBox')).toBe(favicon.getAttribute('viewBox'));
    expect(logo && shapes(logo)).toEqual(shapes(favicon));
    expect(logo?.getAttribute('aria-hidden')).toBe('true');
  });

  it('asks the stylesheet for no image (each would be fetched and decoded beside the first paint)', () => {
    const css = readFileSync(join(ROOT, 'src/app/styles/app.css'), 'utf8');
    expect(css.match(/url\([^)]*\)/g) ?? []).toEqual([]);
  });
});
