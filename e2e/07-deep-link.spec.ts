import type { Page } from '@playwright/test';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { poolOf } from './support/market';

/** URL, chart, toolbar, group picker and header all show this selection. */
async function expectShown(page: Page, group: string, symbol: string, res: string, ticker: string): Promise<void> {
  await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ group, symbol, res });
  await waitForCandles(page, { symbol, resolution: res });
  await expect(page.getByRole('group', { name: 'Resolution' }).locator('[aria-pressed="true"]')).toHaveAttribute(
    'data-testid',
    `resolution-${res}`,
  );
  await expect(page.getByRole('combobox', { name: 'Group' })).toHaveValue(group);
  await expect(page.getByTestId('header-ticker')).toHaveText(ticker);
  await expect(page.getByTestId('token-header')).toContainText(`${ticker}/ADA · ${group}`);
}

test('deep link: group, symbol and resolution in the URL open that chart; back and forward work', async ({ page }) => {
  // A shared link naming the pair by its ticker: opened, then named canonically in place.
  await page.goto('/?group=MinswapV2&symbol=INDY&res=15');
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '15', 'INDY');
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'idle');

  // Two changes, two history entries.
  await page.getByRole('button', { name: '5 minutes', exact: true }).click();
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '5', 'INDY');
  await page.getByRole('combobox', { name: 'Group' }).selectOption('Aggregate');
  await expectShown(page, 'Aggregate', 'ADA.INDY_Aggregate_Pool1', '5', 'INDY');
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');

  await page.goBack();
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '5', 'INDY');
  await page.goBack();
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '15', 'INDY');
  // The canonical name replaced the ticker link: one more step back leaves the app.
  await page.goBack();
  await expect(page).toHaveURL('about:blank');
  await page.goForward();
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '15', 'INDY');
  await page.goForward();
  await expectShown(page, 'MinswapV2', 'ADA.INDY_MinswapV2_Pool1', '5', 'INDY');
  await page.goForward();
  await expectShown(page, 'Aggregate', 'ADA.INDY_Aggregate_Pool1', '5', 'INDY');
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
});

test('deep link by pool ID and another resolution spelling', async ({ page, request }) => {
  const pool = await poolOf(request, 'Aggregate', 'ADA.MIN_Aggregate_Pool1');
  await page.goto(`/?group=Aggregate&symbol=${pool}&res=1d`);
  await expectShown(page, 'Aggregate', 'ADA.MIN_Aggregate_Pool1', '1D', 'MIN');
  // Reloading a deep link shows the same chart.
  await page.reload();
  await expectShown(page, 'Aggregate', 'ADA.MIN_Aggregate_Pool1', '1D', 'MIN');
});
