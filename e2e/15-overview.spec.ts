import type { Locator, Page } from '@playwright/test';
import { violations } from './support/axe';
import { close, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { shiftsOf, watchShifts } from './support/layout-shift';
import { deepestPool, poolStats, tradeUntilPoolMoves } from './support/market';

/**
 * The market overview: a group's pairs in one table, sortable by price, 24 h change, 24 h volume and
 * TVL, filtered, the rows on screen live, a row opening its chart and Back returning to the same
 * place. Runs in embedded mode (`prod`) and through a remote gateway (`remote-flows`).
 */

const overview = (page: Page) => page.getByTestId('market-overview');
const rows = (page: Page) => overview(page).getByTestId('overview-row');

async function ready(page: Page): Promise<void> {
  await expect(overview(page)).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
  await expect(rows(page).first()).toBeVisible();
}

/** What the rows in the page were sorted by, top to bottom (NaN: not known). */
async function sortValues(page: Page): Promise<number[]> {
  return (await rows(page).evaluateAll((elements) => elements.map((e) => e.getAttribute('data-sort-value') ?? ''))).map(
    (v) => (v === '' ? Number.NaN : Number(v)),
  );
}

/** Known values in order, unknown ones after them. */
function expectSorted(values: readonly number[], direction: 'asc' | 'desc'): void {
  const known = values.filter((v) => !Number.isNaN(v));
  expect(
    values.slice(0, known.length).every((v) => !Number.isNaN(v)),
    'unknown values last',
  ).toBe(true);
  for (let i = 1; i < known.length; i++) {
    const [a, b] = [known[i - 1] as number, known[i] as number];
    expect(direction === 'desc' ? a >= b : a <= b, `${a} then ${b} (${direction})`).toBe(true);
  }
}

async function sortBy(page: Page, name: RegExp, key: string, direction: 'asc' | 'desc'): Promise<Locator> {
  const header = overview(page).getByRole('columnheader', { name });
  await header.getByRole('button').click();
  await expect(overview(page)).toHaveAttribute('data-sort', key);
  if ((await overview(page).getAttribute('data-direction')) !== direction) await header.getByRole('button').click();
  await expect(overview(page)).toHaveAttribute('data-direction', direction);
  await expect(header).toHaveAttribute('aria-sort', direction === 'asc' ? 'ascending' : 'descending');
  return header;
}

test('market overview: from the chart, sort each column, filter, a live row, a row opens its chart and Back returns to the same place', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const deepest = await deepestPool(request, 'Aggregate');
  const stats = (await (await request.get('/gw/v1/group-stats?group=Aggregate')).json()) as { ticker: string[] };

  await test.step('open it from the chart page', async () => {
    await page.goto('/');
    await waitForCandles(page, { symbol: deepest.symbol });
    await page.getByRole('link', { name: 'Markets' }).click();
    await expect(page).toHaveURL(/view=markets/);
    await ready(page);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Markets on Aggregate (all DEXs)');
    await expect(overview(page)).toHaveAttribute('data-count', String(stats.ticker.length));
    // Deepest first, as the gateway names the deepest pair.
    await expect(rows(page).first()).toHaveAttribute('data-symbol', deepest.symbol);
    expectSorted(await sortValues(page), 'desc');
    // Virtualised: a screenful of rows, not every pair.
    expect(await rows(page).count()).toBeLessThan(Math.min(60, stats.ticker.length));
  });

  await test.step('sort by each column, both ways', async () => {
    for (const [name, key] of [
      [/^Price/, 'price'],
      [/^24 h change/, 'change'],
      [/^24 h volume/, 'volume'],
      [/^TVL/, 'tvl'],
    ] as const) {
      for (const direction of ['desc', 'asc'] as const) {
        await sortBy(page, name, key, direction);
        expectSorted(await sortValues(page), direction);
      }
    }
    await sortBy(page, /^TVL/, 'tvl', 'desc');
    await expect(rows(page).first()).toHaveAttribute('data-symbol', deepest.symbol);
  });

  await test.step("a row on screen follows its pair's trades", async () => {
    const first = rows(page).first();
    await tradeUntilPoolMoves(request, deepest.ticker);
    await expect(async () => {
      const server = await poolStats(request, deepest.ticker);
      expect(
        close(Number(await first.getByTestId('overview-price').getAttribute('data-value')), server.current_price),
      ).toBe(true);
      expect(
        close(Number(await first.getByTestId('overview-tvl').getAttribute('data-value')), server.current_tvl),
      ).toBe(true);
    }).toPass({ timeout: 10_000, intervals: [100] });
  });

  await test.step('filter by ticker', async () => {
    const filter = page.getByRole('searchbox', { name: 'Filter pairs' });
    await filter.fill('snek');
    await expect(overview(page).getByTestId('overview-count')).toHaveText(/pairs? matching “snek”/);
    await expect(rows(page).first()).toBeVisible();
    for (const symbol of await rows(page).evaluateAll((elements) =>
      elements.map((e) => e.getAttribute('data-symbol') ?? ''),
    ))
      expect(symbol).toMatch(/SNEK/i);
    await filter.fill('');
    await expect(overview(page)).toHaveAttribute('data-count', String(stats.ticker.length));
  });

  await test.step('a row opens its chart; Back returns to the same sort, filter and scroll offset', async () => {
    await sortBy(page, /^24 h volume/, 'volume', 'desc');
    const scroll = page.getByTestId('overview-scroll');
    await scroll.evaluate((element) => element.scrollTo(0, 44 * 25));
    await expect.poll(() => scroll.evaluate((element) => element.scrollTop)).toBeGreaterThan(44 * 20);
    const offset = await scroll.evaluate((element) => element.scrollTop);
    const target = rows(page).filter({ has: page.locator(`xpath=self::*[@data-index="${28}"]`) });
    const symbol = (await target.getAttribute('data-symbol')) ?? '';
    // Once the scroll has settled into the history entry (the overview keeps its place there), open the
    // pair by clicking its row (found by its pair: the list may be fetched again meanwhile, and sorted again).
    await expect
      .poll(() => page.evaluate(() => (history.state as { overview?: { offset?: number } } | null)?.overview?.offset))
      .toBe(Math.round(offset));
    await rows(page)
      .filter({ has: page.locator(`xpath=self::*[@data-symbol="${symbol}"]`) })
      .getByTestId('overview-tvl')
      .click();
    await waitForCandles(page, { symbol });
    await expect(page).not.toHaveURL(/view=markets/);
    await page.goBack();
    await ready(page);
    await expect(overview(page)).toHaveAttribute('data-sort', 'volume');
    await expect.poll(() => scroll.evaluate((element) => element.scrollTop)).toBe(offset);
    await expect(rows(page).filter({ has: page.locator(`xpath=self::*[@data-symbol="${symbol}"]`) })).toBeInViewport();
  });

  await test.step('the keyboard reaches a row, moves with the arrows, and Enter opens it', async () => {
    await page.getByRole('searchbox', { name: 'Filter pairs' }).fill('ada');
    await rows(page).first().getByRole('link').focus();
    await page.keyboard.press('ArrowDown');
    const second = rows(page).nth(1);
    await expect(second.getByRole('link')).toBeFocused();
    const symbol = (await second.getAttribute('data-symbol')) ?? '';
    await page.keyboard.press('Enter');
    await waitForCandles(page, { symbol });
    await page.goBack();
    await ready(page);
    await expect(page.getByRole('searchbox', { name: 'Filter pairs' })).toHaveValue('ada');
  });
});

test('market overview: nothing moves as the rows come and their spreads fill in (layout shift 0)', async ({ page }) => {
  await watchShifts(page);
  await page.goto('/?view=markets&group=Aggregate');
  await ready(page);
  // The Spread column's cells fill in when the spreads' answer comes, after the rows.
  const spreads = overview(page).locator('[data-testid="overview-spread"]:not([data-value=""])');
  await expect.poll(() => spreads.count(), { timeout: 15_000 }).toBeGreaterThan(0);
  // Two frames more: the shifts of the frame that drew them are reported.
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
  expect(await shiftsOf(page)).toBe(0);
});

test('market overview: no WCAG A/AA violation in either theme and at phone width', async ({ page }) => {
  await page.goto('/?view=markets&group=Aggregate');
  await ready(page);
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await violations(page), 'light theme').toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await ready(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await violations(page), 'phone width').toEqual([]);
  // Sorting and opening work at phone width too.
  await overview(page)
    .getByRole('columnheader', { name: /^24 h change/ })
    .getByRole('button')
    .click();
  await expect(overview(page)).toHaveAttribute('data-sort', 'change');
  const symbol = (await rows(page).first().getAttribute('data-symbol')) ?? '';
  await rows(page).first().getByRole('link').click();
  await waitForCandles(page, { symbol });
});
