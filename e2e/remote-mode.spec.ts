import { chartAttributes, close, expectConnection, headerPrice, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, poolStats, tradeUntilPoolMoves } from './support/market';
import { ServerProcess } from './support/server-process';
import { usdPerAdaNow } from './support/usd';

/**
 * Remote mode (project `remote`): the app served by a server whose gateway fronts another server
 * process over HTTP (`UPSTREAM_URL`), as it fronts the hosted API. The first server has the embedded
 * market and our /api/x extension routes; the second has no market at all. The main flows work the
 * same as in embedded mode: the default pair, search by a token's name, a pick, live updates.
 */

const KEY = 'e2e-remote-upstream-key-0123456789';
const WMT = '1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e776f726c646d6f62696c65746f6b656e';

let service: ServerProcess;
let gateway: ServerProcess;

test.beforeAll(async ({ browser: _browser }, testInfo) => {
  test.setTimeout(120_000);
  service = await ServerProcess.create({
    logFile: testInfo.outputPath('service.log'),
    env: { TOKEN_API_KEYS: `${KEY}:enterprise` },
  });
  gateway = await ServerProcess.create({
    logFile: testInfo.outputPath('gateway.log'),
    testControls: false,
    readyPath: '/gw/v1/info',
    env: { UPSTREAM_URL: service.origin, UPSTREAM_API_KEY: KEY },
  });
  await service.start();
  await gateway.start();
});

test.afterAll(async () => {
  await gateway?.dispose();
  await service?.dispose();
});

test('remote mode: the default pair, search by name, a pick and live updates, through a gateway in front of another server', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  // The remote gateway knows the same deepest pool as the service's own.
  const deepest = await deepestPool(request, 'Aggregate', service.origin);
  const info = (await (await request.get(`${gateway.origin}/gw/v1/info`)).json()) as {
    source: string;
    simulated: boolean;
    deepest?: Record<string, string>;
  };
  // The other server's market is the simulator's, and it says so (/api/x/market): so does this gateway.
  expect(info).toMatchObject({ source: 'remote', simulated: true });
  expect(info.deepest?.Aggregate).toBe(deepest.ticker);
  // There is no market here: the data are the other server's.
  expect((await request.get(`${gateway.origin}/api/v1/groups`)).status()).toBe(404);

  await test.step('first visit: the deepest Aggregate pair, with its registry name', async () => {
    await page.goto(`${gateway.origin}/`);
    await waitForCandles(page, { symbol: deepest.symbol });
    const header = page.getByTestId('token-header');
    const unit = (await (await request.get(`${service.origin}/gw/v1/symbol_info?group=Aggregate`)).json()) as {
      ticker: string[];
      currency: string[];
    };
    const quoteUnit = unit.currency[unit.ticker.indexOf(deepest.ticker)] ?? '';
    const registry = (await (await request.get(`${service.origin}/gw/v1/token-info/${quoteUnit}`)).json()) as {
      name: string;
    };
    await expect(header.getByTestId('header-name')).toHaveText(registry.name);
    await expectConnection(page, 'live');
  });

  await test.step("search by a token's name (not its ticker), and pick it", async () => {
    const search = page.getByRole('combobox', { name: 'Search pairs' });
    await search.focus();
    await expect(page.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true');
    await search.pressSequentially('World Mobile');
    const listbox = page.getByRole('listbox', { name: 'Pairs' });
    const option = listbox.locator('[data-symbol="ADA.WMT_Aggregate_Pool1"]');
    await expect(option).toBeVisible();
    await option.click();
    await waitForCandles(page, { symbol: 'ADA.WMT_Aggregate_Pool1' });
    const header = page.getByTestId('token-header');
    await expect(header.getByTestId('header-ticker')).toHaveText('WMT');
    await expect(header.getByTestId('header-name')).toHaveText('World Mobile Token');
    await expect(header.getByTestId('header-policy-id')).toHaveText(WMT.slice(0, 56));
    await expectConnection(page, 'live');
  });

  await test.step('live: a trade on the other server reaches the chart and the header', async () => {
    await page.goto(`${gateway.origin}/?group=Aggregate&symbol=${deepest.symbol}&res=1`);
    await waitForCandles(page, { symbol: deepest.symbol, resolution: '1' });
    await expectConnection(page, 'live');
    const before = await chartAttributes(page);
    const move = await tradeUntilPoolMoves(request, deepest.ticker, { origin: service.origin });
    await expect(async () => {
      const server = await poolStats(request, deepest.ticker, service.origin);
      const now = await chartAttributes(page);
      expect(now.lastClose !== before.lastClose || now.lastTime !== before.lastTime).toBe(true);
      expect(
        close(now.lastClose, server.current_price),
        `chart close ${now.lastClose} vs ${server.current_price}`,
      ).toBe(true);
      expect(close(await headerPrice(page), server.current_price)).toBe(true);
    }).toPass({ timeout: 10_000, intervals: [100] });
    test.info().annotations.push({
      type: 'latency',
      description: `the page followed a trade on the other server ${Date.now() - move.sentAt} ms after it was asked for`,
    });
  });

  await test.step("trades tape: the other server's stored trades, through our extension route", async () => {
    const rows = page.getByTestId('tape-row');
    await expect(rows.first()).toBeVisible();
    await expect(page.getByTestId('tape-note')).toHaveCount(0);
    const server = (await (
      await request.get(`${service.origin}/gw/v1/trades?pool=${deepest.ticker}&limit=1`)
    ).json()) as { trades: { group: string }[] };
    await expect(rows.first().getByTestId('tape-dex')).toHaveText(server.trades[0]?.group ?? '');
  });

  await test.step('orientation: the toggle inverts the header, the legend and the chart, kept in the URL', async () => {
    const [base, quote] = deepest.symbol.replace(/_.*$/, '').split('.');
    const header = page.getByTestId('token-header');
    await expect(header.getByTestId('header-pair')).toHaveText(`${quote}/${base}`);
    await page.getByTestId('invert-toggle').click();
    await expect(page).toHaveURL(/[?&]inv=1(&|$)/);
    await expect(header.getByTestId('header-pair')).toHaveText(`${base}/${quote}`);
    await expect(
      page.getByRole('slider', { name: `Candlestick chart of ${base}/${quote} on Aggregate` }),
    ).toBeVisible();
    await expect(async () => {
      const server = await poolStats(request, deepest.ticker, service.origin);
      const chart = await chartAttributes(page);
      expect(
        close(Number(await header.getByTestId('header-price').getAttribute('data-value')), 1 / server.current_price),
      ).toBe(true);
      expect(close(chart.lastClose, 1 / server.current_price, 1e-6)).toBe(true);
      expect(
        close(Number((await page.getByTestId('legend-close').innerText()).replace(/,/g, '')), chart.lastClose, 1e-3),
      ).toBe(true);
    }).toPass({ timeout: 10_000 });
    await page.getByTestId('invert-toggle').click();
    await expect(page).not.toHaveURL(/inv=1/);
  });

  await test.step("pools panel from the other server's /api/x/pair-pools; a click opens that pool's chart", async () => {
    const pools = async () =>
      (
        (await (await request.get(`${service.origin}/gw/v1/pair-pools?pool=${deepest.ticker}`)).json()) as {
          pools: { symbol: string; share: number }[];
        }
      ).pools;
    const rows = page.getByTestId('pair-pool');
    // The panel refreshes every 15 s and the market trades meanwhile: the same pools, shares as the server's.
    await expect(async () => {
      const server = await pools();
      await expect(rows).toHaveCount(server.length, { timeout: 1000 });
      const shares = (await page.getByTestId('pool-share').allInnerTexts()).map((t) => Number(t.replace('%', '')));
      const expected = server.map((p) => Number((p.share * 100).toFixed(1)));
      shares.forEach((share, i) => expect(Math.abs(share - (expected[i] ?? Number.NaN))).toBeLessThanOrEqual(0.5));
    }).toPass({ timeout: 20_000 });
    const target = (await rows.first().getAttribute('data-symbol')) ?? '';
    expect((await pools()).map((p) => p.symbol)).toContain(target);
    await rows.first().getByRole('button').click();
    await waitForCandles(page, { symbol: target });
    await expect(page).toHaveURL(new RegExp(`symbol=${target}`));
    await page.goBack();
    await waitForCandles(page, { symbol: deepest.symbol });
  });

  await test.step('indicators: RSI in a pane of its own, kept in the URL', async () => {
    const chart = page.getByTestId('price-chart');
    const panes = async () => chart.locator('table tr').count();
    const before = await panes();
    await page.getByTestId('indicator-menu').locator('summary').click();
    await page.getByTestId('indicator-rsi').check();
    await page.getByTestId('indicator-ema').check();
    await expect(page).toHaveURL(/[?&]ind=ema50%2Crsi14(&|$)/);
    await expect(chart).toHaveAttribute('data-indicators', 'EMA 50, RSI 14');
    await expect.poll(panes).toBeGreaterThan(before);
  });

  await test.step("USD: the header at the other server's ADA/USD", async () => {
    await page.getByRole('group', { name: 'Currency' }).getByRole('button', { name: 'USD' }).click();
    await expect(page).toHaveURL(/[?&]cur=usd(&|$)/);
    await expect(page.getByTestId('price-chart')).toHaveAttribute('data-currency', 'usd');
    await expect(async () => {
      const server = await poolStats(request, deepest.ticker, service.origin);
      expect(
        close(await headerPrice(page), server.current_price * (await usdPerAdaNow(request, service.origin)), 1e-9),
      ).toBe(true);
    }).toPass({ timeout: 10_000 });
  });
});

test('remote mode against an upstream without our extension routes: the tape shows what the stream brings, and says so', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const bare = await ServerProcess.create({
    logFile: testInfo.outputPath('spec-only.log'),
    args: ['--spec-only'],
    env: { TOKEN_API_KEYS: `${KEY}:enterprise` },
  });
  const front = await ServerProcess.create({
    logFile: testInfo.outputPath('front.log'),
    testControls: false,
    readyPath: '/gw/v1/info',
    env: { UPSTREAM_URL: bare.origin, UPSTREAM_API_KEY: KEY },
  });
  try {
    await bare.start();
    await front.start();
    // The same generated market as the first server's (same seed and size): its deepest pair exists here too.
    const deepest = await deepestPool(request, 'Aggregate', service.origin);
    await page.goto(`${front.origin}/?group=Aggregate&symbol=${deepest.symbol}`);
    await waitForCandles(page, { symbol: deepest.symbol });
    await expectConnection(page, 'live');
    // The tape's chunk and its 404 from the upstream (through the gateway's paced queue) may take a while on a busy machine.
    await expect(page.getByTestId('tape-note')).toHaveText(/Since this page opened/, { timeout: 15_000 });
    await expect(page.getByTestId('tape-rows')).toHaveAttribute('data-count', '0');
    await tradeUntilPoolMoves(request, deepest.ticker, { origin: bare.origin });
    await expect
      .poll(async () => Number(await page.getByTestId('tape-rows').getAttribute('data-count')))
      .toBeGreaterThan(0);
    await expect(page.getByTestId('tape-row').first().locator('span').nth(1)).toHaveText(/^(Buy|Sell)$/);
    // The pools panel is built from the spec's endpoints instead (symbol lists, then /tokens/current per pool).
    const reference = (await (
      await request.get(`${service.origin}/gw/v1/pair-pools?pool=${deepest.ticker}`)
    ).json()) as { pools: { symbol: string }[] };
    await expect(page.getByTestId('pair-pool')).toHaveCount(reference.pools.length, { timeout: 20_000 });

    // USD from the spec's endpoints alone (the stablecoins' /tokens/current and /history): header and chart.
    await page.getByRole('group', { name: 'Currency' }).getByRole('button', { name: 'USD' }).click();
    await expect(page.getByTestId('price-chart')).toHaveAttribute('data-currency', 'usd');
    await waitForCandles(page, { symbol: deepest.symbol });
    await expect(async () => {
      const server = await poolStats(request, deepest.ticker, bare.origin);
      const rate = await usdPerAdaNow(request, bare.origin);
      expect(
        close(await headerPrice(page), server.current_price * rate, 1e-9),
        `header ${await headerPrice(page)} vs ${server.current_price * rate}`,
      ).toBe(true);
      // The newest bar is the current one (the pair just traded): its rate is ADA/USD now.
      const chart = await chartAttributes(page);
      expect(
        close(chart.lastClose, server.current_price * rate, 1e-9),
        `chart ${chart.lastClose} at ${chart.lastTime} vs ${server.current_price * rate}`,
      ).toBe(true);
    }).toPass({ timeout: 15_000 });

    // A pool of the derived panel opens its chart.
    const target = page.getByTestId('pair-pool').first();
    const symbol = (await target.getAttribute('data-symbol')) ?? '';
    expect(reference.pools.map((p) => p.symbol)).toContain(symbol);
    await target.getByRole('button').click();
    await waitForCandles(page, { symbol });
  } finally {
    await front.dispose();
    await bare.dispose();
  }
});
