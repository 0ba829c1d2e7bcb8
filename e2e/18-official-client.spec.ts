import type { Page, TestInfo } from '@playwright/test';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../tests/support/engines';
import { startClientPage, waitForEvent } from './support/client-page';
import { expect, test } from './support/fixtures';
import { ServerProcess } from './support/server-process';

/**
 * The official client (Charli3's TradingView demo) in a real browser: its calls made from a page of
 * another origin, with CORS as the demo meets it (e2e/support/client-page.ts). Logos fetched with only
 * an Authorization header must come back as images it can draw; a pair switch (abort, then the next
 * stream at once with the same key) must never be refused, on one node and on a two-node cluster,
 * while a truly concurrent second stream of the key still is.
 */

/** A key of a plan with one stream per key (the spec's default), as the demo's users have. */
const KEY = 'official-client-key-0001';
const KEYS = `${KEY}:pro`;
const SWITCHES = 50;
const REFUSAL = JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' });
const PING = JSON.stringify({ s: 'ok' });

let clientPage: Awaited<ReturnType<typeof startClientPage>>;
test.beforeAll(async () => {
  clientPage = await startClientPage();
});
test.afterAll(async () => clientPage?.close());

const authorized = { headers: { Authorization: `Bearer ${KEY}` } };

/** The Aggregate pools and the token units of their pairs (ADA left out), as the demo reads them from symbol_info. */
async function aggregates(api: string): Promise<{ pools: string[]; units: string[] }> {
  const info = (await (await fetch(`${api}/api/v1/symbol_info?group=Aggregate`, authorized)).json()) as {
    ticker: string[];
    currency: string[];
    'base-currency': string[];
  };
  const units = [...new Set([...info.currency, ...info['base-currency']])].filter((unit) => /^[0-9a-f]{56}/.test(unit));
  return { pools: info.ticker, units };
}

/** One trade on `pool`'s pair, now (the market's test control). */
async function trade(control: string, pool: string): Promise<void> {
  const response = await fetch(`${control}/__test__/block?pool=${pool}&trades=1`, { method: 'POST' });
  expect(response.status, await response.clone().text()).toBe(200);
}

interface SwitchFigures {
  readonly switches: number;
  readonly accepted: number;
  readonly refused: number;
  readonly firstEvents: number;
  readonly medianFirstLineMs: number;
  readonly maxFirstLineMs: number;
}

/**
 * `SWITCHES` pair switches as the demo makes them, each to the next of `pools` on the next of `apis`
 * (one node, or the nodes of a cluster behind a load balancer in turn): the new stream's first line
 * must be the ping, and a trade on its pool must reach it.
 */
async function switchPairs(
  page: Page,
  apis: readonly string[],
  pools: readonly string[],
  control: string,
  testInfo: TestInfo,
): Promise<SwitchFigures> {
  let refused = 0;
  let accepted = 0;
  let firstEvents = 0;
  const times: number[] = [];
  const lines: string[] = [];
  for (let i = 0; i < SWITCHES; i++) {
    const api = apis[i % apis.length] ?? '';
    const pool = pools[i % pools.length] ?? '';
    const opened = await page.evaluate(([a, k, p]) => window.client.switchTo(a, k, p), [api, KEY, pool] as const);
    lines.push(`${i} ${api} ${pool.slice(0, 8)} ${opened.ms?.toFixed(1) ?? '-'} ms ${opened.first ?? '(no line)'}`);
    if (opened.ms !== null) times.push(opened.ms);
    if (opened.first === REFUSAL) {
      refused++;
      continue;
    }
    expect(opened.first, `switch ${i}: the new stream's first line`).toBe(PING);
    accepted++;
    await trade(control, pool);
    await waitForEvent(page, opened.index, pool);
    firstEvents++;
  }
  await page.evaluate(() => window.client.stop());
  times.sort((a, b) => a - b);
  const figures = {
    switches: SWITCHES,
    accepted,
    refused,
    firstEvents,
    medianFirstLineMs: Math.round(times[Math.floor(times.length / 2)] ?? 0),
    maxFirstLineMs: Math.round(times.at(-1) ?? 0),
  };
  await testInfo.attach('switches', {
    body: `${JSON.stringify(figures)}\n${lines.join('\n')}\n`,
    contentType: 'text/plain',
  });
  console.log(`${testInfo.title}: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * A second stream of the key while the first is open (`holder` on `holderApi`): refused with the
 * spec's message once the handover wait runs out, and the first keeps receiving events.
 */
async function expectConcurrentRefused(
  page: Page,
  holderApi: string,
  secondApi: string,
  pool: string,
  control: string,
): Promise<number> {
  const held = await page.evaluate(([a, k, p]) => window.client.switchTo(a, k, p), [holderApi, KEY, pool] as const);
  expect(held.first).toBe(PING);
  const second = await page.evaluate(([a, k, p]) => window.client.concurrent(a, k, p), [secondApi, KEY, pool] as const);
  expect(second.first).toBe(REFUSAL);
  // Refused once the wait for a handover (STREAM_HANDOVER_MS, 2 s) runs out, and not much later.
  expect(second.ms).toBeGreaterThan(1_500);
  expect(second.ms).toBeLessThan(4_000);
  await expect.poll(() => page.evaluate((i) => window.client.streams[i]?.ended, second.index)).toBe(true);
  await trade(control, pool);
  await waitForEvent(page, held.index, pool);
  await page.evaluate(() => window.client.stop());
  return second.ms ?? 0;
}

test.describe('one node', () => {
  let server: ServerProcess;
  test.beforeAll(async ({ browser: _browser }, testInfo) => {
    testInfo.setTimeout(90_000);
    server = await ServerProcess.create({
      logFile: testInfo.outputPath('server.log'),
      market: ['--pools', '120', '--days', '0.5', '--seed', '7'],
      env: { TOKEN_API_KEYS: KEYS },
    });
    await server.start();
  });
  test.afterAll(async () => server?.dispose());

  test('logos: a plain fetch with only Authorization gets the PNG, drawn as an image; programs keep the JSON', async ({
    page,
  }, testInfo) => {
    const api = server.origin;
    const { units } = await aggregates(api);
    // What a program gets (Node's fetch, default Accept */*): the spec's JSON string, or null.
    const json = new Map<string, string | null>();
    const found = () => ({
      withLogo: [...json].find(([, logo]) => logo !== null),
      without: [...json].find(([, logo]) => logo === null),
    });
    for (const unit of units) {
      const response = await fetch(`${api}/api/v1/tokens/logo/${unit}`, authorized);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      json.set(unit, (await response.json()) as string | null);
      if (found().withLogo && found().without) break;
    }
    const { withLogo, without } = found();
    if (!withLogo || !without) throw new Error('the market should have tokens with and without a logo');
    const [unit, base64] = withLogo;

    await page.goto(clientPage.origin);
    const seen: Record<string, unknown> = {};
    // The demo's call, from another origin: CORS with Authorization, Chromium's default Accept.
    const fetched = await page.evaluate(([u, k]) => window.client.logo(u, k), [
      `${api}/api/v1/tokens/logo/${unit}`,
      KEY,
    ] as const);
    seen['service, page fetch (cross-origin)'] = {
      status: fetched.status,
      contentType: fetched.contentType,
      width: fetched.width,
    };
    expect(fetched).toMatchObject({ status: 200, contentType: 'image/png' });
    expect(fetched.width).toBeGreaterThan(0);
    expect(fetched.height).toBeGreaterThan(0);
    // The very bytes the JSON carries.
    expect(fetched.base64).toBe(base64);

    const none = await page.evaluate(([u, k]) => window.client.logo(u, k), [
      `${api}/api/v1/tokens/logo/${without[0]}`,
      KEY,
    ] as const);
    seen['service, page fetch, token without a logo'] = { status: none.status, contentType: none.contentType };
    expect(none.status).toBe(404);
    expect(JSON.parse(none.text ?? '')).toMatchObject({ detail: [{ msg: 'Token has no logo' }] });

    // Through the gateway (no key: it adds its own): an <img> from the other origin, and a page of
    // the gateway's own origin with a plain fetch (same-origin: no Origin header, only Fetch Metadata).
    const img = await page.evaluate((u) => window.client.image(u), `${api}/gw/v1/tokens/logo/${unit}`);
    seen['gateway, <img> (cross-origin)'] = img;
    expect(img.width).toBeGreaterThan(0);
    // The app's page: its policy lets it connect to its own origin (a JSON answer's forbids everything).
    await page.goto(`${api}/`);
    const sameOrigin = await page.evaluate(async (path) => {
      const response = await fetch(path);
      const bitmap = await createImageBitmap(await response.blob());
      return { status: response.status, contentType: response.headers.get('content-type'), width: bitmap.width };
    }, `/gw/v1/tokens/logo/${unit}`);
    seen['gateway, page fetch (same origin)'] = sameOrigin;
    expect(sameOrigin).toMatchObject({ status: 200, contentType: 'image/png' });
    expect(sameOrigin.width).toBeGreaterThan(0);
    // The app asks for JSON explicitly, and gets it.
    const app = await page.evaluate(async (path) => {
      const response = await fetch(path, { headers: { Accept: 'application/json' } });
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: (await response.json()) as unknown,
      };
    }, `/gw/v1/tokens/logo/${unit}`);
    seen['gateway, page fetch with Accept: application/json (the app)'] = {
      status: app.status,
      contentType: app.contentType,
    };
    expect(app.body).toBe(base64);

    await testInfo.attach('logo answers', { body: JSON.stringify(seen, null, 2), contentType: 'application/json' });
    console.log(`logo answers: ${JSON.stringify(seen)}`);
  });

  test('pair switches: 50 aborts and immediate reopens with the same key, none refused, every new stream gets its event', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    const { pools } = await aggregates(server.origin);
    await page.goto(clientPage.origin);
    const figures = await switchPairs(page, [server.origin], pools.slice(0, 5), server.origin, testInfo);
    expect(figures).toMatchObject({ accepted: SWITCHES, refused: 0, firstEvents: SWITCHES });
  });

  test('a truly concurrent second stream of the key is still refused, and the first keeps streaming', async ({
    page,
  }) => {
    const { pools } = await aggregates(server.origin);
    await page.goto(clientPage.origin);
    const ms = await expectConcurrentRefused(page, server.origin, server.origin, pools[0] ?? '', server.origin);
    console.log(`one node: a concurrent second stream refused after ${Math.round(ms)} ms`);
  });
});

test.describe('a two-node cluster (PostgreSQL, Redis, an ingest node and two API nodes)', () => {
  let pg: TestPostgres | undefined;
  let redis: TestRedis | undefined;
  const nodes: ServerProcess[] = [];
  let ingest: ServerProcess;
  let apis: string[] = [];

  test.beforeAll(async ({ browser: _browser }, testInfo) => {
    testInfo.setTimeout(180_000);
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    const env = {
      DATABASE_URL: await pg.createDatabase('official_client'),
      REDIS_URL: redis.url,
      TOKEN_API_KEYS: KEYS,
    };
    ingest = await ServerProcess.create({
      logFile: testInfo.outputPath('ingest.log'),
      market: ['--pools', '120', '--days', '0.5', '--seed', '7'],
      args: ['--role', 'ingest'],
      env,
    });
    nodes.push(ingest);
    await ingest.start();
    for (const name of ['api-1', 'api-2']) {
      const node = await ServerProcess.create({
        logFile: testInfo.outputPath(`${name}.log`),
        market: [],
        testControls: false,
        args: ['--role', 'api'],
        env,
      });
      nodes.push(node);
    }
    await Promise.all(nodes.slice(1).map((node) => node.start()));
    apis = nodes.slice(1).map((node) => node.origin);
  });
  test.afterAll(async () => {
    await Promise.all(nodes.map((node) => node.dispose()));
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });

  test('pair switches across the nodes: 50 aborts and immediate reopens, each on the other node, none refused', async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    const { pools } = await aggregates(apis[0] ?? '');
    await page.goto(clientPage.origin);
    const figures = await switchPairs(page, apis, pools.slice(0, 5), ingest.origin, testInfo);
    expect(figures).toMatchObject({ accepted: SWITCHES, refused: 0, firstEvents: SWITCHES });
  });

  test('pair switches on one node of the cluster: none refused', async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const { pools } = await aggregates(apis[1] ?? '');
    await page.goto(clientPage.origin);
    const figures = await switchPairs(page, [apis[1] ?? ''], pools.slice(0, 5), ingest.origin, testInfo);
    expect(figures).toMatchObject({ accepted: SWITCHES, refused: 0, firstEvents: SWITCHES });
  });

  test('a truly concurrent second stream of the key on the other node is still refused', async ({ page }) => {
    const { pools } = await aggregates(apis[0] ?? '');
    await page.goto(clientPage.origin);
    const ms = await expectConcurrentRefused(page, apis[0] ?? '', apis[1] ?? '', pools[0] ?? '', ingest.origin);
    console.log(`cluster: a concurrent second stream on the other node refused after ${Math.round(ms)} ms`);
  });
});
