import { request as httpRequest } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { liveErrorSchema } from '../../src/shared/api/gateway';
import { createTestService, type TestService } from '../support/service';
import { SseReader } from '../support/sse';
import { serveLoopback, type Loopback } from './support/loopback';

/** REST forwarding to a remote upstream over loopback HTTP: a real service, and a misbehaving third party. */

describe('a remote service answering gzip', () => {
  let service: TestService;
  let loopback: Loopback;
  let gateway: Gateway;
  beforeAll(async () => {
    service = await createTestService();
    loopback = await serveLoopback(service.app.fetch);
    gateway = createGateway({ config: DEFAULT_GATEWAY_CONFIG, upstream: remoteUpstream(loopback.origin, service.key) });
  });
  afterAll(async () => {
    gateway.close();
    await loopback.close();
    await service.close();
  });

  it('streams history from a remote upstream: its deflate passed through, or gzipped for a browser that takes only gzip', async () => {
    const symbols = (await service.getJson('/api/v1/symbol_info?group=Aggregate')) as { ticker: string[] };
    const to = service.clock.seconds() + 60;
    const path = `/history?symbol=${symbols.ticker[0] ?? ''}&resolution=1min&from=${to - 2 * 86_400}&to=${to}&include_tvl=true`;
    const identity = Buffer.from(await (await service.request(`/api/v1${path}`)).arrayBuffer());
    const browser = await gateway.app.request(`/gw/v1${path}`, {
      headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' },
    });
    expect(browser.status).toBe(200);
    expect(browser.headers.get('Content-Encoding')).toBe('deflate');
    const deflated = Buffer.from(await browser.arrayBuffer());
    expect(Number(browser.headers.get('Content-Length'))).toBe(deflated.byteLength);
    expect(inflateSync(deflated).equals(identity)).toBe(true);
    const gzipped = await gateway.app.request(`/gw/v1${path}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers.get('Content-Encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).equals(identity)).toBe(true);
    const plain = await gateway.app.request(`/gw/v1${path}`);
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(identity)).toBe(true);
  });

  it('gives each representation the tag the service gives it, whatever encoding the gateway fetched', async () => {
    const path = '/symbol_info?group=Aggregate';
    const serviceIdentity = (await service.request(`/api/v1${path}`)).headers.get('ETag') ?? '';
    const serviceGzip = (
      await service.request(`/api/v1${path}`, { headers: { 'Accept-Encoding': 'gzip' } })
    ).headers.get('ETag');
    expect(serviceIdentity).toMatch(/^"[^"]+"$/);
    const identity = await gateway.app.request(`/gw/v1${path}`);
    expect(identity.headers.get('Content-Encoding')).toBeNull();
    expect(identity.headers.get('ETag')).toBe(serviceIdentity);
    expect(((await identity.json()) as { s: string }).s).toBe('ok');
    const gzipped = await gateway.app.request(`/gw/v1${path}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers.get('Content-Encoding')).toBe('gzip');
    expect(gzipped.headers.get('ETag')).toBe(serviceGzip);
    expect(
      (await gateway.app.request(`/gw/v1${path}`, { headers: { 'If-None-Match': `W/${serviceIdentity}` } })).status,
    ).toBe(304);
  });
});

describe('an upstream that redirects', () => {
  let fake: Loopback;
  let gateway: Gateway;
  const seen: { path: string; authorization: string | null }[] = [];
  beforeAll(async () => {
    fake = await serveLoopback((request) => {
      const url = new URL(request.url);
      seen.push({ path: url.pathname + url.search, authorization: request.headers.get('Authorization') });
      if (url.pathname === '/api/v1/secret')
        return new Response('{"secret":true}', { headers: { 'Content-Type': 'application/json' } });
      // Same-origin redirects: following one would carry the key to any path.
      return new Response(null, {
        status: url.pathname.startsWith('/api/v1/tokens') ? 307 : 302,
        headers: { Location: '/api/v1/secret' },
      });
    });
    gateway = createGateway({
      config: DEFAULT_GATEWAY_CONFIG,
      upstream: remoteUpstream(fake.origin, 'redirect-test-key-1'),
    });
  });
  afterAll(async () => {
    gateway.close();
    await fake.close();
  });

  it("is never followed: the browser gets a 502 in the family's error shape", async () => {
    seen.length = 0;
    const groups = await gateway.app.request('/gw/v1/groups');
    expect(groups.status).toBe(502);
    expect(priceErrorSchema.parse(await groups.json()).errmsg).toMatch(/redirect \(302\).*not followed/);
    expect(groups.headers.get('Location')).toBeNull();
    const current = await gateway.app.request(`/gw/v1/tokens/current?pool=${'ab'.repeat(28)}`);
    expect(current.status).toBe(502);
    expect(tokenErrorSchema.parse(await current.json()).detail[0]?.msg).toMatch(/redirect \(307\)/);

    // Nor for the live stream's lookups.
    const live = new SseReader(await gateway.app.request(`/gw/v1/live?pools=${'ab'.repeat(28)}`));
    await live.end();
    expect(live.events('error').map((e) => liveErrorSchema.parse(e))[0]?.retry).toBe(true);

    expect(seen.map((s) => s.path)).not.toContain('/api/v1/secret');
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.every((s) => s.authorization === 'Bearer redirect-test-key-1')).toBe(true);
  });
});

/** GET with the path exactly as given (no client-side normalisation). */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('raw paths over a real socket', () => {
  let upstream: Loopback;
  let front: Loopback;
  let gateway: Gateway;
  const seen: string[] = [];
  beforeAll(async () => {
    upstream = await serveLoopback((request) => {
      const url = new URL(request.url);
      seen.push(url.pathname);
      return Response.json({ s: 'ok', d: { groups: [] } });
    });
    gateway = createGateway({
      config: DEFAULT_GATEWAY_CONFIG,
      upstream: remoteUpstream(upstream.origin, 'raw-path-test-key-1'),
    });
    front = await serveLoopback(gateway.app.fetch);
  });
  afterAll(async () => {
    await front.close();
    gateway.close();
    await upstream.close();
  });

  it("reach the upstream only as one of the service's endpoints", async () => {
    const attempts = [
      '/gw/v1/..%2f..%2fadmin',
      '/gw/v1/..%2F..%2Fadmin',
      '/gw/v1/%2e%2e/%2e%2e/admin',
      '/gw/v1/.%2e/.%2e/api/v1/admin',
      '/gw/v1/groups/../../admin',
      '/gw/v1/groups/..%5c..%5cadmin',
      '/gw/v1/tokens/logo/..%2f..%2fadmin',
      '/gw/v1/tokens/logo/%2E%2E',
      '/gw/v1//groups',
    ];
    for (const path of attempts) {
      const { status } = await rawGet(front.origin, path);
      expect([400, 404], path).toContain(status);
    }
    expect(seen).toEqual([]);
    // Dot segments the URL parser resolves within /gw/v1 are just the path they name.
    expect((await rawGet(front.origin, '/gw/v1/groups')).status).toBe(200);
    expect((await rawGet(front.origin, '/gw/v1/./x/%2e%2e/groups')).status).toBe(200);
    expect(seen).toEqual(['/api/v1/groups']); // the second from the gateway's cache
  });
});

describe('a slow remote upstream', () => {
  let release: () => void = () => undefined;
  let finished = false;
  let upstream: Loopback;
  let gateway: Gateway;
  const first = `{"s":"ok","t":[${Array.from({ length: 2000 }, (_, i) => 1_700_000_000 + i * 60).join(',')}]`;
  beforeAll(async () => {
    // Sends the first part of a history answer at once and the rest only when the test says so.
    upstream = await serveLoopback(() => {
      const held = new Promise<void>((resolve) => (release = resolve));
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(first));
          await held;
          controller.enqueue(encoder.encode(',"o":[]}'));
          finished = true;
          controller.close();
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'application/json' } });
    });
    gateway = createGateway({
      config: DEFAULT_GATEWAY_CONFIG,
      upstream: remoteUpstream(upstream.origin, 'slow-upstream-key'),
    });
  });
  afterAll(async () => {
    release();
    gateway.close();
    await upstream.close();
  });

  it('streams /gw/v1/history through: the browser gets the first bytes before the upstream has finished', async () => {
    const response = await gateway.app.request('/gw/v1/history?symbol=x&resolution=1min&from=0&to=1');
    expect(response.status).toBe(200);
    const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
    const decoder = new TextDecoder();
    let text = '';
    // Waits on state: reads until the whole first part has arrived, while the upstream still holds the rest.
    while (text.length < first.length) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(finished).toBe(false);
    expect(text).toBe(first);
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(finished).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ s: 'ok', o: [] });
  });
});
