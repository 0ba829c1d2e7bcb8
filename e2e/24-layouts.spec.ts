import type { Page } from '@playwright/test';
import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, groupSymbols } from './support/market';

/** Every EventSource the page makes, recorded (the browser's own constructor, wrapped before the page's scripts). */
const RECORD_EVENT_SOURCES = () => {
  const Original = window.EventSource;
  const made: EventSource[] = [];
  (window as unknown as { __eventSources: EventSource[] }).__eventSources = made;
  window.EventSource = class extends Original {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init);
      made.push(this);
    }
  };
};

const openEventSources = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __eventSources: EventSource[] }).__eventSources.filter(
        (source) => source.readyState !== EventSource.CLOSED,
      ).length,
  );

const cell = (page: Page, index: number) => page.locator(`[data-testid="chart-cell"][data-index="${index}"]`);
const cellChart = (page: Page, index: number) => cell(page, index).getByTestId('price-chart');
const visible = async (page: Page, index: number) => {
  const el = cellChart(page, index);
  return {
    from: Number(await el.getAttribute('data-visible-from')),
    to: Number(await el.getAttribute('data-visible-to')),
  };
};

/**
 * Several charts: four charts, each with its own pair, group and resolution, all in the URL (a shared
 * link opens the same screen), on one live connection; crosshair and time range in step when asked.
 */
// Tall enough for the four charts: the crosshair is checked on the one below the first.
test.use({ viewport: { width: 1280, height: 1200 } });

test('layouts: four charts with their own pair and resolution, in the URL, one live connection, crosshair and time in step', async ({
  page,
  request,
}) => {
  await page.addInitScript(RECORD_EVENT_SOURCES);
  const first = await deepestPool(request, 'Aggregate');
  const other = (await groupSymbols(request, 'Aggregate')).find(
    (row) => row.symbol !== first.symbol && row.symbol.includes('_Aggregate_'),
  );
  expect(other).toBeDefined();
  await page.goto('/');
  await waitForCandles(page, { symbol: first.symbol });

  await page.getByTestId('layout-4').click();
  await expect(page).toHaveURL(/[?&]layout=4(&|$)/);
  await expect(page.getByTestId('chart-cell')).toHaveCount(4);
  // New charts: the first chart's pair over other resolutions.
  for (const [index, resolution] of [
    [2, '1D'],
    [3, '15'],
    [4, '5'],
  ] as const) {
    await expect(cellChart(page, index)).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
    await expect(cellChart(page, index)).toHaveAttribute('data-resolution', resolution);
    await expect(cellChart(page, index)).toHaveAttribute('data-symbol', first.symbol);
  }

  // Chart 2: another pair, picked in its own search; chart 3: another resolution.
  const search = cell(page, 2).getByRole('combobox', { name: 'Search pairs for chart 2' });
  await search.fill(other?.symbol ?? '');
  await expect(cell(page, 2).getByTestId('search-option').first()).toHaveAttribute('data-symbol', other?.symbol ?? '');
  await search.press('Enter');
  await expect(cellChart(page, 2)).toHaveAttribute('data-symbol', other?.symbol ?? '');
  await expect(cellChart(page, 2)).toHaveAttribute('data-status', 'ready');
  await cell(page, 3).getByTestId('chart-cell-resolution').selectOption('60');
  await expect(cellChart(page, 3)).toHaveAttribute('data-resolution', '60');
  await expect(page).toHaveURL(new RegExp(`c2=1D%2CAggregate%2C${encodeURIComponent(other?.symbol ?? '')}`));
  await expect(page).toHaveURL(/c3=60%2CAggregate%2C/);

  // All four charts follow their pairs live over the one connection.
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live', { timeout: 15_000 });
  await expect.poll(() => openEventSources(page)).toBe(1);
  for (const index of [1, 2, 3, 4]) await expect(cellChart(page, index)).toHaveAttribute('data-live', 'true');

  // In step: the other charts take the first chart's time range, and its crosshair.
  await page.getByTestId('layout-sync').click();
  await expect(page).toHaveURL(/[?&]sync=1(&|$)/);
  await expect(page.getByTestId('chart-grid')).toHaveAttribute('data-sync', 'true');
  const hour = 3600;
  await expect
    .poll(async () => Math.abs((await visible(page, 3)).from - (await visible(page, 1)).from))
    .toBeLessThanOrEqual(hour);
  await expect
    .poll(async () => Math.abs((await visible(page, 4)).to - (await visible(page, 1)).to))
    .toBeLessThanOrEqual(hour);
  const legend3 = cell(page, 3).getByTestId('legend-close');
  const before = await legend3.innerText();
  const box = await cellChart(page, 1).boundingBox();
  expect(box).not.toBeNull();
  if (box) {
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
    await page.mouse.move(box.x + box.width * 0.3 + 4, box.y + box.height * 0.5);
  }
  // Chart 3 (the same pair at the same resolution as chart 1 now) shows the bar under chart 1's crosshair.
  await expect(legend3).not.toHaveText(before);
  await expect(legend3).toHaveText(await cell(page, 1).getByTestId('legend-close').innerText());

  // A shared link opens the same screen.
  const link = page.url();
  await page.goto('about:blank');
  await page.goto(link);
  await expect(page.getByTestId('chart-cell')).toHaveCount(4);
  await expect(cellChart(page, 2)).toHaveAttribute('data-symbol', other?.symbol ?? '');
  await expect(cellChart(page, 3)).toHaveAttribute('data-resolution', '60');
  await expect(page.getByTestId('layout-sync')).toHaveAttribute('aria-pressed', 'true');

  // Two stacked keeps chart 2; one chart is the page as it was.
  await page.getByTestId('layout-2v').click();
  await expect(page.getByTestId('chart-cell')).toHaveCount(2);
  await expect(cellChart(page, 2)).toHaveAttribute('data-symbol', other?.symbol ?? '');
  await page.getByTestId('layout-1').click();
  await expect(page.getByTestId('chart-grid')).toHaveCount(0);
  await expect(page).not.toHaveURL(/layout=|c2=|sync=/);
  await waitForCandles(page, { symbol: first.symbol });
});

test('layouts: no WCAG A/AA violation with four charts, in either theme and at phone width', async ({ page }) => {
  // Three runs of axe over four charts' pages.
  test.setTimeout(90_000);
  await page.goto('/?layout=4');
  for (const index of [1, 2, 3, 4])
    await expect(cellChart(page, index)).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light', exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await violations(page), 'light theme').toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('chart-cell')).toHaveCount(4);
  expect(await violations(page), 'phone width').toEqual([]);
  if (process.env.DOC_SCREENSHOTS === '1') {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Dark', exact: true }).click();
    await page.getByTestId('layout-sync').click();
    await page.screenshot({ path: 'docs/img/layouts.png' });
  }
});
