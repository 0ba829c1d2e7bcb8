import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayError } from '../../src/datafeed';
import { gatewayInfoSchema } from '../../src/shared/api/gateway';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { createTestPlatform, type TestPlatform } from '../support/platform';

/** The browser's one HTTP client of the gateway, against the real platform in-process. */

let tp: TestPlatform;
let fetched: string[];
let client: GatewayClient;

beforeAll(async () => {
  tp = await createTestPlatform({ pools: 60, days: 1 });
  fetched = [];
  client = new GatewayClient('/gw/v1', (input, init) => {
    fetched.push(input);
    return tp.fetch(input, init);
  });
});
afterAll(async () => tp.close());

describe('GatewayClient', () => {
  it('builds URLs under its base, leaving out undefined values', async () => {
    expect(client.url('/history', { symbol: 'ab', from: 1, include_tvl: true, to: undefined })).toBe(
      '/gw/v1/history?symbol=ab&from=1&include_tvl=true',
    );
    expect(new GatewayClient('/gw/v1/', tp.fetch).url('/info')).toBe('/gw/v1/info');
  });

  it('get: a validated body, or an outcome with the server’s message; identical requests in flight share one fetch', async () => {
    fetched.length = 0;
    const [a, b] = await Promise.all([
      client.get('/info', {}, gatewayInfoSchema),
      client.get('/info', {}, gatewayInfoSchema),
    ]);
    expect(a.ok && a.value.source).toBe('embedded');
    expect(b).toBe(a);
    expect(fetched).toEqual(['/gw/v1/info']);
    const bad = await client.get('/tokens/current', { pool: 'zz' }, tokenStatsSchema);
    expect(bad).toEqual({ ok: false, status: 422, error: expect.stringMatching(/pool/i) });
  });

  it('revalidate: after a metadata change every request is checked with the gateway past the browser cache', async () => {
    const inits: (RequestInit | undefined)[] = [];
    const own = new GatewayClient('/gw/v1', (input, init) => {
      inits.push(init);
      return tp.fetch(input, init);
    });
    await own.getOrThrow('/info', {}, gatewayInfoSchema);
    expect(inits[0]?.cache).toBeUndefined();
    own.revalidate();
    await own.getOrThrow('/info', {}, gatewayInfoSchema);
    await own.get('/info', {}, gatewayInfoSchema);
    expect(inits.slice(1).map((init) => init?.cache)).toEqual(['no-cache', 'no-cache']);
  });

  it('getOrThrow: the body, or a GatewayError with the server’s message and status', async () => {
    expect((await client.getOrThrow('/info', {}, gatewayInfoSchema)).simulated).toBe(true);
    const error = await client.getOrThrow('/tokens/current', { pool: 'zz' }, tokenStatsSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 422, message: expect.stringMatching(/pool/i) });
    const down = new GatewayClient('/gw/v1', () => Promise.reject(new TypeError('fetch failed')));
    await expect(down.getOrThrow('/info', {}, gatewayInfoSchema)).rejects.toThrow(
      'The gateway is unreachable (/info): fetch failed',
    );
    const html = new GatewayClient('/gw/v1', async () => new Response('<html>', { status: 502 }));
    await expect(html.getOrThrow('/info', {}, gatewayInfoSchema)).rejects.toMatchObject({
      status: 502,
      message: 'The gateway answered 502 to /info',
    });
  });

  it('getOrThrow: an aborted request rejects with the signal’s reason, not a gateway error', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('The query was cancelled', 'AbortError'));
    const error = await client.getOrThrow('/info', {}, gatewayInfoSchema, controller.signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    // Aborted while the answer was on its way (a fetch that does not watch the signal): still no answer.
    const later = new AbortController();
    const slow = new GatewayClient('/gw/v1', async (input, init) => {
      later.abort(new DOMException('Unmounted', 'AbortError'));
      return tp.fetch(input, init);
    });
    await expect(slow.getOrThrow('/info', {}, gatewayInfoSchema, later.signal)).rejects.toThrow('Unmounted');
  });
});
