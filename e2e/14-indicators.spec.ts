import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';

/**
 * Indicators: SMA, EMA, Bollinger bands and VWAP over the price, RSI in a pane of its own, with
 * editable parameters, kept in the URL and in the preferences.
 */
test('indicators: added and tuned from the menu, drawn on the chart (RSI in its own pane), kept in the URL and preferences', async ({
  page,
}) => {
  await page.goto('/');
  await waitForCandles(page);
  const chart = page.getByTestId('price-chart');
  const panes = async () => chart.locator('table tr').count();
  const before = await panes();

  await page.getByTestId('indicator-menu').locator('summary').click();
  await page.getByTestId('indicator-sma').check();
  await page.getByTestId('indicator-rsi').check();
  await page.getByTestId('indicator-bb').check();
  await expect(page).toHaveURL(/[?&]ind=sma20%2Cbb20-2%2Crsi14(&|$)/);
  await expect(chart).toHaveAttribute('data-indicators', 'SMA 20, BB 20 2, RSI 14');
  // RSI adds a pane (lightweight-charts draws its panes as table rows, with separators between).
  await expect.poll(panes).toBeGreaterThan(before);

  await page.getByTestId('indicator-sma-period').fill('50');
  await expect(page).toHaveURL(/ind=sma50%2Cbb20-2%2Crsi14/);
  await expect(chart).toHaveAttribute('data-indicators', 'SMA 50, BB 20 2, RSI 14');

  await page.reload();
  await waitForCandles(page);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-indicators', 'SMA 50, BB 20 2, RSI 14');

  // A URL without indicators gets the ones last chosen.
  await page.goto('/?res=60');
  await waitForCandles(page);
  await expect(page).toHaveURL(/ind=sma50%2Cbb20-2%2Crsi14/);

  // Off again: the pane goes.
  await page.getByTestId('indicator-menu').locator('summary').click();
  await page.getByTestId('indicator-rsi').uncheck();
  await page.getByTestId('indicator-sma').uncheck();
  await page.getByTestId('indicator-bb').uncheck();
  await expect(page).not.toHaveURL(/ind=/);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-indicators', '');
  await expect.poll(panes).toBe(before);
});
