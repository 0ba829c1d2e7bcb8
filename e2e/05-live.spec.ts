import type { APIRequestContext, Page, Route } from '@playwright/test';
import {
  chartAttributes,
  close,
  expectConnection,
  headerPrice,
  waitForCandles,
  type ChartAttributes,
} from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, poolStats, tradeUntilPoolMoves, type Origin } from './support/market';
import { ServerProcess } from './support/server-process';

/**
 * Trades the market until `pool` moves, then waits for the page's last candle and header price to
 * change and to show the server's new price. How long the page took is noted with the results (speed
 * is the benchmarks' business, not a timed assertion's).
 */
async function expectPageFollowsTrade(
  page: Page,
  request: APIRequestContext,
  pool: string,
  label: string,
  origin: Origin = '',
): Promise<void> {
  // What the page shows just before the block that trades the pair.
  let shown: { chart: ChartAttributes; price: number } = {
    chart: await chartAttributes(page),
    price: await headerPrice(page),
  };
  const move = await tradeUntilPoolMoves(request, pool, {
    origin,
    beforeBlock: async () => {
      shown = { chart: await chartAttributes(page), price: await headerPrice(page) };
    },
  });

  // Both change: the trade event reached the page.
  const changed = async () => {
    const now = await chartAttributes(page);
    const candle =
      now.lastClose !== shown.chart.lastClose || now.lastTime !== shown.chart.lastTime || now.bars !== shown.chart.bars;
    return candle && (await headerPrice(page)) !== shown.price;
  };
  await expect
    .poll(changed, { message: `${label}: the last candle and the header change`, intervals: [25] })
    .toBe(true);
  test.info().annotations.push({
    type: 'latency',
    description: `${label}: the pair traded in block ${move.blocks}; the page followed within ${Date.now() - move.sentAt} ms`,
  });

  // The new candle and the header agree with the server (a background block may move it again: retry).
  await expect(async () => {
    const server = await poolStats(request, pool, origin);
    const now = await chartAttributes(page);
    expect(close(now.lastClose, server.current_price), `chart close ${now.lastClose} vs ${server.current_price}`).toBe(
      true,
    );
    expect(close(await headerPrice(page), server.current_price)).toBe(true);
    expect(now.lastTime).toBeGreaterThanOrEqual(shown.chart.lastTime);
  }).toPass({ timeout: 5_000, intervals: [100] });
}

async function openLive(page: Page, symbol: string, origin: Origin = ''): Promise<void> {
  await page.goto(`${origin}/`);
  await waitForCandles(page, { symbol });
  await expectConnection(page, 'live');
  await expect(page.getByTestId('connection-status')).toHaveText('Live');
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-live', 'true');
  await expect(page.getByTestId('header-price')).toHaveAttribute('data-value', /^\d/);
}

test('live: the market trades, the last candle and the header follow; status shows live', async ({ page, request }) => {
  const pair = await deepestPool(request, 'Aggregate');
  await openLive(page, pair.symbol);
  for (const round of [1, 2]) {
    await test.step(`trade ${round}`, async () => {
      await expectPageFollowsTrade(page, request, pair.ticker, `round ${round}`);
      await expectConnection(page, 'live');
    });
  }
});

// Regression: a browser arriving after the gateway closed its idle upstream subscription was told
// `connected` at once, before the new subscription was live, and missed the trades of that moment.
test('live: the first browser after the gateway went idle follows the first trade', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(60_000);
  const server = await ServerProcess.create({
    logFile: testInfo.outputPath('server.log'),
    env: { GATEWAY_IDLE_LINGER_MS: '1' },
  });
  try {
    await server.start();
    const origin = server.origin;
    const pair = await deepestPool(request, 'Aggregate', origin);
    const upstreamStreams = async () =>
      ((await (await request.get(`${origin}/healthz`)).json()) as { streams: number }).streams;

    await openLive(page, pair.symbol, origin);
    expect(await upstreamStreams()).toBe(1);
    // The last browser leaves: the gateway drops its upstream subscription.
    await page.goto('about:blank');
    await expect.poll(upstreamStreams, { message: 'the gateway closes its idle upstream stream' }).toBe(0);

    // A new visitor. Its live connection is held until the page has drawn everything, then let
    // through: the moment the page says live, the market trades, and that trade reaches the page.
    const held: Route[] = [];
    await page.route('**/gw/v1/live?**', (route) => void held.push(route));
    await page.goto(`${origin}/`);
    await waitForCandles(page, { symbol: pair.symbol });
    await expect(page.getByTestId('header-price')).toHaveAttribute('data-value', /^\d/);
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await expect(page.getByTestId('connection-status')).not.toHaveAttribute('data-state', 'live');
    for (const route of held.splice(0)) await route.continue();
    // Noticed within a frame: "live" must already mean the gateway carries the pool upstream.
    await page.waitForFunction(
      () => document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-state') === 'live',
      null,
      { polling: 'raf' },
    );
    expect(await upstreamStreams(), 'an upstream stream carries the pool when the page says live').toBe(1);
    await expectPageFollowsTrade(page, request, pair.ticker, 'after idle', origin);
  } finally {
    await server.dispose();
  }
});
