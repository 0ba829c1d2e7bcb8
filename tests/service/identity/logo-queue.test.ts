import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogoLoader, type LogoLoader } from '../../../src/service/identity/logos/logo-loader';
import { LogoQueue, type LogoQueueOptions } from '../../../src/service/identity/logos/logo-queue';
import { createManualTimers, type ManualTimers } from '../../support/manual-timers';
import { selfSignedCertificate, startWebServer, type TestCertificate, type WebServer } from '../../support/web-servers';

/** What the queue reported, in order. */
type Report = { unit: string; png: boolean; reason?: string; retryAt?: number };

let png: Buffer;
let server: WebServer;
let cert: TestCertificate;
/** Per path: how many times it was asked, and the statuses to answer in turn (then 200 with the PNG). */
const script = new Map<string, number[]>();
const hits = new Map<string, number>();
/** Requests held until the test releases them. */
const held: ServerResponse[] = [];
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#10a050' } })
    .png()
    .toBuffer();
  cert = selfSignedCertificate(['logos.test']);
  server = await startWebServer(
    (request, response) => {
      const path = request.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path.startsWith('/silent')) return;
      if (path.startsWith('/html')) {
        response.writeHead(200, { 'content-type': 'image/png' }).end('<html>no</html>');
        return;
      }
      if (path.startsWith('/held')) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        response.on('close', () => inFlight--);
        held.push(response);
        return;
      }
      const status = script.get(path)?.shift();
      if (status !== undefined && status !== 200) {
        response.writeHead(status, status === 429 ? { 'retry-after': '600' } : {}).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    },
    { tls: cert },
  );
});

afterAll(async () => {
  await server.close();
});

let loader: LogoLoader;
let timers: ManualTimers;
let reports: Report[];
let queue: LogoQueue;

function start(options: Partial<LogoQueueOptions> = {}, timeoutMs = 5_000): LogoQueue {
  loader = createLogoLoader({
    fetch: {
      allowCidrs: ['127.0.0.1/32'],
      ca: cert.cert,
      resolve: () => Promise.resolve(['127.0.0.1']),
      timeoutMs,
    },
  });
  timers = createManualTimers();
  reports = [];
  queue = new LogoQueue({
    load: (logo, signal) => loader.load(logo, signal),
    onLogo: (unit, out) => {
      reports.push({ unit, png: out.length > 0 });
    },
    onFailure: (unit, reason, retryAt) => {
      reports.push({ unit, png: false, reason, ...(retryAt !== undefined ? { retryAt } : {}) });
    },
    clock: timers,
    random: () => 0.5,
    baseDelayMs: 1_000,
    ...options,
  });
  return queue;
}

afterEach(async () => {
  for (const response of held.splice(0)) response.destroy();
  await queue.close();
  await loader.close();
});

/** The test site's URL for `path` (https, by a name that resolves to 127.0.0.1, allowed for the tests). */
const at = (path: string) => `https://logos.test:${server.port}${path}`;

/** Waits until the queue has nothing waiting or loading. */
const settle = () => queue.idle();

describe('logo queue', () => {
  it('retries a failure worth retrying with exponential backoff and jitter, then reports the logo', async () => {
    script.set('/flaky', [503, 502]);
    start();
    const t0 = timers.now();
    queue.enqueue('unit-a', at('/flaky'));
    await settle();
    // Attempt 1 failed: backoff 1 s × 2^0, half of it random (random = 0.5: 750 ms).
    expect(reports).toEqual([
      { unit: 'unit-a', png: false, reason: `HTTP 503 from ${at('/flaky')}`, retryAt: t0 + 750 },
    ]);
    expect(hits.get('/flaky')).toBe(1);
    timers.advance(749);
    await settle();
    expect(hits.get('/flaky')).toBe(1);
    timers.advance(1);
    await settle();
    // Attempt 2 failed: 2 s × 0.75.
    expect(reports[1]).toEqual({
      unit: 'unit-a',
      png: false,
      reason: `HTTP 502 from ${at('/flaky')}`,
      retryAt: t0 + 750 + 1500,
    });
    timers.advance(1500);
    await settle();
    expect(reports[2]).toEqual({ unit: 'unit-a', png: true });
    expect(hits.get('/flaky')).toBe(3);
    expect(queue.pending).toBe(0);
    expect(timers.scheduled()).toEqual([]);
  });

  it('gives up after the last attempt, saying so', async () => {
    script.set('/down', [500, 500, 500, 500]);
    start({ maxAttempts: 3 });
    queue.enqueue('unit-b', at('/down'));
    await settle();
    timers.advance(750);
    await settle();
    timers.advance(1500);
    await settle();
    expect(reports.map((report) => report.retryAt !== undefined)).toEqual([true, true, false]);
    expect(reports[2]?.reason).toBe(`HTTP 500 from ${at('/down')} (gave up after 3 attempts)`);
    expect(hits.get('/down')).toBe(3);
    expect(queue.pending).toBe(0);
  });

  it('does not retry a permanent failure: not an image, a refused address, a 404', async () => {
    start();
    queue.enqueue('html', at('/html'));
    queue.enqueue('loopback', `https://127.0.0.2:${server.port}/x.png`);
    queue.enqueue('missing', at('/missing'));
    script.set('/missing', [404]);
    await settle();
    expect([...reports].sort((a, b) => a.unit.localeCompare(b.unit))).toEqual([
      {
        unit: 'html',
        png: false,
        reason: `logo is not a PNG, JPEG, WebP, GIF, AVIF or SVG image (from ${at('/html')})`,
      },
      { unit: 'loopback', png: false, reason: 'refused: 127.0.0.2 is a loopback address' },
      { unit: 'missing', png: false, reason: `HTTP 404 from ${at('/missing')}` },
    ]);
    expect(timers.scheduled()).toEqual([]);
    expect(hits.get('/html')).toBe(1);
  });

  it('retries a timeout', async () => {
    start({}, 300);
    const t0 = timers.now();
    queue.enqueue('slow', at('/silent'));
    await settle();
    expect(reports).toEqual([
      { unit: 'slow', png: false, reason: `${at('/silent')} took longer than 300 ms`, retryAt: t0 + 750 },
    ]);
  });

  it('waits at least what Retry-After asks', async () => {
    script.set('/slow-down', [429]);
    start();
    const t0 = timers.now();
    queue.enqueue('limited', at('/slow-down'));
    await settle();
    expect(reports).toEqual([
      { unit: 'limited', png: false, reason: `HTTP 429 from ${at('/slow-down')}`, retryAt: t0 + 600_000 },
    ]);
  });

  it('loads at most `concurrency` logos at once, off the caller: enqueue returns at once', async () => {
    start({ concurrency: 2 });
    maxInFlight = 0;
    for (let i = 0; i < 5; i++) queue.enqueue(`held-${i}`, at(`/held/${i}`));
    expect(queue.pending).toBe(5);
    expect(reports).toEqual([]);
    // Release the held requests as they arrive until all five have answered.
    while (reports.length < 5) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const response of held.splice(0)) response.writeHead(200).end(png);
    }
    expect(maxInFlight).toBe(2);
    expect(reports.every((report) => report.png)).toBe(true);
  });

  it("loads a token's latest logo once, dropping a load of the one it replaced", async () => {
    start({ concurrency: 1 });
    queue.enqueue('token', at('/held/old'));
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    queue.enqueue('token', at('/latest'));
    queue.enqueue('token', at('/latest'));
    held.splice(0).forEach((response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html/>'));
    await settle();
    expect(reports).toEqual([{ unit: 'token', png: true }]);
    expect(hits.get('/latest')).toBe(1);
  });

  it('refuses tokens past its bound, and reports nothing after close', async () => {
    start({ maxPending: 1 });
    queue.enqueue('first', at('/held/first'));
    queue.enqueue('second', at('/png'));
    expect(reports).toEqual([
      { unit: 'second', png: false, reason: 'logo queue is full (1 tokens waiting): not fetched' },
    ]);
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await queue.close();
    expect(reports.length).toBe(1);
  });

  it('keeps going when a callback throws', async () => {
    const errors: unknown[] = [];
    start({
      onLogo: () => {
        throw new Error('store is down');
      },
      onCallbackError: (_unit, error) => errors.push(error),
    });
    queue.enqueue('one', at('/png'));
    queue.enqueue('two', at('/png?2'));
    await settle();
    expect(errors.map(String)).toEqual(['Error: store is down', 'Error: store is down']);
  });
});
