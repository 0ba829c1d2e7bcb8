import {
  chartAttributes,
  close,
  exportVisibleBars,
  expectConnection,
  headerPrice,
  waitForCandles,
} from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory, tradeUntilPoolMoves } from './support/market';
import { ServerProcess } from './support/server-process';

const LIVE_ROUTE = '**/gw/v1/live?**';

test('reconnect: the server restarts, the page shows reconnecting, then live, and no bar is missing', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(90_000);
  // A server of our own: this test kills it. A short `retry:` hint brings the browser back quickly.
  const server = await ServerProcess.create({
    logFile: testInfo.outputPath('server.log'),
    env: { GATEWAY_RETRY_MS: '300' },
  });
  // What happened to the live connection (kept with the test's results).
  const liveLog: string[] = [];
  const t0 = Date.now();
  page.on('request', (r) => void (r.url().includes('/gw/v1/live') && liveLog.push(`${Date.now() - t0} ms request`)));
  page.on(
    'requestfailed',
    (r) =>
      void (
        r.url().includes('/gw/v1/live') && liveLog.push(`${Date.now() - t0} ms failed ${r.failure()?.errorText ?? ''}`)
      ),
  );
  page.on('console', (m) => void liveLog.push(`${Date.now() - t0} ms console ${m.type()}: ${m.text()}`));
  const note = (what: string) => void liveLog.push(`${Date.now() - t0} ms --- ${what}`);
  try {
    await server.start();
    const origin = server.origin;
    const pair = await deepestPool(request, 'Aggregate', origin);
    await page.goto(`${origin}/?group=Aggregate&symbol=${pair.symbol}&res=1`);
    await waitForCandles(page, { symbol: pair.symbol, resolution: '1' });
    await expectConnection(page, 'live');

    // The server process dies (the whole process group, as a crash would).
    note('kill');
    await server.stop('SIGKILL');
    await expectConnection(page, 'reconnecting');
    await expect(page.getByTestId('connection-status')).toHaveText('Reconnecting…');

    // Restarted on the same port and data directory. The browser's reconnection is held back (its
    // live requests fail as if the server were still down) until the market has traded the pair:
    // the page misses that trade.
    let hold = true;
    await page.route(LIVE_ROUTE, (route) => (hold ? route.abort('connectionrefused') : route.continue()));
    note('restart');
    await server.start();
    note('healthy');
    const missed = await tradeUntilPoolMoves(request, pair.ticker, { origin });
    await expectConnection(page, 'reconnecting');
    hold = false;
    note('reconnection let through');

    await expectConnection(page, 'live', 30_000);
    await expect(page.getByTestId('connection-status')).toHaveText('Live');
    await expect(page.getByTestId('price-chart')).toHaveAttribute('data-live', 'true');
    // The page caught up with what it missed (the gateway asked it to resync) ...
    await expect
      .poll(async () => close((await chartAttributes(page)).lastClose, missed.after.current_price), { timeout: 10_000 })
      .toBe(true);

    // ... and follows new trades again.
    const next = await tradeUntilPoolMoves(request, pair.ticker, { origin });
    await expect
      .poll(async () => close((await chartAttributes(page)).lastClose, next.after.current_price), { timeout: 5_000 })
      .toBe(true);
    await expect
      .poll(async () => close(await headerPrice(page), next.after.current_price), { timeout: 5_000 })
      .toBe(true);

    // No bar is missing: every bar the chart holds is the server's, over the whole loaded span ...
    const attrs = await chartAttributes(page);
    const all = await gatewayHistory(request, pair.ticker, '1', attrs.firstTime, attrs.lastTime + 60, origin);
    expect(attrs.bars, 'bars held by the chart').toBe(all.length);
    expect(all[0]?.time).toBe(attrs.firstTime);
    expect(all.at(-1)?.time).toBe(attrs.lastTime);
    // ... and the bars in view, as the chart has them (CSV export), equal the server's, values included.
    const shown = await exportVisibleBars(page);
    const first = shown[0]?.time ?? 0;
    const last = shown.at(-1)?.time ?? 0;
    const history = await gatewayHistory(request, pair.ticker, '1', first, last + 60, origin);
    expect(shown.map((b) => b.time)).toEqual(history.map((b) => b.time));
    for (const [i, bar] of shown.entries()) {
      const other = history[i];
      const same =
        other !== undefined &&
        close(bar.open, other.open) &&
        close(bar.high, other.high) &&
        close(bar.low, other.low) &&
        close(bar.close, other.close) &&
        close(bar.volume, other.volume, 1e-6);
      expect(same, `bar ${bar.time}: ${JSON.stringify(bar)} vs ${JSON.stringify(other)}`).toBe(true);
    }
  } finally {
    await testInfo.attach('live-connection.log', { body: liveLog.join('\n'), contentType: 'text/plain' });
    await server.dispose();
  }
});
