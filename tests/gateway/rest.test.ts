import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDescribed } from '../support/openapi';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { embeddedUpstream, remoteUpstream, type Upstream } from '../../src/gateway/upstream';
import { parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { gatewayInfoSchema, gatewayLiquiditySchema, gatewayTokenInfoSchema } from '../../src/shared/api/gateway';
import { historyResponseSchema } from '../../src/shared/api/history';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';

let dir: string;
let runtime: ServiceRuntime;
let gateway: Gateway;
const calls: { path: string; authorization: string | null }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-rest-'));
  runtime = await createServiceRuntime(parseServiceConfig({ 'data-dir': dir, pools: '200', days: '1', seed: '3' }, {}));
  const inner = embeddedUpstream((request) => {
    calls.push({
      path: new URL(request.url).pathname + new URL(request.url).search,
      authorization: request.headers.get('Authorization'),
    });
    return runtime.app.fetch(request);
  }, runtime.internalKey);
  const upstream: Upstream = inner;
  gateway = createGateway({
    config: DEFAULT_GATEWAY_CONFIG,
    upstream,
  });
});

afterAll(async () => {
  gateway.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => gateway.app.request(`/gw/v1${path}`, init);
const direct = async (path: string) => {
  const response = await runtime.app.request(`/api/v1${path}`, {
    headers: { Authorization: `Bearer ${runtime.internalKey}` },
  });
  await expectDescribed('GET', `/api/v1${path}`, response);
  return response;
};

describe('gateway REST forwarding', () => {
  it('adds the key upstream and passes status and body through unchanged', async () => {
    calls.length = 0;
    const symbols = symbolInfoResponseSchema.parse(await (await direct('/symbol_info?group=Aggregate')).json());
    const ticker = symbols.ticker[0] ?? '';
    const path = `/history?symbol=${ticker}&resolution=60min&from=0&to=${Math.floor(Date.now() / 1000) + 3600}&include_tvl=true`;
    const viaGateway = await get(path);
    expect(viaGateway.status).toBe(200);
    const body = historyResponseSchema.parse(await viaGateway.json());
    expect(body).toEqual(await (await direct(path)).json());
    expect(body.t.length).toBeGreaterThan(0);
    expect(calls.at(-1)?.authorization).toBe(`Bearer ${runtime.internalKey}`);
  });

  it('passes a compressed history through as the service encoded it, and compresses for browsers it did not', async () => {
    const symbols = symbolInfoResponseSchema.parse(await (await direct('/symbol_info?group=Aggregate')).json());
    const to = Math.floor(Date.now() / 1000) + 60;
    const path = `/history?symbol=${symbols.ticker[0] ?? ''}&resolution=1min&from=${to - 86_400}&to=${to}&include_tvl=true`;
    const identity = Buffer.from(await (await direct(path)).arrayBuffer());
    expect(identity.byteLength).toBeGreaterThan(1024);
    const browser = await get(path, { headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' } });
    expect(browser.headers.get('Content-Encoding')).toBe('deflate');
    expect(browser.headers.get('Cache-Control')).toBe('no-store');
    const deflated = Buffer.from(await browser.arrayBuffer());
    expect(Number(browser.headers.get('Content-Length'))).toBe(deflated.byteLength);
    expect(inflateSync(deflated).equals(identity)).toBe(true);
    const gzipOnly = await get(path, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipOnly.headers.get('Content-Encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzipOnly.arrayBuffer())).equals(identity)).toBe(true);
    const plain = await get(path);
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(Number(plain.headers.get('Content-Length'))).toBe(identity.byteLength);
    expect(Buffer.from(await plain.arrayBuffer()).equals(identity)).toBe(true);
  });

  it('passes error statuses and bodies through', async () => {
    const response = await get('/history?symbol=nope&resolution=1min&from=0&to=10');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ s: 'error', errmsg: 'Unknown symbol: nope' });
    const tokens = await get('/tokens/current?policy=zz');
    expect(tokens.status).toBe(422);
    expect((await tokens.json()) as unknown).toMatchObject({ detail: [{ loc: ['query', 'policy'] }] });
  });

  it('never lets a browser-supplied Authorization through, and never answers with the key', async () => {
    calls.length = 0;
    const response = await get('/groups?x=1', { headers: { Authorization: 'Bearer browser-key' } });
    expect(response.status).toBe(200);
    expect(calls.at(-1)?.authorization).toBe(`Bearer ${runtime.internalKey}`);
    const text = await response.text();
    expect(text).not.toContain(runtime.internalKey);
    for (const value of response.headers.values()) expect(value).not.toContain(runtime.internalKey);
  });

  it('caches groups, symbol_info and logos, and shares concurrent identical fetches', async () => {
    calls.length = 0;
    await Promise.all([
      get('/symbol_info?group=Minswap'),
      get('/symbol_info?group=Minswap'),
      get('/symbol_info?group=Minswap'),
    ]);
    await get('/symbol_info?group=Minswap');
    await get('/groups');
    await get('/groups');
    const unit = [...runtime.market.tokens.values()].find((t) => t.unit !== '')?.unit ?? '';
    await get(`/tokens/logo/${unit}`);
    await get(`/tokens/logo/${unit}`);
    const count = (prefix: string) => calls.filter((c) => c.path.startsWith(prefix)).length;
    expect(count('/api/v1/symbol_info?group=Minswap')).toBe(1);
    expect(count('/api/v1/groups')).toBeLessThanOrEqual(1);
    expect(count(`/api/v1/tokens/logo/${unit}`)).toBe(1);
  });

  it('does not cache history or current stats', async () => {
    calls.length = 0;
    const pool = [...runtime.market.pools.values()][0]?.poolId ?? '';
    await get(`/tokens/current?pool=${pool}`);
    await get(`/tokens/current?pool=${pool}`);
    expect(calls.filter((c) => c.path.startsWith('/api/v1/tokens/current')).length).toBe(2);
  });

  it('gzips large answers when asked, and answers 304 to a matching ETag', async () => {
    const response = await get('/symbol_info?group=Aggregate', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.headers.get('Content-Encoding')).toBe('gzip');
    const etag = response.headers.get('ETag');
    expect(etag).toBeTruthy();
    const again = await get('/symbol_info?group=Aggregate', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('gives the gzipped answer an ETag of its own and answers 304 to weak tags, lists and *, as the service does', async () => {
    const path = '/symbol_info?group=Aggregate';
    const identity = await get(path);
    const gzipped = await get(path, { headers: { 'Accept-Encoding': 'gzip' } });
    const etag = identity.headers.get('ETag') ?? '';
    expect(identity.headers.get('Content-Encoding')).toBeNull();
    expect(gzipped.headers.get('Content-Encoding')).toBe('gzip');
    // The same tags as the service's own answers, per representation.
    const serviceGzip = await runtime.app.request(`/api/v1${path}`, {
      headers: { Authorization: `Bearer ${runtime.internalKey}`, 'Accept-Encoding': 'gzip' },
    });
    expect(etag).toBe((await direct(path)).headers.get('ETag'));
    expect(gzipped.headers.get('ETag')).toBe(serviceGzip.headers.get('ETag'));
    expect(gzipped.headers.get('ETag')).toBe(`${etag.slice(0, -1)}-gz"`);
    // gzip;q=0 refuses gzip.
    expect(
      (await get(path, { headers: { 'Accept-Encoding': 'gzip;q=0' } })).headers.get('Content-Encoding'),
    ).toBeNull();

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await get(path, { headers: { 'If-None-Match': ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(response.headers.get('ETag')).toBe(etag);
    }
    const gz = gzipped.headers.get('ETag') ?? '';
    expect((await get(path, { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': `W/${gz}` } })).status).toBe(304);
    // A tag of the other representation does not match.
    expect((await get(path, { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag } })).status).toBe(200);
    expect((await get(path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('describes the browser’s own per-address budget in the rate-limit headers, never the gateway key’s, cached or not', async () => {
    const first = await get('/symbol_info?group=WingRiders');
    const perAddress = String(DEFAULT_GATEWAY_CONFIG.requestsPerMinutePerAddress);
    expect(first.headers.get('RateLimit-Limit')).toBe(perAddress);
    const cached = await get('/symbol_info?group=WingRiders');
    expect(cached.status).toBe(200);
    expect(cached.headers.get('RateLimit-Limit')).toBe(perAddress);
    expect(Number(cached.headers.get('RateLimit-Remaining'))).toBe(
      Number(first.headers.get('RateLimit-Remaining')) - 1,
    );
    expect(cached.headers.get('Retry-After')).toBeNull();
    expect(cached.headers.get('ETag')).toBe(first.headers.get('ETag'));
  });

  it("forwards only the service's GET endpoints, never a path with encoded separators or dot segments", async () => {
    calls.length = 0;
    const unit = [...runtime.market.tokens.values()].find((t) => t.unit !== '')?.unit ?? '';
    const malformed = [
      '/..%2f..%2fadmin',
      '/..%2F..%2Fadmin',
      '/groups%2f..%2f..%2fadmin',
      '/history%5c..%5cadmin',
      '/tokens/logo/..%2f..%2fgroups',
      `/tokens/logo/${unit}%2f..`,
      '/tokens/logo/%2e%2e%2fgroups',
      '/tokens/logo/a.%2E',
      '/symbol_info%2E',
    ];
    for (const path of malformed) {
      const response = await get(path);
      expect(response.status, path).toBe(400);
      const body: unknown = await response.json();
      if (path.startsWith('/tokens')) expect(tokenErrorSchema.parse(body).detail[0]?.loc, path).toEqual(['path']);
      else expect(priceErrorSchema.parse(body).errmsg, path).toMatch(/not forwarded/);
    }
    const unknown = [
      '/admin',
      '/',
      '/tokens/stream',
      '/tokens',
      '/api/v1/groups',
      '/groups/x',
      '/tokens/logo/',
      `/tokens/logo/${unit}/x`,
      '/history//',
    ];
    for (const path of unknown) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      const body: unknown = await response.json();
      if (path.startsWith('/tokens')) expect(tokenErrorSchema.parse(body).detail[0]?.type, path).toBe('not_found');
      else expect(priceErrorSchema.parse(body).errmsg, path).toMatch(/Unknown endpoint/);
    }
    expect((await get('/admin', { method: 'POST' })).status).toBe(404);
    expect(calls).toEqual([]);

    // The endpoints themselves (a trailing slash as the service takes it), and the gateway's own routes.
    for (const path of [
      '/groups/',
      '/symbol_info/?group=Minswap',
      `/tokens/logo/${unit}`,
      `/tokens/current?policy=${unit}`,
      '/history?symbol=nope&resolution=1d&from=0&to=1',
    ]) {
      expect([200, 404], path).toContain((await get(path)).status);
    }
    // tokens/current and history always reach the upstream; groups, symbol_info and the logo may be held already.
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect((await get('/info')).status).toBe(200);
    expect((await get('/info', { method: 'POST' })).status).toBe(405);
  });

  it('refuses methods other than GET/HEAD', async () => {
    const response = await get('/groups', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({ s: 'error' });
  });

  it('answers 502 in the price error shape when the upstream is unreachable', async () => {
    const broken = createGateway({
      config: DEFAULT_GATEWAY_CONFIG,
      upstream: {
        kind: 'remote',
        decodesBodies: true,
        origin: 'http://127.0.0.1:9',
        fetch: () => Promise.reject(new Error('connect ECONNREFUSED')),
      },
    });
    const response = await broken.app.request('/gw/v1/history?symbol=x&resolution=1min&from=0&to=1');
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ s: 'error', errmsg: 'Upstream unavailable: connect ECONNREFUSED' });
    // The extension routes cannot tell whether the upstream has them: the same 502, not a guess.
    const liquidity = await broken.app.request('/gw/v1/liquidity?group=Aggregate');
    expect(liquidity.status).toBe(502);
    expect(await liquidity.json()).toEqual({ s: 'error', errmsg: 'Upstream unavailable: connect ECONNREFUSED' });
    broken.close();
  });
});

describe('gateway info and liquidity', () => {
  it("gives a token's metadata, which no spec endpoint carries", async () => {
    const wmt = '1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e776f726c646d6f62696c65746f6b656e';
    const info = gatewayTokenInfoSchema.parse(await (await get(`/token-info/${wmt.toUpperCase()}`)).json());
    // Where its identity comes from passes through (the app's identity mark reads it).
    expect(info).toEqual({ unit: wmt, ticker: 'WMT', name: 'World Mobile Token', decimals: 6, source: 'registry' });
    expect((await get(`/token-info/${'ab'.repeat(30)}`)).status).toBe(404);
  });

  it('shows the upstream URL as its scheme and port only: nothing of host, path, credentials, query or fragment', async () => {
    const remote = createGateway({
      config: DEFAULT_GATEWAY_CONFIG,
      upstream: remoteUpstream('https://user:secret@api.example.com:8443/base/?token=abc#frag', 'the-key-0001'),
    });
    const info = gatewayInfoSchema.parse(await (await remote.app.request('/gw/v1/info')).json());
    expect(info.upstream).toBe('https://<redacted>:8443');
    remote.close();
  });

  it('describes the source without any key', async () => {
    const info = gatewayInfoSchema.parse(await (await get('/info')).json());
    expect(info).toMatchObject({ source: 'embedded' });
    expect(Math.abs(info.time - Date.now() / 1000)).toBeLessThan(5);
  });

  it('gives every symbol of a group with its TVL', async () => {
    const liquidity = gatewayLiquiditySchema.parse(await (await get('/liquidity?group=Aggregate')).json());
    const symbols = symbolInfoResponseSchema.parse(await (await direct('/symbol_info?group=Aggregate')).json());
    expect(liquidity.ticker).toEqual(symbols.ticker);
    expect(liquidity.tvl.every((v) => v >= 0)).toBe(true);
    expect((await get('/liquidity?group=Nope')).status).toBe(404);
    expect((await get('/liquidity')).status).toBe(400);
  });
});
