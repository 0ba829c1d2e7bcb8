import type { Page, Route } from '@playwright/test';
import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';
import { shiftsOf, watchShifts } from './support/layout-shift';

/**
 * The page's first paint (src/server/first-paint.ts, src/app/skeleton.tsx, src/app/first-paint.ts): the
 * server sends the app's own first render as the page's skeleton with the first bars inlined, the page's
 * one script draws the app's chart into the skeleton's chart place and it answers the pointer before
 * the app's code has run; the app then renders the same layout and takes the very chart over, and
 * nothing on the page moves meanwhile.
 */

/** The parts of the page whose places the skeleton gives (and the chart's place above all). */
const PARTS = ['.topbar', '.token-header', '.token-header__stats', '.toolbar', '.chart'] as const;

type Rect = { left: number; top: number; width: number; height: number };

async function rectsOf(page: Page): Promise<Record<string, Rect | null>> {
  return page.evaluate((parts) => {
    const out: Record<string, Rect | null> = {};
    for (const part of parts) {
      const r = document.querySelector(part)?.getBoundingClientRect();
      out[part] = r
        ? { left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) }
        : null;
    }
    return out;
  }, PARTS);
}

/** Holds the app's own code (its `start` chunk) until the returned function is called. */
async function holdAppCode(page: Page): Promise<() => void> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/start-[^/]*\.js$/, async (route: Route) => {
    await released;
    await route.continue();
  });
  return release;
}

/**
 * The page as the server sends it when the first bars did not come within its wait (a slow upstream):
 * without them inside, so the first paint asks them itself (and a route on /history sees that request).
 */
async function withoutPageBars(page: Page): Promise<void> {
  await page.route(
    (url) => url.pathname === '/',
    async (route) => {
      if (route.request().resourceType() !== 'document') return route.continue();
      const response = await route.fetch();
      const html = await response.text();
      expect(html).toContain('id="inlined-first-bars"');
      await route.fulfill({
        response,
        body: html.replace(/<script type="application\/json" id="inlined-first-bars"[^>]*>.*?<\/script>/s, ''),
      });
    },
  );
}

const marks = (page: Page, name: string) => page.evaluate((mark) => performance.getEntriesByName(mark).length, name);

for (const { viewport, link } of [
  { viewport: { width: 1280, height: 800 }, link: false },
  { viewport: { width: 1024, height: 768 }, link: false },
  { viewport: { width: 390, height: 844 }, link: false },
  { viewport: { width: 390, height: 844 }, link: true },
  { viewport: { width: 700, height: 800 }, link: true },
]) {
  test(`first paint at ${viewport.width} px${link ? ', a shared link at 15 minutes, inverted' : ''}: the app's chart answers the pointer before the app's code runs, and the app takes it over where it is`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize(viewport);
    const deepest = await deepestPool(request, 'Aggregate');
    await watchShifts(page);
    const release = await holdAppCode(page);
    await page.goto(link ? `/?group=Aggregate&symbol=${deepest.symbol}&res=15&inv=1` : '/');
    // The app's code is held back: what is on screen is the skeleton and the chart the first paint drew.
    await expect.poll(() => marks(page, 'chart:candles'), { timeout: 15_000 }).toBe(1);
    const chart = page.getByTestId('price-chart');
    await expect(chart).toHaveAttribute('data-status', 'ready');
    await expect(chart).toHaveAttribute('data-resolution', link ? '15' : '60');
    expect(Number(await chart.getAttribute('data-bars'))).toBeGreaterThan(10);
    // The skeleton is the app's first render: its controls say what the app's will, disabled meanwhile.
    await expect(page.getByTestId(link ? 'resolution-15' : 'resolution-60')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('resolution-5')).toBeDisabled();
    const [base, quote] = deepest.symbol.replace(/_.*$/, '').split('.');
    await expect(page.getByTestId('invert-toggle')).toHaveText(link ? `${base}/${quote} ⇄` : '–/– ⇄');
    await expect(page.getByTestId('simulated-badge')).toHaveText('Simulated market');
    expect(await page.evaluate(() => performance.getEntriesByName('app:start').length)).toBe(0);
    // The chart answers the pointer: the legend shows the bar under it.
    const box = await chart.boundingBox();
    const legend = page.getByTestId('chart-legend');
    await expect(legend).toBeVisible();
    const newest = await legend.textContent();
    await page.mouse.move((box?.x ?? 0) + (box?.width ?? 0) * 0.2, (box?.y ?? 0) + (box?.height ?? 0) * 0.4);
    await expect.poll(() => marks(page, 'chart:crosshair')).toBe(1);
    await expect(legend).not.toHaveText(newest ?? '');
    const skeleton = await rectsOf(page);
    // Marks the element the first paint drew, to find it again in the app's page.
    await chart.locator('.chart__view').evaluate((element) => element.setAttribute('data-first-paint', ''));
    // Nothing of the skeleton is reachable or announced wrongly: axe finds nothing to say.
    expect(await violations(page), 'the skeleton').toEqual([]);
    // A menu of the skeleton does not open under the pointer (the app's render would close it again).
    const menu = page.getByTestId('indicator-menu');
    if (await menu.isVisible()) {
      await menu.locator('summary').click({ force: true });
      expect(await menu.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
    }

    release();
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('app:start').length)).toBe(1);
    await waitForCandles(page, { symbol: deepest.symbol });
    await expect(page.getByTestId('invert-toggle')).toHaveText(link ? `${base}/${quote} ⇄` : `${quote}/${base} ⇄`);
    await expect(page.getByTestId('resolution-5')).toBeEnabled();
    // The app renders every part where the skeleton had it, and its chart is the one the first paint drew.
    expect(await rectsOf(page)).toEqual(skeleton);
    await expect(chart.locator('.chart__view[data-first-paint]')).toHaveCount(1);
    expect(await marks(page, 'chart:candles')).toBe(1);
    await expect(page.getByTestId('token-header')).toBeVisible();
    await expect(page.getByTestId('header-price')).toBeVisible();
    // And nothing on the page moved meanwhile (the header, the tape and the pools coming in).
    await expect(page.getByTestId('tape-row').first()).toBeVisible({ timeout: 15_000 });
    expect(await rectsOf(page)).toEqual(skeleton);
    expect(await shiftsOf(page)).toBe(0);
  });
}

test('first paint: a shared link is drawn at once in the stored theme, inverted as the link says, and the next page is laid out with the stored preferences', async ({
  page,
  request,
  baseURL,
}) => {
  const deepest = await deepestPool(request, 'Aggregate');
  // A returning user: the preferences in the browser's storage, and the cookie the app wrote of them.
  const stored = { theme: 'light', showTvl: false };
  await page
    .context()
    .addCookies([{ name: 'preferences', value: encodeURIComponent(JSON.stringify(stored)), url: baseURL ?? '' }]);
  await page.addInitScript((state) => {
    if (!sessionStorage.getItem('seeded')) {
      localStorage.setItem('cardano-dex-charts:preferences', JSON.stringify({ state, version: 1 }));
      sessionStorage.setItem('seeded', '1');
    }
  }, stored);
  // The page's first paint draws with the preferences the page carries (it never opens the storage).
  const read: string[] = [];
  await page.exposeFunction('__storageRead', (where: string) => void read.push(where));
  await page.addInitScript(() => {
    const getItem = Storage.prototype.getItem;
    Storage.prototype.getItem = function (this: Storage, key: string) {
      (window as unknown as { __storageRead: (where: string) => void }).__storageRead(
        performance.getEntriesByName('chart:candles').length > 0 ? 'after' : 'before',
      );
      return getItem.call(this, key);
    };
  });
  await page.goto(`/?group=Aggregate&symbol=${deepest.symbol}&res=15&inv=1`);
  const attributes = await waitForCandles(page, { symbol: deepest.symbol, resolution: '15' });
  expect(await marks(page, 'chart:candles')).toBe(1);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-theme', 'light');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByTestId('invert-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(attributes.bars).toBeGreaterThan(10);
  expect(read.filter((when) => when === 'before')).toEqual([]);
  // The app wrote the preferences the server lays the next page out with.
  const next = await (await page.request.get(`/?group=Aggregate&symbol=${deepest.symbol}`)).text();
  expect(next).toMatch(/data-testid="theme-toggle" data-theme="light"/);
  expect(next).toMatch(/aria-pressed="false" data-testid="toggle-tvl"/);
});

test("first paint: the page is in the user's theme from its first frame, drawn before any script has run", async ({
  browser,
  baseURL,
}) => {
  // No script at all: what the browser draws of the page as it is sent.
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    const background = async () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.goto(`${baseURL ?? ''}/`);
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    const dark = await background();
    await context.addCookies([
      { name: 'preferences', value: encodeURIComponent(JSON.stringify({ theme: 'light' })), url: baseURL ?? '' },
    ]);
    await page.goto(`${baseURL ?? ''}/`);
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    await expect(page.getByTestId('theme-toggle')).toHaveAttribute('data-theme', 'light');
    expect(await background()).not.toBe(dark);
  } finally {
    await context.close();
  }
});

test("first paint: no chart drawn early where the app's first chart would not look like it (indicators)", async ({
  page,
}) => {
  await page.goto('/?ind=sma20');
  await waitForCandles(page);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-indicators', /SMA/);
  // The app's chart drew the bars itself, once.
  expect(await marks(page, 'chart:candles')).toBe(1);
  expect(
    await page.evaluate(
      () =>
        (performance.getEntriesByName('chart:candles')[0]?.startTime ?? 0) >
        (performance.getEntriesByName('app:start')[0]?.startTime ?? Infinity),
    ),
  ).toBe(true);
});

test("first paint: the market overview's skeleton is the overview loading its pairs, and no chart", async ({
  page,
}) => {
  const release = await holdAppCode(page);
  await page.goto('/?view=markets&group=Aggregate');
  await expect(page.getByTestId('market-overview')).toHaveAttribute('data-status', 'loading');
  await expect(page.getByText('Loading the pairs of Aggregate (all DEXs)…')).toBeVisible();
  await expect(page.getByTestId('price-chart')).toHaveCount(0);
  release();
  await expect(page.getByTestId('market-overview')).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
});

test("first paint: the market overview's head asks the app's chunks and the list at once, each once, and the app's first render shows the rows", async ({
  page,
}) => {
  const asked: { url: string }[] = [];
  page.on('request', (r) => asked.push({ url: new URL(r.url()).pathname + new URL(r.url()).search }));
  const release = await holdAppCode(page);
  const listAnswered = page.waitForResponse((r) => r.url().endsWith('/gw/v1/group-stats?group=Aggregate'));
  await page.goto('/?view=markets&group=Aggregate');
  const preloads = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"], link[rel="preload"]')].map(
      (l) => `${l.rel} ${new URL(l.href).pathname}${new URL(l.href).search}`,
    ),
  );
  expect(preloads.filter((p) => p.startsWith('modulepreload /assets/start-'))).toHaveLength(1);
  expect(preloads.filter((p) => p.startsWith('modulepreload /assets/overview-'))).toHaveLength(1);
  expect(preloads.at(-1)).toBe('preload /gw/v1/group-stats?group=Aggregate');
  // Asked by the head while the app's code is held: not once the page's script has run.
  await listAnswered;
  expect(asked.some((r) => /\/assets\/overview-[^/]*\.js$/.test(r.url))).toBe(true);
  // The app's first render (no "loading" render before it): the rows, from the preload's one answer.
  const statuses: string[] = [];
  await page.exposeFunction('__overviewStatus', (status: string) => statuses.push(status));
  await page.evaluate(() => {
    const w = window as unknown as { __overviewStatus: (s: string) => void };
    new MutationObserver(() => {
      const status = document.querySelector('[data-testid="market-overview"]')?.getAttribute('data-status');
      if (status) w.__overviewStatus(status);
    }).observe(document.getElementById('root') as HTMLElement, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    });
  });
  release();
  await expect(page.getByTestId('market-overview')).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
  await expect(page.getByTestId('overview-row').first()).toBeVisible();
  expect(statuses[0]).toBe('ready');
  expect(asked.filter((r) => r.url === '/gw/v1/group-stats?group=Aggregate')).toHaveLength(1);
  for (const chunk of preloads
    .filter((p) => p.startsWith('modulepreload '))
    .map((p) => p.slice('modulepreload '.length))) {
    expect(
      asked.filter((r) => r.url === chunk),
      chunk,
    ).toHaveLength(1);
  }
});

test('first paint: the page carries its first bars, neither the first paint nor the app asks for them, and they are drawn from the one script before DOMContentLoaded', async ({
  page,
}) => {
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/gw/v1/history?')) asked.push(r.url());
  });
  await page.goto('/?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
  await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
  expect(await marks(page, 'chart:candles')).toBe(1);
  const inline = await page.evaluate(() => document.getElementById('inlined-first-bars')?.dataset.url);
  expect(inline).toMatch(/^\/gw\/v1\/history\?symbol=ADA\.SNEK_Aggregate_Pool1&resolution=60min&/);
  expect(asked.map((url) => new URL(url).pathname + new URL(url).search)).not.toContain(inline);
  const timing = await page.evaluate(() => {
    const candles = performance.getEntriesByName('chart:candles')[0]?.startTime ?? Number.NaN;
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'))
      .filter((r) => r.startTime < candles);
    return {
      candles,
      loaded: navigation.domContentLoadedEventStart,
      scripts: scripts.map((r) => new URL(r.name).pathname),
    };
  });
  expect(timing.candles).toBeLessThanOrEqual(timing.loaded);
  expect(timing.scripts).toHaveLength(1);
  expect(timing.scripts[0]).toMatch(/^\/assets\/index-[\w-]+\.js$/);
});

test("first paint: the app's code is asked after the frame that draws the first paint's chart, and the app then starts", async ({
  page,
}) => {
  // Every frame's time, from the page's start (an animation-frame loop, as the bench's probes).
  await page.addInitScript(() => {
    const frames: number[] = [];
    (window as unknown as { __frames: number[] }).__frames = frames;
    const loop = (time: number) => {
      frames.push(time);
      if (frames.length < 600) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  await page.goto('/');
  await expect
    .poll(() => page.evaluate(() => performance.getEntriesByName('app:start').length), { timeout: 15_000 })
    .toBe(1);
  const timing = await page.evaluate(() => {
    const candles = performance.getEntriesByName('chart:candles')[0]?.startTime ?? Number.NaN;
    const frames = (window as unknown as { __frames: number[] }).__frames;
    const start = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) =>
      /\/assets\/start-[\w-]+\.js$/.test(r.name),
    );
    return { candles, frame: frames.find((t) => t > candles) ?? Number.NaN, asked: start?.startTime ?? Number.NaN };
  });
  // The chart was drawn by the page's script, a frame came after it, and only then was the app's chunk asked.
  expect(timing.candles).toBeGreaterThan(0);
  expect(timing.frame).toBeGreaterThan(timing.candles);
  expect(timing.asked).toBeGreaterThan(timing.frame);
  await waitForCandles(page);
});

test("first paint: the page carries its stylesheet, which the page's policy lets apply: the stylesheet is never asked", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  // What the browser asked on the network, whatever it lists in its resource timing (which a browser
  // version may fill differently for a preload, a cached or a disabled stylesheet).
  const requested: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'stylesheet' || new URL(r.url()).pathname.endsWith('.css')) requested.push(r.url());
  });
  await page.goto('/');
  await waitForCandles(page);
  // The app's render in place of the skeleton: its chunks (and what they list) loaded.
  await expect(page.locator('fieldset.skeleton')).toHaveCount(0);
  const styles = await page.evaluate(() => ({
    // No stylesheet link at all: none built into the page is left, and the app's chunk loader adds none
    // (no chunk lists the stylesheet: vite.config.ts, cssCodeSplit).
    links: [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => l.getAttribute('href')),
    inline: [...document.querySelectorAll('head style')].map((s) => (s.textContent ?? '').length),
    // A rule of the app's stylesheet, applied: the top bar is a flex row.
    topbar: getComputedStyle(document.querySelector('.topbar') as Element).display,
    asked: (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((r) => r.name.endsWith('.css'))
      .map((r) => new URL(r.name).pathname),
  }));
  expect(styles.links).toEqual([]);
  expect(styles.inline.length).toBeGreaterThan(0);
  expect(Math.min(...styles.inline)).toBeGreaterThan(1000);
  expect(styles.topbar).toBe('flex');
  expect(styles.asked).toEqual([]);
  expect(requested).toEqual([]);
  expect(violations).toEqual([]);
});

test('first paint: nothing is drawn before the skeleton is in whole: the page holds its rendering until the element after #root', async ({
  page,
}) => {
  await page.goto('/');
  await waitForCandles(page);
  const held = await page.evaluate(() => {
    const link = document.querySelector('head link[rel="expect"][blocking="render"]');
    const target = document.getElementById((link?.getAttribute('href') ?? '').slice(1));
    const root = document.getElementById('root');
    return {
      link: link !== null,
      target: target?.tagName,
      afterRoot:
        root && target
          ? (root.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 && !root.contains(target)
          : false,
    };
  });
  expect(held).toEqual({ link: true, target: 'NOSCRIPT', afterRoot: true });
  // Drawn all the same: the first contentful paint came, with the skeleton whole.
  expect(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint').length)).toBe(1);
});

test("first paint: when the first bars fail, nothing is drawn early and the app says why in the chart's place", async ({
  page,
}) => {
  await withoutPageBars(page);
  await page.route(/\/gw\/v1\/history\?/, (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ s: 'error', errmsg: 'upstream unavailable (test)' }),
    }),
  );
  await page.goto('/?symbol=ADA.SNEK_Aggregate_Pool1');
  await expect(page.getByTestId('chart-error')).toBeVisible({ timeout: 15_000 });
  expect(await marks(page, 'chart:candles')).toBe(0);
});

test('first paint: with the first bars slow, the skeleton stands meanwhile (the page is not blank), and the chart draws them when they come', async ({
  page,
}) => {
  await withoutPageBars(page);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/gw\/v1\/history\?/, async (route) => {
    await held;
    await route.continue();
  });
  const releaseApp = await holdAppCode(page);
  await page.goto('/?symbol=ADA.SNEK_Aggregate_Pool1');
  // The bars and the app's code are held: the skeleton stands in the chart page's place meanwhile.
  await expect(page.getByTestId('price-chart')).toBeVisible({ timeout: 2_000 });
  await expect(page.getByTestId('simulated-badge')).toHaveText('Simulated market');
  expect(await marks(page, 'chart:candles')).toBe(0);
  releaseApp();
  release();
  await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
});
