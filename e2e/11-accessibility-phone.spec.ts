import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';

test('accessibility: no WCAG A/AA violation (labels, contrast, landmarks) in either theme; keyboard focus follows the layout', async ({
  page,
  request,
}) => {
  // Two full axe scans: half a minute on a busy 2-core machine.
  test.setTimeout(60_000);
  const deepest = await deepestPool(request, 'Aggregate');
  await page.goto(`/?symbol=${deepest.symbol}`);
  await waitForCandles(page, { symbol: deepest.symbol });
  await expect(page.getByTestId('token-header')).toBeVisible();
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await violations(page), 'light theme').toEqual([]);

  // Focus order: the skip link first, then the controls in reading order (rows top to bottom, each
  // left to right), every one visible when focused.
  await page.reload();
  await waitForCandles(page, { symbol: deepest.symbol });
  const stops: string[] = [];
  for (let i = 0; i < 17; i++) {
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    await expect(focused).toBeVisible();
    stops.push(
      await focused.evaluate(
        (el) =>
          el.getAttribute('aria-label') ??
          (el as HTMLInputElement).labels?.[0]?.textContent?.trim() ??
          el.textContent?.trim() ??
          '',
      ),
    );
  }
  // The top bar left to right, the token header (its identity column, then its action), the toolbar.
  expect(stops).toEqual([
    'Skip to the chart',
    'Chart',
    'Markets',
    'Search pairs',
    'Group',
    'Alerts',
    'Dark',
    'Light',
    'UTC',
    'Local',
    'Copy policy ID',
    'Copy fingerprint',
    'Watch this pair',
    '1 minute',
    '5 minutes',
    '15 minutes',
    '1 hour',
  ]);
});

test('phone width: the page fits the screen, draws candles, and a pair can be searched and picked', async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const deepest = await deepestPool(request, 'Aggregate');
  await page.goto(`/?symbol=${deepest.symbol}`);
  await waitForCandles(page, { symbol: deepest.symbol });
  await expect(page.getByTestId('token-header')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await violations(page), 'phone width').toEqual([]);

  const search = page.getByRole('combobox', { name: 'Search pairs' });
  await expect(search).toBeInViewport();
  await search.click();
  await search.pressSequentially('djed');
  const first = page.getByRole('listbox').getByRole('option').first();
  await expect(first).toBeInViewport();
  await search.press('Enter');
  await waitForCandles(page, { symbol: /DJED/ });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('accessibility with the indicator menu open, the RSI pane showing and prices in USD, in both themes', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const deepest = await deepestPool(request, 'Aggregate');
  await page.goto(`/?symbol=${deepest.symbol}&ind=sma20,bb20-2,rsi14&cur=usd`);
  await waitForCandles(page, { symbol: deepest.symbol });
  const chart = page.getByTestId('price-chart');
  await expect(chart).toHaveAttribute('data-indicators', 'SMA 20, BB 20 2, RSI 14');
  await expect(chart).toHaveAttribute('data-currency', 'usd');
  // RSI's pane: lightweight-charts draws panes as table rows (with separators between).
  await expect.poll(async () => chart.locator('table tr').count()).toBeGreaterThan(3);
  await page.getByTestId('indicator-menu').locator('summary').click();
  await expect(page.getByRole('group', { name: 'Indicators' })).toBeVisible();
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByRole('group', { name: 'Indicators' })).toBeVisible();
  expect(await violations(page), 'light theme').toEqual([]);
  // The menu is reachable and usable from the keyboard: its first checkbox toggles with Space.
  const sma = page.getByTestId('indicator-sma');
  await sma.focus();
  await page.keyboard.press('Space');
  await expect(chart).toHaveAttribute('data-indicators', 'BB 20 2, RSI 14');
});
