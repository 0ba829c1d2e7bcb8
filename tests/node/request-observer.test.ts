import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyTrust } from '../../src/node/client-address';
import type { LogFields } from '../../src/node/log';
import { createMetrics } from '../../src/node/metrics';
import { noteRoute, observeRequests } from '../../src/node/request-observer';
import { openStream } from '../../src/node/response-sink';
import { listen } from '../../src/server/listen';
import { seriesValue } from '../support/metrics';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Proxies trusted to set X-Request-Id: every peer, or none. */
const trustEveryone: ProxyTrust = { entries: ['*'], header: 'x-forwarded-for', trusts: () => true };

/** An app observed like the server's (behind a trusted proxy unless told): lines collected, metrics in a registry of its own. */
function observed(trustProxy: ProxyTrust | null = trustEveryone) {
  const lines: { line: string; fields: LogFields | undefined }[] = [];
  const metrics = createMetrics();
  const app = new Hono({ strict: false });
  app.use(
    '*',
    observeRequests({
      log: (line, fields) => lines.push({ line, fields }),
      metrics: metrics.http,
      ...(trustProxy ? { trustProxy } : {}),
    }),
  );
  return { app, lines, metrics };
}

/** A series' value in the registry's text. */
const sample = async (text: Promise<string>, name: string, labels: Record<string, string>) =>
  seriesValue(await text, name, labels);

let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  close = undefined;
});

describe('observing requests', () => {
  it('takes X-Request-Id only from a trusted proxy: anyone else gets an id of its own', async () => {
    for (const trust of [null, { ...trustEveryone, trusts: () => false }]) {
      const { app, lines } = observed(trust);
      app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
      const answer = await app.request('/items/7', { headers: { 'X-Request-Id': 'forged-id-1' } });
      expect(answer.headers.get('X-Request-Id')).toMatch(UUID);
      expect(lines[0]?.fields?.reqId).toBe(answer.headers.get('X-Request-Id'));
    }
  });

  it('echoes a safe X-Request-Id a trusted proxy set, makes one otherwise, and logs the line with it', async () => {
    const { app, lines } = observed();
    app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
    const given = await app.request('/items/7?full=1', { headers: { 'X-Request-Id': 'lb-4f2a9c' } });
    expect(given.headers.get('X-Request-Id')).toBe('lb-4f2a9c');
    const made = await app.request('/items/8', { headers: { 'X-Request-Id': 'not a "token"' } });
    expect(made.headers.get('X-Request-Id')).toMatch(UUID);
    expect(lines[0]?.line).toMatch(/^GET \/items\/7\?full=1 200 [\d.]+ms$/);
    expect(lines[0]?.fields).toMatchObject({
      level: 'info',
      reqId: 'lb-4f2a9c',
      method: 'GET',
      route: '/items/:id',
      url: '/items/7?full=1',
      status: 200,
    });
    expect(lines[1]?.fields?.reqId).toBe(made.headers.get('X-Request-Id'));
    expect(typeof lines[0]?.fields?.durationMs).toBe('number');
  });

  it('counts requests by route template, never by raw path: 50 ids are one series', async () => {
    const { app, metrics } = observed();
    app.get('/tokens/logo/:unit', (c) => c.text('x'));
    for (let i = 0; i < 50; i++) await app.request(`/tokens/logo/unit${i}`);
    await app.request('/tokens/logo/unit1', { method: 'FOO' });
    await app.request('/nowhere');
    const text = metrics.registry.metrics();
    expect(
      await sample(text, 'cdx_http_requests_total', { method: 'GET', route: '/tokens/logo/:unit', status: '200' }),
    ).toBe(50);
    expect(
      await sample(text, 'cdx_http_request_duration_seconds_count', { method: 'GET', route: '/tokens/logo/:unit' }),
    ).toBe(50);
    // A method no route takes, and a path no route matches: bounded labels too.
    expect(await sample(text, 'cdx_http_requests_total', { method: 'other', route: '/*', status: '404' })).toBe(1);
    expect(await sample(text, 'cdx_http_requests_total', { method: 'GET', route: '/*', status: '404' })).toBe(1);
    expect(await text).not.toMatch(/unit\d/);
  });

  it('takes the route of an app it hands the request to whole', async () => {
    const { app, metrics } = observed();
    const inner = new Hono({ strict: false });
    inner.use('*', noteRoute);
    inner.get('/svc/history/:series', (c) => c.text('bars'));
    app.all('/svc/*', (c) => inner.fetch(c.req.raw, c.env));
    await app.request('/svc/history/42');
    expect(
      await sample(metrics.registry.metrics(), 'cdx_http_requests_total', {
        method: 'GET',
        route: '/svc/history/:series',
        status: '200',
      }),
    ).toBe(1);
  });

  it('logs probes at debug, a 503 at warn and a 500 at error', async () => {
    const { app, lines } = observed();
    app.get('/readyz', (c) => c.json({ ready: false }, 503));
    app.get('/busy', (c) => c.text('later', 503));
    app.get('/broken', (c) => c.text('bug', 500));
    for (const path of ['/readyz', '/busy', '/broken']) await app.request(path);
    expect(lines.map((l) => l.fields?.level)).toEqual(['debug', 'warn', 'error']);
  });

  it('tags an answer whose headers cannot be changed (a fetched one passed through) without failing it', async () => {
    const { app } = observed();
    app.get('/away', () => Response.redirect('http://elsewhere.test/', 302));
    const response = await app.request('/away', { headers: { 'X-Request-Id': 'r-1' } });
    expect(response.status).toBe(302);
    expect(response.headers.get('Location')).toBe('http://elsewhere.test/');
    expect(response.headers.get('X-Request-Id')).toBe('r-1');
  });

  it('tags a stream written straight to the socket, served by Node', async () => {
    const { app, metrics } = observed();
    app.get('/stream', (c) => {
      const { response, sink } = openStream(c, {
        headers: { 'Content-Type': 'text/plain' },
        maxUnreadBytes: 1 << 16,
        slowConsumerLine: 'slow\n',
        onClose: () => undefined,
      });
      sink.write('one\n');
      setTimeout(() => sink.end(), 20);
      return response;
    });
    const { server, port } = await listen('127.0.0.1', 0, app.fetch);
    close = () => server.close();
    const response = await fetch(`http://127.0.0.1:${port}/stream`, { headers: { 'X-Request-Id': 'stream-77' } });
    expect(response.headers.get('X-Request-Id')).toBe('stream-77');
    expect(await response.text()).toBe('one\n');
    expect(
      await sample(metrics.registry.metrics(), 'cdx_http_requests_total', {
        method: 'GET',
        route: '/stream',
        status: '200',
      }),
    ).toBe(1);
  });

  it('logs the query with the value of every secret-looking parameter redacted (key, token, api_key, a password…), the rest as sent', async () => {
    const { app, lines } = observed();
    app.get('/api/v1/groups', (c) => c.json({ ok: true }));
    await app.request(
      '/api/v1/groups?key=k-pro-0001&symbol=SNEK&api_key=s1&apiKey=s2&access-token=s3&X-Auth=s4&password=s5&sig=s6&session_id=s7&from=1',
    );
    const shown =
      '/api/v1/groups?key=<redacted>&symbol=SNEK&api_key=<redacted>&apiKey=<redacted>&access-token=<redacted>&X-Auth=<redacted>&password=<redacted>&sig=<redacted>&session_id=<redacted>&from=1';
    expect(lines[0]?.line).toBe(`GET ${shown} 200 ${Number(lines[0]?.fields?.durationMs).toFixed(1)}ms`);
    expect(lines[0]?.fields?.url).toBe(shown);
    for (const secret of ['k-pro-0001', 's1', 's2', 's3', 's4', 's5', 's6', 's7'])
      expect(JSON.stringify(lines)).not.toContain(`=${secret}`);
    // Percent-encoded names are judged decoded; a parameter without a value has nothing to hide.
    await app.request('/api/v1/groups?%61pi%5Fkey=s8&token&cb=1');
    expect(lines[1]?.fields?.url).toBe('/api/v1/groups?%61pi%5Fkey=<redacted>&token&cb=1');
  });
});
