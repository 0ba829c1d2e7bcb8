import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, Response } from '@playwright/test';
import { chartAttributes, expectConnection, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { devKeyOf, E2E_API_KEY, E2E_DATA_DIR, GENERATED_KEY, secretsIn } from './support/keys';
import { deepestPool, tradeUntilPoolMoves } from './support/market';
import { freePort } from '../tests/support/free-port';
import { ServerProcess } from './support/server-process';

interface Exchange {
  readonly where: string;
  readonly text: string;
}

const TEXT_TYPES = /json|text|javascript|css|svg|xml|html/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

test('security: over a whole session the browser never sees an API key, sends no Authorization header, and the built JS holds no key', async ({
  page,
  context,
  request,
}, testInfo) => {
  test.setTimeout(60_000);
  const devKey = devKeyOf(E2E_DATA_DIR);
  const secrets = [E2E_API_KEY, ...(devKey ? [devKey] : [])];

  // The configured key is a real, working secret of this server (so there is something to leak).
  expect((await request.get('/api/v1/groups', { headers: { Authorization: `Bearer ${E2E_API_KEY}` } })).status()).toBe(
    200,
  );
  expect((await request.get('/api/v1/groups')).status()).toBe(401);

  // Record everything the browser sends and receives.
  const seen: Exchange[] = [];
  const pending: Promise<void>[] = [];
  const authorization: string[] = [];
  let requests = 0;
  let responses = 0;
  const onRequest = (req: Request) => {
    requests++;
    pending.push(
      req.allHeaders().then((headers) => {
        if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'))
          authorization.push(`${req.method()} ${req.url()}`);
        seen.push({
          where: `request ${req.method()} ${req.url()}`,
          text: [req.url(), JSON.stringify(headers), req.postData() ?? ''].join('\n'),
        });
      }),
    );
  };
  const onResponse = (res: Response) => {
    responses++;
    pending.push(
      (async () => {
        const headers = await res.allHeaders();
        const type = headers['content-type'] ?? '';
        // Live streams never end: their messages are recorded one by one below.
        const body = TEXT_TYPES.test(type) && !type.includes('event-stream') ? await res.text().catch(() => '') : '';
        seen.push({ where: `response ${res.status()} ${res.url()}`, text: [JSON.stringify(headers), body].join('\n') });
      })(),
    );
  };
  context.on('request', onRequest);
  context.on('response', onResponse);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const liveMessages: string[] = [];
  cdp.on('Network.eventSourceMessageReceived', (event) => {
    liveMessages.push(`${event.eventName} ${event.eventId} ${event.data}`);
    seen.push({ where: `live message ${event.eventName}`, text: `${event.eventId}\n${event.data}` });
  });

  // The session: visit, search, switch resolutions and groups, and wait for a live update.
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto('/');
  await waitForCandles(page, { symbol: pair.symbol });
  await expectConnection(page, 'live');

  const search = page.getByRole('combobox', { name: 'Search pairs' });
  await search.focus();
  await expect(page.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true');
  await search.pressSequentially('min');
  await expect(page.getByRole('listbox', { name: 'Pairs' }).getByRole('option').first()).toBeVisible();
  await search.press('Enter');
  await expect(page.getByTestId('price-chart')).not.toHaveAttribute('data-symbol', pair.symbol);
  await waitForCandles(page);

  for (const name of ['1 minute', '5 minutes', '15 minutes', '1 day', '1 hour']) {
    await page.getByRole('button', { name, exact: true }).click();
    await waitForCandles(page);
  }
  await page.getByRole('combobox', { name: 'Group' }).selectOption('MinswapV2');
  await waitForCandles(page, { symbol: /_MinswapV2_/ });

  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=1`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '1' });
  await expectConnection(page, 'live');
  const before = await chartAttributes(page);
  await tradeUntilPoolMoves(request, pair.ticker);
  await expect.poll(async () => (await chartAttributes(page)).lastClose).not.toBe(before.lastClose);
  await expect.poll(() => liveMessages.some((m) => m.startsWith('trade '))).toBe(true);

  // What the page keeps: storage, cookies, the document.
  const kept = await page.evaluate(() => ({
    localStorage: JSON.stringify({ ...localStorage }),
    sessionStorage: JSON.stringify({ ...sessionStorage }),
    cookie: document.cookie,
    html: document.documentElement.outerHTML,
  }));
  for (const [where, text] of Object.entries(kept)) seen.push({ where: `page ${where}`, text });
  seen.push({ where: 'cookies', text: JSON.stringify(await context.cookies()) });

  context.off('request', onRequest);
  context.off('response', onResponse);
  await Promise.all(pending);
  await testInfo.attach('network-log.json', {
    body: JSON.stringify(
      seen.map((s) => ({ where: s.where, text: s.text.slice(0, 2000) })),
      null,
      1,
    ),
    contentType: 'application/json',
  });

  // The session was real: many requests, gateway answers and live messages recorded.
  expect(requests).toBeGreaterThan(20);
  expect(responses).toBeGreaterThan(20);
  expect(seen.filter((s) => s.where.includes('/gw/v1/history')).length).toBeGreaterThan(5);
  expect(liveMessages.length).toBeGreaterThan(1);

  // Every finding is reported at once.
  expect.soft(authorization, 'requests with an Authorization header').toEqual([]);
  expect
    .soft(
      seen.flatMap((s) => secretsIn(s.text, s.where, secrets)),
      'keys seen by the browser',
    )
    .toEqual([]);
  // Only the gateway: the browser never called the key-protected API.
  expect
    .soft(seen.filter((s) => s.where.startsWith('request') && s.where.includes('/api/v1/')).map((s) => s.where))
    .toEqual([]);

  // The build: no key in any file the server ships (JS, source maps, HTML).
  const built = filesUnder('dist');
  expect(built.some((f) => /assets\/.*\.js$/.test(f))).toBe(true);
  const inBuild = built.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [
      ...secretsIn(text, file, secrets),
      ...(text.includes('e2e-secret') ? [`${file}: mentions the e2e key`] : []),
    ];
  });
  expect.soft(inBuild, 'keys in the build').toEqual([]);
  expect(GENERATED_KEY.test(readFileSync(join('dist', 'index.html'), 'utf8'))).toBe(false);
});

test('security: the market control exists only when asked for, and can never be turned on in production', async ({
  request,
}, testInfo) => {
  test.setTimeout(60_000);
  // Asked for under NODE_ENV=production (by flag or by variable): the server refuses to start.
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-e2e-prod-'));
  try {
    const port = String(await freePort());
    for (const [args, env] of [
      [['--test-controls'], {}],
      [[], { MARKET_TEST_CONTROLS: '1' }],
    ] as const) {
      const run = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/server/cli/serve.ts',
          '--port',
          port,
          '--data-dir',
          dataDir,
          '--pools',
          '300',
          '--days',
          '2',
          ...args,
        ],
        {
          env: { ...process.env, ...env, NODE_ENV: 'production' },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(run.status, `serve ${args.join(' ')} ${JSON.stringify(env)} under NODE_ENV=production`).toBe(1);
      expect(run.stderr).toContain('Test controls can never be enabled in production');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  // Not asked for: there is no such endpoint.
  const server = await ServerProcess.create({ logFile: testInfo.outputPath('server.log'), testControls: false });
  try {
    await server.start();
    const response = await request.post(`${server.origin}/__test__/block`);
    expect(response.status()).toBe(404);
    expect((await request.get(`${server.origin}/healthz`)).ok()).toBe(true);
  } finally {
    await server.dispose();
  }
});

test('security: /docs keeps a key typed in Authorize in its tab only, and forgets one an earlier version stored', async ({
  page,
  context,
}) => {
  test.setTimeout(60_000);
  await page.goto('/docs');
  await expect(page.getByRole('note')).toContainText('A key you type in Authorize stays in this tab only');
  // Authorize with the real key, and use it: the request goes through with it.
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const dialog = page.locator('.dialog-ux');
  await dialog.locator('input').first().fill(E2E_API_KEY);
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  const groups = page
    .locator('.opblock')
    .filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/groups"]') });
  await groups.locator('.opblock-summary-control').click();
  await groups.getByRole('button', { name: 'Try it out' }).click();
  await groups.getByRole('button', { name: 'Execute' }).click();
  await expect(groups.locator('.live-responses-table tr.response .response-col_status').first()).toHaveText(/^\s*200/);

  // Nothing of it is kept by the browser: storage, session storage, cookies, IndexedDB.
  const kept = await page.evaluate(async () => ({
    localStorage: JSON.stringify({ ...localStorage }),
    sessionStorage: JSON.stringify({ ...sessionStorage }),
    cookie: document.cookie,
    indexedDb: JSON.stringify(await indexedDB.databases()),
  }));
  for (const [where, text] of Object.entries(kept)) expect(text, where).not.toContain(E2E_API_KEY);
  expect(JSON.stringify(await context.cookies())).not.toContain(E2E_API_KEY);
  expect(JSON.stringify(await context.storageState())).not.toContain(E2E_API_KEY);

  // What an earlier /docs (persistAuthorization on) left in localStorage is removed on the next load.
  await page.evaluate(
    (key) =>
      localStorage.setItem(
        'authorized',
        JSON.stringify({ bearerAuth: { name: 'bearerAuth', schema: { type: 'http', scheme: 'bearer' }, value: key } }),
      ),
    E2E_API_KEY,
  );
  await page.reload();
  await expect(page.getByRole('note')).toBeVisible();
  await expect.poll(() => page.evaluate(() => localStorage.getItem('authorized'))).toBeNull();
  // And the reloaded tab holds no key: the same request is refused.
  const again = page
    .locator('.opblock')
    .filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/groups"]') });
  await again.locator('.opblock-summary-control').click();
  await again.getByRole('button', { name: 'Try it out' }).click();
  await again.getByRole('button', { name: 'Execute' }).click();
  await expect(again.locator('.live-responses-table tr.response .response-col_status').first()).toHaveText(/^\s*401/);
});

test('security: the page cannot be framed by another site, and an inline script injected into it does not run', async ({
  page,
  contentSecurity,
}) => {
  await page.goto('/');
  await waitForCandles(page);
  // Markup an attacker managed to inject (a token name that escaped, say): its script is refused.
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true;';
    document.body.append(script);
    const handler = document.createElement('img');
    handler.setAttribute('src', 'data:,');
    handler.setAttribute('onerror', 'window.__injected = true;');
    document.body.append(handler);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return (window as unknown as { __injected?: boolean }).__injected === true;
  });
  expect(ran).toBe(false);
  await expect
    .poll(() => contentSecurity.filter((v) => v.directive.startsWith('script-src')).length)
    .toBeGreaterThanOrEqual(2);

  // What this test provoked on purpose is not a defect of the flow.
  const provoked = contentSecurity.filter(
    (v) => v.directive.startsWith('script-src') || /Executing inline/.test(v.sample),
  );
  expect(provoked.length).toBeGreaterThanOrEqual(2);
  contentSecurity.splice(0, contentSecurity.length, ...contentSecurity.filter((v) => !provoked.includes(v)));

  // Another page frames the app: the browser refuses to show it (frame-ancestors 'none'): the frame
  // holds Chromium's error page, not the app (which it would, were the app's answer without the policy).
  const app = new URL(page.url()).origin;
  const framing = await page.context().newPage();
  await framing.goto('about:blank');
  await framing.setContent(`<iframe id="app" src="${app}/"></iframe>`);
  const frame = await (await framing.locator('#app').elementHandle())?.contentFrame();
  await expect.poll(() => frame?.url()).toBe('chrome-error://chromewebdata/');
  expect(framing.frames().some((f) => f.url().startsWith(app))).toBe(false);
  await framing.close();
});
