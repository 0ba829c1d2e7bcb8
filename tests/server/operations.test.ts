import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import type { LogFields } from '../../src/node/log';
import { createPlatform, type Platform } from '../../src/server/platform';
import { Lifecycle } from '../../src/server/operations';
import { parseServiceConfig } from '../../src/service/config';
import { aggregatesByActivity } from '../support/market';
import { seriesValue } from '../support/metrics';
import { createTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The server's operations surface in-process: /livez, /readyz and /metrics on the platform without a
 * key, a request id on every answer and in every request line, request metrics by route template for
 * the service's routes and the gateway's, live connections counted, readiness through a drain, and no
 * key ever in the metrics.
 */
const KEY = 'test-free-key-0001';
let test: TestPlatform;
const lines: { line: string; fields: LogFields | undefined }[] = [];
const metrics = async () => (await test.fetch('/metrics')).text();

beforeAll(async () => {
  test = await createTestPlatform({ days: 0.5, log: (line, fields) => lines.push({ line, fields }) });
});
afterAll(async () => {
  await test?.close();
});

describe('probes and metrics', () => {
  it('answers /livez and /readyz without a key', async () => {
    const live = await test.fetch('/livez');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await test.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers.get('Cache-Control')).toBe('no-store');
    expect(await ready.json()).toEqual({ ready: true, phase: 'ready', checks: { store: 'ok' } });
  });

  it("serves /metrics without a key, in Prometheus' text format, with Node's process metrics", async () => {
    const response = await test.fetch('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    expect(seriesValue(text, 'cdx_ready')).toBe(1);
    expect(seriesValue(text, 'cdx_node_info', { role: 'all', source: 'simulated' })).toBe(1);
    // Every line is a comment or `name{labels} value`: nothing Prometheus would refuse (it reads special
    // values as Go's ParseFloat does, whatever their case: prom-client writes NaN as `Nan`).
    for (const line of text.split('\n').filter(Boolean))
      expect(line).toMatch(/^(# (HELP|TYPE) .+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (-?[0-9.e+-]+|nan|[+-]inf))$/i);
  });

  it('gives every answer a request id and logs each request with it, its route template and status', async () => {
    // The client is not a trusted proxy (TRUST_PROXY is unset): the id it sends is not taken.
    const given = await test.fetch('/api/v1/groups', {
      headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': 'edge-7f3a' },
    });
    expect(given.status).toBe(200);
    const id = given.headers.get('X-Request-Id') ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const line = lines.find((l) => l.fields?.reqId === id);
    expect(line?.line).toMatch(/^GET \/api\/v1\/groups 200 [\d.]+ms$/);
    expect(line?.fields).toMatchObject({ level: 'info', method: 'GET', route: '/api/v1/groups', status: 200 });
    // The gateway's answers too, under their own route.
    const gateway = await test.fetch('/gw/v1/groups');
    expect(gateway.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.find((l) => l.fields?.reqId === gateway.headers.get('X-Request-Id'))?.fields).toMatchObject({
      route: '/gw/v1/groups',
      status: 200,
    });
  });

  it('counts requests by the route template of the service and of the gateway, not by path', async () => {
    const pools = (await aggregatesByActivity(test.runtime)).slice(0, 3);
    for (const pool of pools) {
      expect(
        (
          await test.fetch(`/api/v1/tokens/current?pool=${pool.poolId}`, {
            headers: { Authorization: `Bearer ${KEY}` },
          })
        ).status,
      ).toBe(200);
      expect((await test.fetch(`/gw/v1/tokens/logo/${pool.pair.quote.unit || 'lovelace'}`)).status).toBeLessThan(500);
    }
    const text = await metrics();
    expect(
      seriesValue(text, 'cdx_http_requests_total', { method: 'GET', route: '/api/v1/tokens/current', status: '200' }),
    ).toBe(3);
    expect(
      seriesValue(text, 'cdx_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/tokens/current' }),
    ).toBe(3);
    const logos = text
      .split('\n')
      .filter((l) => l.startsWith('cdx_http_requests_total{') && l.includes('route="/gw/v1/tokens/logo/:unit"'));
    expect(logos.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)).toBe(3);
    for (const pool of pools) expect(text).not.toContain(pool.poolId);
  });

  it('counts live connections and the events they were sent', async () => {
    const [pool] = await aggregatesByActivity(test.runtime);
    const source = test.eventSource(`/gw/v1/live?pools=${pool?.poolId}`);
    const trades: unknown[] = [];
    source.addEventListener('trade', (event) => trades.push(event.data));
    try {
      await vi.waitUntil(async () => seriesValue(await metrics(), 'cdx_gateway_live_connections') === 1, {
        timeout: 5_000,
      });
      await vi.waitUntil(async () => seriesValue(await metrics(), 'cdx_stream_connections') === 1, { timeout: 5_000 });
      const before = seriesValue(await metrics(), 'cdx_gateway_events_delivered_total') ?? 0;
      await test.trade();
      while (trades.length === 0) {
        await test.trade();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await vi.waitUntil(
        async () =>
          (seriesValue(await metrics(), 'cdx_gateway_events_delivered_total') ?? 0) - before === trades.length,
        { timeout: 5_000 },
      );
      expect(seriesValue(await metrics(), 'cdx_gateway_upstream_up')).toBe(1);
      expect(seriesValue(await metrics(), 'cdx_gateway_upstream_pools')).toBeGreaterThanOrEqual(1);
    } finally {
      source.close();
    }
    await vi.waitUntil(async () => seriesValue(await metrics(), 'cdx_gateway_live_connections') === 0, {
      timeout: 5_000,
    });
  });

  it("never shows a key: not the one sent, not a bad one, not the gateway's own", async () => {
    const bad = 'cdx_not-a-real-key-but-secret-0000000000000';
    await test.fetch(`/api/v1/groups?key=${KEY}&api_key=${bad}`, { headers: { Authorization: `Bearer ${KEY}` } });
    await test.fetch('/api/v1/groups', { headers: { Authorization: `Bearer ${bad}` } });
    await test.fetch(`/api/v1/tokens/logo/${bad}`, { headers: { Authorization: `Bearer ${KEY}` } });
    await test.fetch(`/gw/v1/tokens/logo/${bad}`);
    await test.fetch(`/${bad}`);
    const text = await metrics();
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(bad);
    expect(text).not.toContain(test.runtime.internalKey);
    // A key given in a URL is the client's doing and shows in that request's line (path and query); never the header's.
    expect(lines.some((l) => l.line.includes(`Bearer`))).toBe(false);
  });

  it('is not ready while draining, and still serves', async () => {
    // A platform of its own: draining is for good.
    const lifecycle = new Lifecycle();
    const config = parseServiceConfig(
      { 'data-dir': ':memory:', pools: '40', days: '0.1' },
      { TOKEN_API_KEYS: `${KEY}:free` },
    );
    const platform: Platform = await createPlatform({
      service: config,
      gateway: DEFAULT_GATEWAY_CONFIG,
      lifecycle,
      serveMetrics: false,
    });
    try {
      const get = (path: string) =>
        platform.app.fetch(new Request(`http://platform.test${path}`, { headers: { Authorization: `Bearer ${KEY}` } }));
      expect(await (await get('/readyz')).json()).toEqual({
        ready: false,
        phase: 'starting',
        checks: { startup: 'starting: opening the store' },
      });
      lifecycle.ready(platform.readiness);
      expect((await get('/readyz')).status).toBe(200);
      lifecycle.drain();
      const draining = await get('/readyz');
      expect(draining.status).toBe(503);
      expect(await draining.json()).toEqual({
        ready: false,
        phase: 'draining',
        checks: { store: 'ok', drain: 'draining before shutdown' },
      });
      expect((await get('/api/v1/groups')).status).toBe(200);
      expect(seriesValue(await platform.metrics.registry.metrics(), 'cdx_ready')).toBe(0);
      // /metrics moved elsewhere (--metrics-port): not on the public app.
      const moved = await get('/metrics');
      expect(moved.status).toBe(404);
      expect(await moved.json()).toEqual({ s: 'error', errmsg: 'Unknown endpoint: GET /metrics' });
    } finally {
      await platform.close();
    }
  });
});
