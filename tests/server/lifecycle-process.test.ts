import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/free-port';
import { seriesValue } from '../support/metrics';

/**
 * `npm run serve` through its life, as an orchestrator sees it (a real process): the port answers at
 * once, /livez yes and /readyz no while the market is backfilled (the API 503 in its error shapes, the
 * metrics on their own port showing the progress), then ready; on SIGTERM not ready first, still
 * serving through the drain, then stopped. Its output is JSON lines (not a terminal).
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'lifecycle-key-0001';
const dir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
let child: ChildProcess | undefined;
let output = '';
afterAll(() => {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const get = (origin: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${KEY}`, ...headers } });

describe('a server process from start to stop', () => {
  it('answers probes while it starts, is ready once started, drains on SIGTERM, then stops', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${port}`;
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    // A market whose backfill takes seconds here.
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/server/cli/serve.ts',
        '--port',
        String(port),
        '--metrics-port',
        String(metricsPort),
        '--data-dir',
        dir,
        '--pools',
        '5000',
        '--days',
        '10',
        '--drain-seconds',
        '2',
      ],
      {
        cwd: REPO,
        env: { ...process.env, NODE_ENV: 'test', TOKEN_API_KEYS: `${KEY}:pro` },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));

    // The first answer: alive. Asked together at once (the start gives the event loop a turn every 50 ms):
    // not ready, starting, the API refused in its shapes, the metrics port answering.
    await vi.waitUntil(async () => (await fetch(`${origin}/livez`).catch(() => undefined))?.status === 200, {
      timeout: 60_000,
      interval: 20,
    });
    const [starting, health, groups, current, early] = await Promise.all([
      fetch(`${origin}/readyz`),
      fetch(`${origin}/healthz`),
      get(origin, '/api/v1/groups'),
      get(origin, '/api/v1/tokens/current?pool=x'),
      scrape(),
    ]);
    expect(starting.status).toBe(503);
    const report = (await starting.json()) as { ready: boolean; phase: string; checks: { startup: string } };
    expect(report).toMatchObject({ ready: false, phase: 'starting' });
    expect(report.checks.startup).toMatch(
      /^starting: (opening the store|backfill \d+% \(\d+ trades\)|bars \d+% \(\d+ trades\))$/,
    );
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'starting' });
    expect(groups.status).toBe(503);
    expect(groups.headers.get('Retry-After')).toBe('5');
    expect(await groups.json()).toMatchObject({
      s: 'error',
      errmsg: expect.stringMatching(/^The server is starting \(starting: .*\); retry in a few seconds$/),
    });
    expect(current.status).toBe(503);
    expect(await current.json()).toMatchObject({ detail: [{ loc: [], type: 'service_unavailable' }] });
    expect(seriesValue(early, 'cdx_ready')).toBe(0);
    expect(early).toMatch(/^process_resident_memory_bytes /m);
    await vi.waitUntil(
      async () => seriesValue(await scrape(), 'cdx_startup_progress_ratio', { phase: 'backfill' }) !== undefined,
      { timeout: 60_000, interval: 50 },
    );

    // Started: ready, serving, and /metrics only on its own port.
    await vi.waitUntil(async () => (await fetch(`${origin}/readyz`)).status === 200, {
      timeout: 120_000,
      interval: 100,
    });
    expect((await get(origin, '/api/v1/groups')).status).toBe(200);
    expect((await fetch(`${origin}/metrics`)).status).toBe(404);
    const started = await scrape();
    expect(seriesValue(started, 'cdx_ready')).toBe(1);
    expect(seriesValue(started, 'cdx_startup_progress_ratio', { phase: 'backfill' })).toBe(1);
    expect(
      seriesValue(started, 'cdx_http_requests_total', { method: 'GET', route: '/api/v1/groups', status: '200' }),
    ).toBe(1);
    expect(
      seriesValue(started, 'cdx_http_requests_total', { method: 'GET', route: '/*', status: '503' }),
    ).toBeGreaterThanOrEqual(2);

    // SIGTERM: not ready at once, still serving (and asking keep-alive clients to go) for the drain, then gone.
    const signalled = performance.now();
    child.kill('SIGTERM');
    await vi.waitUntil(async () => (await fetch(`${origin}/readyz`)).status === 503, { timeout: 1_000, interval: 20 });
    const draining = (await (await fetch(`${origin}/readyz`)).json()) as {
      phase: string;
      checks: Record<string, string>;
    };
    expect(draining).toMatchObject({ phase: 'draining', checks: { store: 'ok', drain: 'draining before shutdown' } });
    const during = await get(origin, '/api/v1/groups');
    expect(during.status).toBe(200);
    expect(during.headers.get('Connection')).toBe('close');
    expect(await exited).toBe(0);
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(2_000);
    await expect(fetch(`${origin}/livez`)).rejects.toThrow();

    // Every line it wrote is a JSON log line; the ones that matter are there, in order.
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const messages = lines.map((l) => l.msg);
    const order = [
      /^Listening on /,
      /^Metrics on /,
      /^Market ready in /,
      /^Serving on /,
      /^SIGTERM: draining for 2 s/,
      /^Shutting down\.\.\.$/,
    ];
    const at = order.map((pattern) => messages.findIndex((m) => pattern.test(m)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(lines.find((l) => /^GET \/api\/v1\/groups 503 /.test(l.msg))?.level).toBe(40);
  }, 240_000);
});
