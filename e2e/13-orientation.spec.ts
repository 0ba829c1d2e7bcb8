import { chartAttributes, close, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, poolStats } from './support/market';

/**
 * Orientation: a pair reads as trading screens show it (SNEK/ADA, the price of one SNEK in ADA); the
 * toggle inverts the chart, the legend and the header (ADA/SNEK, SNEK per ADA), kept in the URL.
 */
test('orientation: SNEK/ADA by default; the toggle inverts chart, legend and header, kept in the URL', async ({
  page,
  request,
}) => {
  const pair = await deepestPool(request, 'Aggregate');
  const [base, quote] = pair.symbol.replace(/_.*$/, '').split('.');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}`);
  await waitForCandles(page, { symbol: pair.symbol });
  const header = page.getByTestId('token-header');
  await expect(header.getByTestId('header-pair')).toHaveText(`${quote}/${base}`);
  const plain = await chartAttributes(page);
  const stats = await poolStats(request, pair.ticker);
  expect(close(Number(await page.getByTestId('header-price').getAttribute('data-value')), stats.current_price)).toBe(
    true,
  );

  await page.getByTestId('invert-toggle').click();
  await expect(page).toHaveURL(/[?&]inv=1(&|$)/);
  await expect(header.getByTestId('header-pair')).toHaveText(`${base}/${quote}`);
  await expect(page.getByRole('slider', { name: `Candlestick chart of ${base}/${quote} on Aggregate` })).toBeVisible();
  // Every price turned: the last close and the header are one over what they were.
  await expect(async () => {
    const now = await chartAttributes(page);
    const server = await poolStats(request, pair.ticker);
    expect(close(now.lastClose * plain.lastClose, 1) || close(now.lastClose, 1 / server.current_price)).toBe(true);
    expect(
      close(Number(await page.getByTestId('header-price').getAttribute('data-value')), 1 / server.current_price),
    ).toBe(true);
  }).toPass({ timeout: 5_000 });
  await expect(page.getByTestId('header-price')).toContainText(quote ?? '');
  // The pools panel follows: each pool's price in SNEK per ADA too.
  const pools = page.getByTestId('pair-pools');
  await expect(pools.getByRole('columnheader', { name: `Price (${quote})` })).toBeVisible();
  await expect(async () => {
    const server = (await (await request.get(`/gw/v1/pair-pools?pool=${pair.ticker}`)).json()) as {
      pools: { pool_id: string; price: number }[];
    };
    const first = server.pools[0];
    const shown = Number(
      await pools.locator(`[data-pool="${first?.pool_id}"]`).getByTestId('pool-price').getAttribute('data-value'),
    );
    expect(close(shown, 1 / (first?.price ?? Number.NaN))).toBe(true);
  }).toPass({ timeout: 5_000 });

  // Kept across a reload, and back again with the toggle.
  await page.reload();
  await waitForCandles(page, { symbol: pair.symbol });
  await expect(header.getByTestId('header-pair')).toHaveText(`${base}/${quote}`);
  await page.getByTestId('invert-toggle').click();
  await expect(page).not.toHaveURL(/inv=1/);
  await expect(header.getByTestId('header-pair')).toHaveText(`${quote}/${base}`);
  await expect(async () => {
    const now = await chartAttributes(page);
    const server = await poolStats(request, pair.ticker);
    expect(close(now.lastClose, server.current_price)).toBe(true);
  }).toPass({ timeout: 5_000 });
});
