import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { embeddedUpstream } from '../../src/gateway/upstream';
import { gatewayRoutes, serviceRoutes } from '../../src/server/routes';
import { staticApp } from '../../src/server/static-app';
import { INLINED_PREFERENCES_ELEMENT_ID } from '../../src/app/lib/first-chart';
import { memoryBudgets } from '../../src/node/rate-limits';
import { pagePolicy } from '../../src/node/security-headers';
import {
  marketTestControls,
  refuseTestControlsInProduction,
  upstreamTestControls,
} from '../../src/server/test-controls';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { freePort } from '../support/free-port';
import { pairWithPools } from '../support/market';
import { createTestService, TEST_KEYS, type TestService } from '../support/service';

/** The composition root's parts (src/server/platform.ts composes them), each on its own. */

let service: TestService;
let gateway: Gateway;
let dir: string;
const INDEX = '<!doctype html><html><head><title>parts</title></head><body><div id="root"></div></body></html>';

beforeAll(async () => {
  service = await createTestService({ pools: 120, days: 1 });
  gateway = createGateway({
    config: DEFAULT_GATEWAY_CONFIG,
    upstream: embeddedUpstream((request) => service.runtime.app.fetch(request), service.runtime.internalKey),
  });
  dir = mkdtempSync(join(tmpdir(), 'platform-parts-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-9f8e.js'), 'console.log(1);');
});
afterAll(async () => {
  gateway?.close();
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const auth = { headers: { Authorization: `Bearer ${TEST_KEYS.enterprise}` } };

describe('serviceRoutes', () => {
  it('hands the service its paths whole, its own 404 shape included', async () => {
    const routes = serviceRoutes(service.runtime);
    expect((await routes.request('/api/v1/groups', auth)).status).toBe(200);
    expect((await routes.request('/healthz')).status).toBe(200);
    expect((await routes.request('/openapi.json')).status).toBe(200);
    const unknown = await routes.request('/api/v1/nope', auth);
    expect(unknown.status).toBe(404);
    expect(priceErrorSchema.safeParse(await unknown.json()).success).toBe(true);
    expect((await routes.request('/gw/v1/groups')).status).toBe(404);
  });

  it("gives a cluster's writer (role ingest) /healthz alone", async () => {
    const routes = serviceRoutes({ app: service.runtime.app, config: { ...service.runtime.config, role: 'ingest' } });
    expect((await routes.request('/healthz')).status).toBe(200);
    expect((await routes.request('/api/v1/groups', auth)).status).toBe(404);
    expect((await routes.request('/docs')).status).toBe(404);
  });
});

describe('gatewayRoutes', () => {
  it('serves the gateway, its REST answers compressed when the browser accepts it', async () => {
    const routes = gatewayRoutes(gateway);
    const gz = await routes.request('/gw/v1/groups', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString())).toEqual(
      await (await routes.request('/gw/v1/groups')).json(),
    );
    expect((await routes.request('/api/v1/groups', auth)).status).toBe(404);
  });
});

describe('staticApp', () => {
  it("serves the page on / and on the app's own paths, the files cached for good, and no page on an API path", async () => {
    const app = await staticApp({ dir, gateway });
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(await (await app.request('/some/deep/link')).text()).toContain('<title>parts</title>');
    const asset = await app.request('/assets/app-9f8e.js');
    expect(await asset.text()).toBe('console.log(1);');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const path of ['/api/v1/nope', '/gw/v1/nope', '/healthz', '/__test__/block'])
      expect((await app.request(path)).status, path).toBe(404);
  });
});

describe("the page's render budget per client address (issue 45)", () => {
  it('renders the page within the budget, then sends it as built (nothing rendered or inlined) past it; another address is rendered', async () => {
    const app = await staticApp({
      dir,
      gateway,
      budget: {
        perMinute: 3,
        clientAddress: (c) => c.req.header('X-Test-Client') ?? 'nobody',
        limiter: memoryBudgets('page-test'),
      },
    });
    const load = async (client: string, encoding?: string) => {
      const answer = await app.request('/?symbol=SNEK', {
        headers: { 'X-Test-Client': client, ...(encoding ? { 'Accept-Encoding': encoding } : {}) },
      });
      expect(answer.status).toBe(200);
      const bytes = Buffer.from(await answer.arrayBuffer());
      const text = answer.headers.get('Content-Encoding') === 'gzip' ? gunzipSync(bytes).toString() : bytes.toString();
      return { text, answer };
    };
    const rendered = (text: string) => text.includes(`id="${INLINED_PREFERENCES_ELEMENT_ID}"`);
    for (let n = 0; n < 3; n++) expect(rendered((await load('flooder')).text)).toBe(true);
    const past = await load('flooder');
    expect(rendered(past.text)).toBe(false);
    expect(past.text).toBe(INDEX);
    expect(past.answer.headers.get('Content-Security-Policy')).toBe(pagePolicy(INDEX));
    expect(past.answer.headers.get('Cache-Control')).toBe('no-cache');
    // Compressed once: the same bytes for every browser past its budget.
    const zipped = await load('flooder', 'gzip');
    expect(zipped.answer.headers.get('Content-Encoding')).toBe('gzip');
    expect(zipped.text).toBe(INDEX);
    expect(rendered((await load('neighbour')).text)).toBe(true);
  });
});

describe('test controls', () => {
  it('make the embedded market trade a block on the pair asked, and refuse a bad query with 400', async () => {
    const controls = marketTestControls(service.runtime);
    const pool = await pairWithPools(service.runtime, 2);
    const made = await controls.request(`/__test__/block?pool=${pool.poolId}&trades=3`, { method: 'POST' });
    expect(made.status).toBe(200);
    expect(((await made.json()) as { trades: number }).trades).toBe(3);
    expect((await controls.request('/__test__/block?trades=3', { method: 'POST' })).status).toBe(400);
    expect((await controls.request('/__test__/block?pool=nope', { method: 'POST' })).status).toBe(404);
  });

  it('say, with 502, that an upstream that does not answer did not', async () => {
    const controls = upstreamTestControls(`http://127.0.0.1:${await freePort()}`);
    const answer = await controls.request('/__test__/block', { method: 'POST' });
    expect(answer.status).toBe(502);
    expect(((await answer.json()) as { errmsg: string }).errmsg).toMatch(/upstream's test control did not answer/);
  });

  it('are refused in production', () => {
    expect(() => refuseTestControlsInProduction({ NODE_ENV: 'production' })).toThrow(/never be enabled in production/);
    expect(() => refuseTestControlsInProduction({ NODE_ENV: 'test' })).not.toThrow();
  });
});
