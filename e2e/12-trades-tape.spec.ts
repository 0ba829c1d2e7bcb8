import { waitForCandles, expectConnection } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, tradeUntilPoolMoves } from './support/market';

/**
 * The trades tape under the chart: filled on open from the stored trades (with the DEX that traded),
 * a new trade on top as soon as the stream brings it, older trades paged in on scroll.
 */
test('trades tape: stored trades on open, a new trade on top, older ones on scroll', async ({ page, request }) => {
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto('/');
  await waitForCandles(page, { symbol: pair.symbol });
  await expectConnection(page, 'live');
  const tape = page.getByTestId('trades-tape');
  const rows = tape.getByTestId('tape-row');
  await expect(rows.first()).toBeVisible();
  // A row: time, side, price, value, both amounts, the DEX of the Aggregate's pool that traded.
  const cells = rows.first().locator('span');
  await expect(cells.nth(1)).toHaveText(/^(Buy|Sell)$/);
  await expect(rows.first().getByTestId('tape-dex')).toHaveText(
    /^(Minswap|MinswapV2|SundaeSwap|SundaeSwapV3|WingRiders|WingRidersV2|Spectrum|Splash|MuesliSwap|VyFi)$/,
  );

  const server = async () =>
    (await (await request.get(`/gw/v1/trades?pool=${pair.ticker}&limit=1`)).json()) as {
      trades: { id: string; price: number; base_amount: number }[];
    };
  const before = (await server()).trades[0]?.id;
  await tradeUntilPoolMoves(request, pair.ticker);
  const newest = (await server()).trades[0];
  expect(newest?.id).not.toBe(before);
  // The top row becomes the new trade, with its DEX once the stored page replaces the live row; its
  // value is its ADA amount (an ADA pair).
  await expect(async () => {
    const price = Number((await rows.first().getByTestId('tape-price').innerText()).replace(/[^\d.e-]/g, ''));
    expect(Math.abs(price - (newest?.price ?? 0)) / (newest?.price ?? 1)).toBeLessThan(0.01);
    await expect(rows.first().getByTestId('tape-dex')).not.toHaveText('');
    expect(Number(await rows.first().getByTestId('tape-value').getAttribute('data-value'))).toBe(newest?.base_amount);
  }).toPass({ timeout: 10_000 });
  await expect(tape.getByText('Value (ADA)')).toBeVisible();

  // Older trades page in as the list scrolls (100 a page).
  const list = tape.getByTestId('tape-rows');
  const first = Number(await list.getAttribute('data-count'));
  await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect.poll(async () => Number(await list.getAttribute('data-count'))).toBeGreaterThan(first);
});

test("pools of an Aggregate: DEX, TVL share, deviation and volume; a click opens that pool's chart", async ({
  page,
  request,
}) => {
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}`);
  await waitForCandles(page, { symbol: pair.symbol });
  const panel = page.getByTestId('pair-pools');
  const rows = panel.getByTestId('pair-pool');
  await expect(rows.first()).toBeVisible();
  const server = (await (await request.get(`/gw/v1/pair-pools?pool=${pair.ticker}`)).json()) as {
    pools: { symbol: string; group: string; share: number }[];
  };
  await expect(rows).toHaveCount(server.pools.length);
  const shares = (await panel.getByTestId('pool-share').allInnerTexts()).map((t) => Number(t.replace('%', '')));
  expect(Math.abs(shares.reduce((a, b) => a + b, 0) - 100)).toBeLessThan(0.5);
  const target = server.pools[0];
  await rows.first().getByRole('button').click();
  await waitForCandles(page, { symbol: target?.symbol ?? '' });
  await expect(page).toHaveURL(new RegExp(`symbol=${encodeURIComponent(target?.symbol ?? '')}`));
  // A DEX pool's page has no pools panel (it is one of them).
  await expect(panel).toHaveCount(0);
});
