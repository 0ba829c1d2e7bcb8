import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { earlyFirst, startEarly, takeEarly } from '../../src/app/boot/early-requests';
import { bootRequests, INFO_URL } from '../../src/app/boot/first-requests';
import { firstBarsUrl, firstChartOf, firstPage, PAGE_BARS } from '../../src/shared/first-chart';
import type { FetchLike } from '../../src/datafeed';
import { appTestBed, chartElement } from './render-app';

/**
 * The page's boot requests (src/app/boot.ts): /info and the first chart's bars, asked before the app's
 * code has loaded, and taken by the app's own first requests of the same URLs instead of asking twice.
 */

const bed = appTestBed();
const SNEK = 'ADA.SNEK_Aggregate_Pool1';

/** The platform's fetch, counting what reaches it by path. */
function counting() {
  const reached: string[] = [];
  const fetchImpl: FetchLike = (input, init) => {
    reached.push(input);
    return bed.tp.fetch(input, init);
  };
  return { reached, fetchImpl, count: (prefix: string) => reached.filter((url) => url.startsWith(prefix)).length };
}

describe('the first page of bars', () => {
  it('ends at the end of the current bar\'s bucket, the same all through the bucket', () => {
    const hour = 3600;
    const start = 1_795_590_000 - (1_795_590_000 % hour);
    const first = firstPage('60', (start + 1) * 1000);
    expect(first).toEqual({ from: start + hour - PAGE_BARS * hour, to: start + hour, countBack: PAGE_BARS });
    expect(firstPage('60', (start + hour - 1) * 1000)).toEqual(first);
    expect(firstPage('60', (start + hour) * 1000).to).toBe(start + 2 * hour);
    expect(firstPage('1D', (start + 1) * 1000).to % 86_400).toBe(0);
  });
});

describe('the boot requests', () => {
  it('are taken once by the app\'s first request of the same URL', async () => {
    const { fetchImpl, count } = counting();
    startEarly('/gw/v1/groups', fetchImpl);
    startEarly('/gw/v1/groups', fetchImpl);
    expect(count('/gw/v1/groups')).toBe(1);
    const fetchFirst = earlyFirst(fetchImpl);
    expect((await fetchFirst('/gw/v1/groups')).ok).toBe(true);
    expect(count('/gw/v1/groups')).toBe(1);
    await fetchFirst('/gw/v1/groups');
    expect(count('/gw/v1/groups')).toBe(2);
    expect(takeEarly('/gw/v1/groups')).toBeUndefined();
  });

  it.each([
    ['a shared link', `/?group=Aggregate&symbol=${SNEK}&res=60`, SNEK],
    ['a pool ID at 15 minutes', '/?group=MinswapV2&res=15', undefined],
    ['the group\'s deepest pair', '/', undefined],
  ])('ask what the chart asks first, for %s: the server sees /info and the first bars once', async (_name, url, symbol) => {
    const { fetchImpl, reached } = counting();
    let target = symbol;
    if (url.includes('MinswapV2')) {
      // A pool ID in the URL (uppercase, as a user may paste it): the chart asks by the lowercase ID.
      const info = (await (await bed.tp.fetch('/gw/v1/info')).json()) as { deepest: Record<string, string> };
      target = info.deepest.MinswapV2?.toUpperCase();
    }
    const page = target !== undefined && symbol === undefined ? `${url}&symbol=${target}` : url;
    bootRequests(page.slice(1), fetchImpl);
    await waitFor(() => expect(reached.filter((u) => u.startsWith('/gw/v1/history'))).toHaveLength(1));
    const early = reached.find((u) => u.startsWith('/gw/v1/history')) ?? '';
    const app = bed.open(page, { fetchThrough: earlyFirst });
    await waitFor(() => expect(chartElement(app.container).dataset.status).toBe('ready'), { timeout: 10_000 });
    // The app's requests of both URLs never reached the network (its fetch records those that do):
    // it took the boot's answers, which are gone now.
    expect(reached.filter((u) => u === INFO_URL)).toHaveLength(1);
    expect(reached.filter((u) => u === early)).toHaveLength(1);
    expect(app.fetched).not.toContain(INFO_URL);
    expect(app.fetched).not.toContain(early);
    expect(takeEarly(early)).toBeUndefined();
    expect(takeEarly(INFO_URL)).toBeUndefined();
  });

  it('take the page\'s own answer to the first bars (the server put it in the page): only /info is asked, and the chart takes that answer', async () => {
    const { fetchImpl, reached } = counting();
    const page = `/?group=Aggregate&symbol=${SNEK}&res=60`;
    const url = firstChartOf(page.slice(1), undefined, Date.now())?.url ?? '';
    const body = await (await bed.tp.fetch(url)).text();
    const answers = bootRequests(page.slice(1), fetchImpl, Date.now, { copyFirstBars: true, inlineBars: { url, body } });
    expect(reached).toEqual([INFO_URL]);
    // Known at once, for the picture drawn in the boot script's own run.
    expect(answers.inPage).toEqual({ target: SNEK, body });
    expect(await (await (await answers.firstBars)?.copy)?.text()).toBe(body);
    const app = bed.open(page, { fetchThrough: earlyFirst });
    await waitFor(() => expect(chartElement(app.container).dataset.status).toBe('ready'), { timeout: 10_000 });
    expect(reached.filter((u) => u.startsWith('/gw/v1/history'))).toEqual([]);
    expect(app.fetched).not.toContain(url);
    expect(takeEarly(url)).toBeUndefined();
  });

  it('ask the first bars when the page\'s answer is of another URL (the server\'s clock in another bar\'s bucket)', async () => {
    const { fetchImpl, reached } = counting();
    const page = `?group=Aggregate&symbol=${SNEK}&res=60`;
    const now = Date.now();
    const own = firstChartOf(page, undefined, now)?.url ?? '';
    const other = firstChartOf(page, undefined, now - 3_600_000)?.url ?? '';
    expect(other).not.toBe(own);
    const answers = bootRequests(page, fetchImpl, () => now, { inlineBars: { url: other, body: '{"s":"no_data"}' } });
    expect(reached).toEqual([INFO_URL, own]);
    expect(answers.inPage).toBeUndefined();
    expect(takeEarly(other)).toBeUndefined();
    expect((await takeEarly(own))?.ok).toBe(true);
    await takeEarly(INFO_URL);
  });

  it('hold the group\'s deepest pair\'s bars at once when the page carries them and /info, and only then', async () => {
    const info = (await (await bed.tp.fetch(INFO_URL)).json()) as { deepest: Record<string, string> };
    const deepest = info.deepest.MinswapV2 ?? '';
    const page = '?group=MinswapV2&res=15';
    const now = Date.now();
    const url = firstChartOf(page, info, now)?.url ?? '';
    expect(url).toContain(encodeURIComponent(deepest));
    const body = await (await bed.tp.fetch(url)).text();
    const { fetchImpl, reached } = counting();
    const both = bootRequests(page, fetchImpl, () => now, { inlineInfo: info, inlineBars: { url, body } });
    expect(both.inPage).toEqual({ target: deepest, body });
    expect(reached).toEqual([]);
    expect((await takeEarly(url))?.ok).toBe(true);
    takeEarly(INFO_URL);
    // Without the page's /info the deepest pair is known only once /info has come: not at once.
    const barsOnly = bootRequests(page, fetchImpl, () => now, { inlineBars: { url, body } });
    expect(barsOnly.inPage).toBeUndefined();
    expect((await barsOnly.firstBars)?.target).toBeUndefined();
    await takeEarly(INFO_URL);
    takeEarly(url);
    // The market overview draws no chart.
    const overview = bootRequests('?view=markets&group=MinswapV2', fetchImpl, () => now, { inlineInfo: info, inlineBars: { url, body } });
    expect(overview.inPage).toBeUndefined();
    takeEarly(INFO_URL);
    takeEarly('/gw/v1/group-stats?group=MinswapV2');
  });

  it('ask what the market overview asks first: /info and the group\'s statistics once, and no bars', async () => {
    const { fetchImpl, reached } = counting();
    const page = '/?view=markets&group=MinswapV2';
    bootRequests(page.slice(1), fetchImpl);
    const stats = '/gw/v1/group-stats?group=MinswapV2';
    expect(reached).toEqual([INFO_URL, stats]);
    const app = bed.open(page, { fetchThrough: earlyFirst });
    await waitFor(() => expect(app.getByTestId('market-overview')).toHaveAttribute('data-status', 'ready'), { timeout: 10_000 });
    expect(reached.filter((u) => u === stats)).toHaveLength(1);
    expect(app.fetched).not.toContain(stats);
    expect(reached.filter((u) => u.startsWith('/gw/v1/history'))).toEqual([]);
    expect(takeEarly(stats)).toBeUndefined();
  });

  it('ask no bars before the symbol is resolved when the URL names a token ticker', () => {
    expect(firstBarsUrl('60', 'SNEK', Date.now())).toBeUndefined();
    expect(firstBarsUrl('60', SNEK, Date.now())).toMatch(/^\/gw\/v1\/history\?symbol=ADA\.SNEK_Aggregate_Pool1&resolution=60min&to=\d+&countback=300&include_tvl=true$/);
  });
});
