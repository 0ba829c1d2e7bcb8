import type { Page } from '@playwright/test';
import { expectConnection, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';
import { ServerProcess } from './support/server-process';

/** The chart's error: its title, the message, and a working Retry that fails again while the cause lasts. */
async function expectChartError(page: Page, message: RegExp): Promise<void> {
  const alert = page.getByRole('alert').filter({ has: page.getByTestId('chart-error-message') });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('The chart could not load');
  await expect(page.getByTestId('chart-error-message')).toHaveText(message);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-status', 'error');
  await expect(alert.getByRole('button', { name: 'Retry' })).toBeVisible();
}

test('errors: an unknown symbol in the URL shows a clear message, a retry and a way back to a chart', async ({
  page,
  request,
}) => {
  const deepest = await deepestPool(request, 'Aggregate');
  await page.goto('/?group=Aggregate&symbol=ADA.NOPE_Aggregate_Pool1&res=60');
  const alert = page.getByRole('alert').filter({ has: page.getByTestId('symbol-error-message') });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('Unknown symbol');
  await expect(page.getByTestId('symbol-error-message')).toHaveText('Unknown symbol: ADA.NOPE_Aggregate_Pool1');
  // No chart, no header, no toolbar for a symbol that does not exist.
  await expect(page.getByTestId('price-chart')).toHaveCount(0);
  await expect(page.getByTestId('token-header')).toHaveCount(0);

  // Retry looks again with fresh symbol lists (a pool may have appeared): still unknown, said again.
  const refetched = page.waitForRequest((r) => r.url().includes('/gw/v1/symbol_info?group=Aggregate'));
  await alert.getByRole('button', { name: 'Retry' }).click();
  await refetched;
  await expect(page.getByTestId('symbol-error-message')).toHaveText('Unknown symbol: ADA.NOPE_Aggregate_Pool1');

  // The way out: the deepest Aggregate pair.
  await alert.getByRole('button', { name: 'Show the deepest Aggregate pair' }).click();
  await waitForCandles(page, { symbol: deepest.symbol });
  await expect(page.getByTestId('symbol-error')).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`symbol=${deepest.symbol.replace('.', '\\.')}`));

  // Back to the bad link: the same message again.
  await page.goBack();
  await expect(page.getByTestId('symbol-error-message')).toHaveText('Unknown symbol: ADA.NOPE_Aggregate_Pool1');

  // An unknown ticker and an unknown group say what they are.
  await page.goto('/?group=Aggregate&symbol=NOSUCHTOKEN');
  await expect(page.getByTestId('symbol-error-message')).toHaveText(
    'Unknown symbol: NOSUCHTOKEN (no pair of that ticker on Aggregate)',
  );
  await page.goto('/?group=NoSuchDex');
  await expect(page.getByTestId('symbol-error-message')).toContainText('NoSuchDex');
  await expect(page.getByTestId('symbol-error-message')).toContainText('MinswapV2');
  await expect(page.getByTestId('symbol-error-retry')).toBeVisible();
});

test('errors: a stopped server shows a clear message and a Retry that works once it is back', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  const server = await ServerProcess.create({
    logFile: testInfo.outputPath('server.log'),
    env: { GATEWAY_RETRY_MS: '300' },
  });
  try {
    await server.start();
    await page.goto(`${server.origin}/?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60`);
    await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
    await expectConnection(page, 'live');

    await server.stop('SIGTERM');
    await expectConnection(page, 'reconnecting');
    // The next thing the user asks for cannot load: the chart says why and offers a Retry.
    await page.getByRole('button', { name: '5 minutes', exact: true }).click();
    await expectChartError(page, /^The gateway is unreachable \(\/history\): /);
    // Retry while the server is still down: it tries again (a new request) and says so again.
    const attempt = page.waitForEvent('requestfailed', (req) => req.url().includes('/gw/v1/history'));
    await page.getByTestId('chart-error-retry').click();
    await attempt;
    await expectChartError(page, /^The gateway is unreachable/);

    await server.start();
    await page.getByTestId('chart-error-retry').click();
    await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1', resolution: '5' });
    await expect(page.getByTestId('chart-error')).toHaveCount(0);
    await expectConnection(page, 'live', 30_000);
  } finally {
    await server.dispose();
  }
});

test('errors: the data service stopped behind the gateway shows the gateway’s message and a Retry', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  const key = 'e2e-upstream-key-0123456789';
  const service = await ServerProcess.create({
    logFile: testInfo.outputPath('service.log'),
    env: { TOKEN_API_KEYS: `${key}:enterprise` },
  });
  const gateway = await ServerProcess.create({
    logFile: testInfo.outputPath('gateway.log'),
    testControls: false,
    readyPath: '/gw/v1/info',
    env: {
      UPSTREAM_URL: service.origin,
      UPSTREAM_API_KEY: key,
      GATEWAY_RETRY_MS: '300',
      GATEWAY_BACKOFF_INITIAL_MS: '200',
      GATEWAY_BACKOFF_MAX_MS: '500',
    },
  });
  try {
    await service.start();
    await gateway.start();
    await page.goto(`${gateway.origin}/?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60`);
    await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1' });
    await expectConnection(page, 'live');

    await service.stop('SIGTERM');
    // The gateway is up and tells the page its upstream is gone.
    await expectConnection(page, 'reconnecting');
    await page.getByRole('button', { name: '15 minutes', exact: true }).click();
    await expectChartError(page, /^Upstream unavailable: /);

    await service.start();
    await page.getByTestId('chart-error-retry').click();
    await waitForCandles(page, { symbol: 'ADA.SNEK_Aggregate_Pool1', resolution: '15' });
    await expect(page.getByTestId('chart-error')).toHaveCount(0);
    await expectConnection(page, 'live', 30_000);
  } finally {
    await gateway.dispose();
    await service.dispose();
  }
});

test('errors: a part of the page whose code cannot be fetched says so in its place, the chart goes on, and a reload brings it', async ({
  page,
  request,
}) => {
  const deepest = await deepestPool(request, 'Aggregate');
  // The trades', the search's and the exports' (CSV and PNG makers) chunks fail to load, as when the server is down
  // the moment they are asked for (a browser keeps such a module failed until the page is reloaded).
  const chunks = /\/assets\/(trades|symbol-search|run-export)-[^/]+\.js$/;
  await page.route(chunks, (route) => route.abort('connectionrefused'));
  await page.goto(`/?group=Aggregate&symbol=${deepest.symbol}&res=60`);
  await waitForCandles(page, { symbol: deepest.symbol });

  const tape = page.getByRole('alert').filter({ has: page.getByTestId('tape-part-error-message') });
  await expect(tape).toContainText('The trades could not load');
  await expect(page.getByTestId('tape-part-error-message')).toContainText('Reload the page to try again');
  // The rest of the page works: the pools panel, the chart.
  await expect(page.getByTestId('pair-pool').first()).toBeVisible();
  await page.getByRole('button', { name: '5 minutes', exact: true }).click();
  await waitForCandles(page, { symbol: deepest.symbol, resolution: '5' });

  // The search says why it cannot search.
  await page.getByRole('combobox', { name: 'Search pairs' }).fill('snek');
  await expect(page.getByTestId('search-status')).toHaveText(
    /^Search is unavailable: The search's code could not load \(.+\): reload the page$/,
  );
  await page.keyboard.press('Escape');

  // So does the export.
  await page.getByTestId('export-csv').click();
  await expect(page.getByTestId('export-error')).toHaveText(
    /^The export could not load \(.+\): reload the page to try again$/,
  );

  // Back online: the part's own button reloads the page, and everything is there.
  await page.unroute(chunks);
  await tape.getByRole('button', { name: 'Reload the page' }).click();
  await waitForCandles(page, { symbol: deepest.symbol, resolution: '5' });
  await expect(page.getByTestId('trades-tape')).toBeVisible();
  await expect(page.getByTestId('tape-part-error')).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Search pairs' }).fill('snek');
  await expect(page.getByTestId('search-status')).toHaveText(/^\d+ match(es)?$/);
});
