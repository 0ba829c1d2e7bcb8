import { describe, expect, it } from 'vitest';
import { takeEarly } from '../../src/app/boot/early-requests';
import { bootRequests, inlineInfo, INFO_URL } from '../../src/app/boot/first-requests';
import { firstBarsUrl } from '../../src/shared/first-chart';
import { historyColumnsOf } from '../../src/app/boot/boot-chart';
import { pictureFits } from '../../src/app/boot/picture-fits';
import { sourceBadgeOf } from '../../src/app/features/shell/lib/source-badge';
import { parseSelection } from '../../src/app/lib/selection';
import { DEFAULT_PREFERENCES, PREFERENCES_KEY, storedPreferences } from '../../src/app/stores/preferences';
import { createPreferencesStore } from '../../src/app/stores/preferences-store';
import type { FetchLike } from '../../src/datafeed';
import { appTestBed } from './render-app';

/**
 * The page's first picture of the chart (src/app/boot.ts, boot/boot-chart.ts): what it reads before the
 * app's code has loaded (the stored preferences, /info, a copy of the first bars) and when it is drawn.
 * The drawing itself, its place and its hand-over to the app's chart are browser flows
 * (e2e/17-page-frame.spec.ts).
 */

const bed = appTestBed();
const SNEK = 'ADA.SNEK_Aggregate_Pool1';

/** A Storage holding one value under the preferences' key. */
const storageWith = (value: string | null) => ({ getItem: (key: string) => (key === PREFERENCES_KEY ? value : null) });

describe('the stored preferences, read without the store', () => {
  it('are what the store persisted', async () => {
    const values = new Map<string, string>();
    const storage = { getItem: (k: string) => values.get(k) ?? null, setItem: (k: string, v: string) => void values.set(k, v), removeItem: (k: string) => void values.delete(k) };
    const store = createPreferencesStore(storage);
    store.getState().setTheme('light');
    store.getState().toggle('showTvl');
    store.getState().setTimeZone('local');
    store.getState().setIndicators('sma20');
    await Promise.resolve();
    expect(storedPreferences(storage)).toMatchObject({ theme: 'light', showTvl: false, showVolume: true, timeZone: 'local', indicators: 'sma20', currency: 'ada', compare: false });
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
    const read = storedPreferences(storageWith(JSON.stringify({ state: { theme: 'blue', showVolume: 'no', logScale: true, timeZone: 3, currency: 'usd', indicators: 7 } })));
    expect(read).toMatchObject({ theme: 'dark', showVolume: true, logScale: true, timeZone: 'utc', currency: 'usd', indicators: '' });
  });
});

describe('the picture', () => {
  it.each([
    ['a chart page', '/?symbol=ADA.SNEK_Aggregate_Pool1', {}, true],
    ['inverted, at a day', '/?inv=1&res=1D', {}, true],
    ['the market overview', '/?view=markets', {}, false],
    ['indicators in the URL', '/?ind=sma20', {}, false],
    ['indicators chosen before', '/', { indicators: 'rsi14' }, false],
    ['USD in the URL', '/?cur=usd', {}, false],
    ['USD chosen before', '/', { currency: 'usd' as const }, false],
    ['compare mode', '/', { compare: true }, false],
  ])('is drawn for %s: %s', (_name, url, preferences, fits) => {
    expect(pictureFits(parseSelection(new URL(url, 'http://x').search), { ...DEFAULT_PREFERENCES, ...preferences })).toBe(fits);
  });

  it('draws a /history answer with bars only', async () => {
    const body: unknown = await (await bed.tp.fetch(`/gw/v1/history?symbol=${SNEK}&resolution=60min&to=${Math.floor(Date.now() / 1000) + 3600}&countback=300&include_tvl=true`)).json();
    const columns = historyColumnsOf(body);
    expect(columns?.t.length).toBeGreaterThan(10);
    expect(columns?.tvl?.length).toBe(columns?.t.length);
    const ok = body as Record<string, unknown>;
    expect(historyColumnsOf({ s: 'no_data', nextTime: 1 })).toBeUndefined();
    expect(historyColumnsOf({ ...ok, t: [] })).toBeUndefined();
    expect(historyColumnsOf({ ...ok, c: (ok.c as number[]).slice(1) })).toBeUndefined();
    expect(historyColumnsOf({ ...ok, o: (ok.o as unknown[]).map(String) })).toBeUndefined();
    expect(historyColumnsOf({ ...ok, tvl: [1] })).toBeUndefined();
    expect(historyColumnsOf({ ...ok, s: 'error' })).toBeUndefined();
    expect(historyColumnsOf(null)).toBeUndefined();
  });

  it('gets a copy of the first bars and /info, and the app still takes the answers themselves', async () => {
    const fetchImpl: FetchLike = (input, init) => bed.tp.fetch(input, init);
    const answers = bootRequests(`?group=Aggregate&symbol=${SNEK}&res=60`, fetchImpl, Date.now, { copyFirstBars: true });
    const first = await answers.firstBars;
    expect(first?.target).toBe(SNEK);
    const copy: unknown = await (await first?.copy)?.json();
    const info = await answers.info;
    expect(sourceBadgeOf(info as never)?.testId).toBe('simulated-badge');
    // The app's first request of the bars' URL takes the answer, whose body is still there to read.
    const url = `/gw/v1/history?symbol=${SNEK}&resolution=60min&to=`;
    const asked = [...Array(2).keys()].map((i) => {
      const to = (Math.floor(Date.now() / 1000 / 3600) + 1 + i) * 3600;
      return `${url}${to}&countback=300&include_tvl=true`;
    });
    const taken = asked.map((u) => takeEarly(u)).find((p) => p !== undefined);
    expect(taken).toBeDefined();
    expect(await (await taken)?.json()).toEqual(copy);
    expect(historyColumnsOf(copy)).toBeDefined();
  });

  it('asks the deepest pair\'s bars at once when the page carries /info, and takes its badge from it', async () => {
    const body: unknown = await (await bed.tp.fetch(INFO_URL)).json();
    // Asked once per page: an earlier test's boot requests are not this one's.
    takeEarly(INFO_URL);
    const deepest = (body as { deepest: Record<string, string> }).deepest.Aggregate;
    const asked: string[] = [];
    // /info would never answer here: the bars must not wait for it.
    const fetchImpl: FetchLike = (input, init) => {
      asked.push(input);
      return input === INFO_URL ? new Promise<Response>(() => undefined) : bed.tp.fetch(input, init);
    };
    const answers = bootRequests('?group=Aggregate&res=60', fetchImpl, Date.now, { copyFirstBars: true, inlineInfo: body });
    const bars = firstBarsUrl('60', deepest, Date.now());
    const first = await answers.firstBars;
    // The bars only: the app's first /info is answered with the page's copy.
    expect(asked).toEqual([bars]);
    expect(await (await takeEarly(INFO_URL))?.json()).toEqual(body);
    expect(first?.target).toBe(deepest);
    expect(sourceBadgeOf((await answers.info) as never)?.text).toBe('Simulated market');
    expect(historyColumnsOf(await (await (await answers.firstBars)?.copy)?.json())).toBeDefined();
    if (bars) takeEarly(bars);
  });

  it('reads the page\'s copy of /info, and nothing from a page without one or with one that is not JSON', () => {
    const page = (text: string | undefined) => ({ getElementById: (id: string) => (id === 'boot-info' && text !== undefined ? ({ textContent: text } as HTMLElement) : null) });
    expect(inlineInfo(page('{"simulated":true}'))).toEqual({ simulated: true });
    expect(inlineInfo(page(undefined))).toBeUndefined();
    expect(inlineInfo(page('{"simulated":'))).toBeUndefined();
    expect(inlineInfo(page(''))).toBeUndefined();
  });

  it('copies nothing when it is not drawn', async () => {
    const answers = bootRequests(`?group=Aggregate&symbol=${SNEK}&res=5`, (input, init) => bed.tp.fetch(input, init), Date.now);
    expect(await answers.firstBars).toBeUndefined();
    const to = (Math.floor(Date.now() / 1000 / 300) + 1) * 300;
    await takeEarly(`/gw/v1/history?symbol=${SNEK}&resolution=5min&to=${to}&countback=300&include_tvl=true`);
  });
});
