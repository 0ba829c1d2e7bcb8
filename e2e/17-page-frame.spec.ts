import type { Page, Route } from '@playwright/test';
import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';

/**
 * The page frame (index.html) and the page's first picture of the chart (src/app/boot.ts,
 * src/app/boot/boot-chart.ts): the chart page's layout and the first bars are on screen before the
 * app's code has run, where the app then puts the same things; the app's chart takes the picture over.
 */

/** The parts of the page whose places the frame must give (and the chart's place above all). */
const PARTS = ['.topbar', '.token-header', '.token-header__stats', '.toolbar', '.chart'] as const;

type Rect = { left: number; top: number; width: number; height: number };

async function rectsOf(page: Page): Promise<Record<string, Rect | null>> {
  return page.evaluate((parts) => {
    const out: Record<string, Rect | null> = {};
    for (const part of parts) {
      const r = document.querySelector(part)?.getBoundingClientRect();
      out[part] = r ? { left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) } : null;
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
 * without them inside, so the boot script asks them itself (and a route on /history sees that request).
 */
async function withoutPageBars(page: Page): Promise<void> {
  await page.route((url) => url.pathname === '/', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    const html = await response.text();
    expect(html).toContain('id="boot-bars"');
    await route.fulfill({ response, body: html.replace(/<script type="application\/json" id="boot-bars"[^>]*>.*?<\/script>/s, '') });
  });
}

/** Before the page's scripts: the picture's place at its mark, and the page's layout shifts. */
async function watchPicture(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __picture?: unknown; __shifts?: number };
    w.__shifts = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!entry.hadRecentInput) w.__shifts = (w.__shifts ?? 0) + entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((list) => {
      if (list.getEntriesByName('chart:picture').length === 0) return;
      const r = document.querySelector('[data-testid="chart-picture"]')?.getBoundingClientRect();
      w.__picture = {
        rect: r ? { left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) } : null,
        theme: document.documentElement.dataset.theme,
        appRendered: document.getElementById('page-frame') === null,
        canvases: document.querySelectorAll('[data-testid="chart-picture"] canvas').length,
      };
    }).observe({ type: 'mark' });
  });
}

for (const { viewport, link } of [
  { viewport: { width: 1280, height: 800 }, link: false },
  { viewport: { width: 1024, height: 768 }, link: false },
  { viewport: { width: 390, height: 844 }, link: false },
  { viewport: { width: 390, height: 844 }, link: true },
  { viewport: { width: 700, height: 800 }, link: true },
]) {
  test(`page frame at ${viewport.width} px${link ? ', a shared link at 15 minutes, inverted' : ''}: the frame lays the page out as the app does, and the first bars are drawn in the chart's place before the app's code runs`, async ({ page, request }) => {
    await page.setViewportSize(viewport);
    const deepest = await deepestPool(request, 'Aggregate');
    await watchPicture(page);
    const release = await holdAppCode(page);
    await page.goto(link ? `/?group=Aggregate&symbol=${deepest.symbol}&res=15&inv=1` : '/');
    // The app's code is held back: what is on screen is the frame and the picture.
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('chart:picture').length), { timeout: 15_000 }).toBe(1);
    const mark = await page.evaluate(() => (performance.getEntriesByName('chart:picture')[0] as PerformanceMark).detail as { symbol: string; resolution: string; bars: number });
    expect(mark).toMatchObject({ resolution: link ? '15' : '60' });
    // The frame's controls say what the app's will: the resolution, and the pair as the link names it.
    await expect(page.locator('#page-frame [data-res][aria-pressed="true"]')).toHaveText(link ? '15m' : '1h');
    const [base, quote] = deepest.symbol.replace(/_.*$/, '').split('.');
    await expect(page.locator('#page-frame [data-invert]')).toHaveText(link ? `${base}/${quote} ⇄` : '–/– ⇄');
    expect(mark.bars).toBeGreaterThan(10);
    await expect(page.locator('#page-frame')).toBeVisible();
    await expect(page.locator('#page-frame')).toHaveAttribute('aria-hidden', 'true');
    await expect(page.locator('#page-frame .badge')).toHaveText('Simulated market');
    const picture = await page.evaluate(() => (window as unknown as { __picture: { rect: Rect; appRendered: boolean; canvases: number } }).__picture);
    expect(picture.appRendered).toBe(false);
    expect(picture.canvases).toBeGreaterThan(0);
    const frame = await rectsOf(page);
    // Nothing of the frame is reachable or announced: axe finds nothing to say.
    expect(await violations(page), 'the page frame').toEqual([]);

    release();
    await waitForCandles(page, { symbol: deepest.symbol });
    await expect(page.getByTestId('invert-toggle')).toHaveText(link ? `${base}/${quote} ⇄` : `${quote}/${base} ⇄`);
    const app = await rectsOf(page);
    // The app renders every part where the frame had it, and its chart where the picture was.
    expect(app).toEqual(frame);
    expect(app['.chart']).not.toBeNull();
    const chartCanvas = await page.getByTestId('price-chart').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
    });
    expect(chartCanvas).toEqual(picture.rect);
    // The app's chart has taken the picture's place: it is gone, and so is the frame.
    await expect(page.getByTestId('chart-picture')).toHaveCount(0);
    await expect(page.locator('#page-frame')).toHaveCount(0);
    await expect(page.getByTestId('token-header')).toBeVisible();
    await expect(page.getByTestId('header-price')).toBeVisible();
    // And the page did not jump about meanwhile (the header, tape and pools coming in).
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { __shifts: number }).__shifts)).toBeLessThan(0.05);
  });
}

test('page frame: a shared link is drawn at once in the stored theme, inverted as the link says, and the app takes it over', async ({ page, request }) => {
  const deepest = await deepestPool(request, 'Aggregate');
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      localStorage.setItem('cardano-dex-charts:preferences', JSON.stringify({ state: { theme: 'light', showTvl: false }, version: 1 }));
      sessionStorage.setItem('seeded', '1');
    }
  });
  await watchPicture(page);
  await page.goto(`/?group=Aggregate&symbol=${deepest.symbol}&res=15&inv=1`);
  const attributes = await waitForCandles(page, { symbol: deepest.symbol, resolution: '15' });
  const mark = await page.evaluate(() => (performance.getEntriesByName('chart:picture')[0] as PerformanceMark | undefined)?.detail as { symbol: string; resolution: string } | undefined);
  expect(mark).toEqual(expect.objectContaining({ symbol: deepest.symbol, resolution: '15' }));
  const picture = await page.evaluate(() => (window as unknown as { __picture: { theme: string } }).__picture);
  expect(picture.theme).toBe('light');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByTestId('invert-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(attributes.bars).toBeGreaterThan(10);
  await expect(page.getByTestId('chart-picture')).toHaveCount(0);
});

test('page frame: no picture where the app\'s first chart would not look like it (indicators), and no frame on the market overview', async ({ page }) => {
  await watchPicture(page);
  await page.goto('/?ind=sma20');
  await waitForCandles(page);
  expect(await page.evaluate(() => performance.getEntriesByName('chart:picture').length)).toBe(0);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-indicators', /SMA/);

  await page.goto('/?view=markets&group=Aggregate');
  await expect(page.getByTestId('market-overview')).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
  await expect(page.locator('#page-frame')).toHaveCount(0);
  expect(await page.evaluate(() => performance.getEntriesByName('chart:picture').length)).toBe(0);
});

test('page frame: the page carries its first bars, and neither the picture nor the chart asks for them', async ({ page }) => {
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/gw/v1/history?')) asked.push(r.url());
  });
  await watchPicture(page);
  await page.goto('/?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
  await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
  expect(await page.evaluate(() => performance.getEntriesByName('chart:picture').length)).toBe(1);
  const inline = await page.evaluate(() => document.getElementById('boot-bars')?.dataset.url);
  expect(inline).toMatch(/^\/gw\/v1\/history\?symbol=ADA\.SNEK_Aggregate_Pool1&resolution=60min&/);
  expect(asked.map((url) => new URL(url).pathname + new URL(url).search)).not.toContain(inline);
  // Drawn in the boot script's own run (before DOMContentLoaded), from the page's one script.
  const timing = await page.evaluate(() => {
    const picture = performance.getEntriesByName('chart:picture')[0]?.startTime ?? Number.NaN;
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js')).filter((r) => r.startTime < picture);
    return { picture, loaded: navigation.domContentLoadedEventStart, scripts: scripts.map((r) => new URL(r.name).pathname) };
  });
  expect(timing.picture).toBeLessThanOrEqual(timing.loaded);
  expect(timing.scripts).toHaveLength(1);
  expect(timing.scripts[0]).toMatch(/^\/assets\/index-[\w-]+\.js$/);
});

test('page frame: when the first bars fail, nothing is drawn early and the app says why in the chart\'s place', async ({ page }) => {
  await withoutPageBars(page);
  await page.route(/\/gw\/v1\/history\?/, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ s: 'error', errmsg: 'upstream unavailable (test)' }) }));
  await page.goto('/?symbol=ADA.SNEK_Aggregate_Pool1');
  await expect(page.getByTestId('chart-error')).toBeVisible({ timeout: 15_000 });
  expect(await page.evaluate(() => performance.getEntriesByName('chart:picture').length)).toBe(0);
  await expect(page.getByTestId('chart-picture')).toHaveCount(0);
});

test('page frame: with the first bars slow, the frame is shown meanwhile (the page is not blank), and the chart draws them when they come', async ({ page }) => {
  await withoutPageBars(page);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/gw\/v1\/history\?/, async (route) => {
    await held;
    await route.continue();
  });
  const releaseApp = await holdAppCode(page);
  await page.goto('/?symbol=ADA.SNEK_Aggregate_Pool1');
  // The bars and the app's code are held: the frame stands in the chart page's place meanwhile.
  await expect(page.locator('#page-frame')).toBeVisible({ timeout: 2_000 });
  await expect(page.locator('#page-frame .badge')).toHaveText('Simulated market');
  expect(await page.evaluate(() => performance.getEntriesByName('chart:picture').length)).toBe(0);
  releaseApp();
  release();
  await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
  await expect(page.getByTestId('chart-picture')).toHaveCount(0);
});
