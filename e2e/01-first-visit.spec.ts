import { writeFileSync } from 'node:fs';
import { chart, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';

test('first visit: the default Aggregate pair renders candles, the header shows logo and stats', async ({
  page,
  request,
}, testInfo) => {
  const deepest = await deepestPool(request, 'Aggregate');

  await page.goto('/');
  const candles = await waitForCandles(page, { symbol: deepest.symbol });
  expect(candles.resolution).toBe('60');
  expect(candles.bars).toBeGreaterThan(10);
  expect(candles.lastTime).toBeGreaterThan(candles.firstTime);
  expect(candles.lastClose).toBeGreaterThan(0);
  // The app's own mark: the first load drew bars.
  const mark = await page.evaluate(() => performance.getEntriesByName('chart:candles').length);
  expect(mark).toBeGreaterThan(0);

  // The URL names what is shown.
  await expect(page).toHaveURL(new RegExp(`[?&]symbol=${deepest.symbol.replace('.', '\\.')}(&|$)`));
  const url = new URL(page.url());
  expect(url.searchParams.get('group')).toBe('Aggregate');
  expect(url.searchParams.get('res')).toBe('60');

  // The chart is labelled with the pair as trading screens name it (SNEK/ADA: the token, priced in ADA).
  const [base, quote] = deepest.symbol.replace(/_.*$/, '').split('.');
  await expect(chart(page)).toHaveAccessibleName(`Candlestick chart of ${quote}/${base} on Aggregate`);
  await expect(page.getByTestId('resolution-60')).toHaveAttribute('aria-pressed', 'true');
  await expect(page).toHaveTitle(`${quote}/${base} on Aggregate · Cardano DEX Charts`);
  await expect(page.getByTestId('simulated-badge')).toBeVisible();

  // Header: the token's logo (a real PNG, decoded), identity and statistics.
  const header = page.getByTestId('token-header');
  await expect(header).toBeVisible();
  const logo = header.getByTestId('token-logo');
  await expect(logo).toBeVisible();
  await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(header.getByTestId('header-ticker')).toHaveText(quote ?? '');
  await expect(header.getByTestId('header-name')).not.toBeEmpty();
  await expect(header.getByTestId('header-policy-id')).toHaveText(/^[0-9a-f]{56}$/);
  await expect(header.getByTestId('header-fingerprint')).toHaveText(/^asset1[0-9a-z]{38}$/);
  const price = header.getByTestId('header-price');
  await expect(price).toBeVisible();
  expect(Number(await price.getAttribute('data-value'))).toBeGreaterThan(0);
  for (const id of [
    'header-change-1h',
    'header-change-24h',
    'header-tvl',
    'header-tvl-change-1h',
    'header-tvl-change',
    'header-volume-1h',
    'header-volume-24h',
  ]) {
    await expect(header.getByTestId(id), id).toHaveText(/\d/);
  }
  await expect(page.getByTestId('header-loading')).toHaveCount(0);
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');

  // The screenshot is kept: in the HTML report and as a file in the test's output directory.
  const shot = await page.screenshot({ fullPage: true });
  writeFileSync(testInfo.outputPath('first-visit.png'), shot);
  await testInfo.attach('first-visit', { body: shot, contentType: 'image/png' });
});
