import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { NODE_SERVER_OPTIONS } from '../../src/node/response-sink';
import { gatewayInfoSchema } from '../../src/shared/api/gateway';
import { historyResponseSchema } from '../../src/shared/api/history';
import { liveStatuses, liveTrades, SseReader, tradeUntilSeen } from '../support/sse';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** A second service instance over real HTTP on loopback, which the test can stop and restart. */
class LoopbackService {
  runtime: ServiceRuntime | undefined;
  server: ServerType | undefined;
  port = 0;
  constructor(
    readonly dir: string,
    readonly key: string,
    readonly ping = '20',
  ) {}

  async start(): Promise<void> {
    const runtime = await createServiceRuntime(
      parseServiceConfig(
        { 'data-dir': this.dir, pools: '120', days: '1', seed: '11' },
        { TOKEN_API_KEYS: `${this.key}:enterprise`, STREAM_PING_SECONDS: this.ping },
      ),
    );
    this.runtime = runtime;
    await new Promise<void>((resolve) => {
      this.server = serve(
        { fetch: runtime.app.fetch, port: this.port, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS },
        (info: AddressInfo) => {
          this.port = info.port;
          resolve();
        },
      );
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server && 'closeAllConnections' in server) server.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await this.runtime?.close();
    this.runtime = undefined;
  }

  async trade(): Promise<number> {
    if (!this.runtime) throw new Error('stopped');
    return await this.runtime.simulator.forceBlock(Date.now() / 1000);
  }
}

let dir: string;
let upstream: LoopbackService;
let gateway: Gateway;
let pools: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-remote-'));
  upstream = new LoopbackService(dir, 'remote-gateway-key-123');
  await upstream.start();
  gateway = createGateway({
    config: { ...DEFAULT_GATEWAY_CONFIG, resubscribeDebounceMs: 5, backoffInitialMs: 50, backoffMaxMs: 400 },
    upstream: remoteUpstream(`http://127.0.0.1:${upstream.port}`, upstream.key),
  });
  const market = upstream.runtime?.market;
  pools = [...(market?.pairs.values() ?? [])]
    .filter((p) => p.base.unit === '')
    .sort((a, b) => b.aggregate.baseReserve - a.aggregate.baseReserve)
    .slice(0, 3)
    .map((p) => p.aggregate.poolId);
});

afterAll(async () => {
  gateway.close();
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

const statuses = liveStatuses;
const trades = liveTrades;
const tradeUntil = (reader: SseReader, followed: readonly string[], count: number) =>
  tradeUntilSeen(reader, upstream.runtime, Date.now() / 1000, followed, count);

describe('gateway in front of a remote service over HTTP', () => {
  it("says the remote service's source: its simulated market is shown as simulated", async () => {
    const info = gatewayInfoSchema.parse(await (await gateway.app.request('/gw/v1/info')).json());
    expect(info).toMatchObject({ source: 'remote', simulated: true, market: { source: 'simulated' } });
  });

  it('forwards REST with its key', async () => {
    const response = await gateway.app.request(
      `/gw/v1/history?symbol=${pools[0]}&resolution=1d&from=0&to=${Math.floor(Date.now() / 1000) + 86400}`,
    );
    expect(response.status).toBe(200);
    expect(historyResponseSchema.parse(await response.json()).t.length).toBeGreaterThan(0);
  });

  it('reconnects after the upstream restarts, tells browsers to resync, and keeps every subscription', async () => {
    const browsers = [
      new SseReader(await gateway.app.request(`/gw/v1/live?pools=${pools[0]}`)),
      new SseReader(await gateway.app.request(`/gw/v1/live?pools=${pools[1]},${pools[2]}`)),
    ];
    await Promise.all(browsers.map((b) => b.until(() => statuses(b).some((s) => s.state === 'connected'))));
    // A key of the hosted kind allows one stream: the second browser's pools were added by breaking
    // before making, so the first browser was told to resync.
    expect(runtimeInternals(upstream.runtime as ServiceRuntime).hub.connectionCount).toBe(1);
    const [first, second] = browsers as [SseReader, SseReader];
    const firstPools = [pools[0] ?? ''];
    const secondPools = [pools[1] ?? '', pools[2] ?? ''];
    await tradeUntil(first, firstPools, 1);

    await upstream.stop();
    await Promise.all(browsers.map((b) => b.until(() => statuses(b).some((s) => s.state === 'reconnecting'))));

    await upstream.start();
    await Promise.all(
      browsers.map((b) => b.until(() => statuses(b).filter((s) => s.state === 'connected').length >= 2, 10_000)),
    );
    for (const b of browsers) expect(statuses(b).at(-1)).toEqual({ state: 'connected', resync: true });
    expect(runtimeInternals(upstream.runtime as ServiceRuntime).hub.connectionCount).toBe(1);

    // Nothing was lost: both browsers' pools still stream.
    await tradeUntil(first, firstPools, 1);
    await tradeUntil(second, secondPools, 1);
    expect(trades(second).every((e) => e.pool_id === pools[1] || e.pool_id === pools[2])).toBe(true);
    browsers.forEach((b) => b.cancel());
  });
});

describe('the gateway itself over HTTP', () => {
  it("streams SSE to a browser over a real socket, and frees the browser's slot when it leaves", async () => {
    const front = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: gateway.app.fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () =>
        resolve(s),
      );
    });
    try {
      const port = (front.address() as AddressInfo).port;
      const abort = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/gw/v1/live?pools=${pools[0]}`, { signal: abort.signal });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const browser = new SseReader(response);
      await browser.until(() => statuses(browser).some((st) => st.state === 'connected'));
      expect(browser.retry).toBe(DEFAULT_GATEWAY_CONFIG.retryMs);
      await tradeUntil(browser, [pools[0] ?? ''], 2);
      expect(trades(browser).every((e) => e.pool_id === pools[0])).toBe(true);
      const before = gateway.hub.size;
      abort.abort();
      await vi.waitUntil(() => gateway.hub.size === before - 1, { timeout: 3000, interval: 5 });
    } finally {
      if ('closeAllConnections' in front) front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  });
});

describe('a key that allows one stream (like the hosted API)', () => {
  it('re-subscribes by breaking first, and tells connected browsers to resync', async () => {
    const first = new SseReader(await gateway.app.request(`/gw/v1/live?pools=${pools[0]}`));
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    // `connected` means the upstream carries the browser's pools: the second browser forces a switch.
    expect([...(gateway.upstreamStream.livePools ?? [])]).toEqual([pools[0]]);
    const second = new SseReader(await gateway.app.request(`/gw/v1/live?pools=${pools[1]}`));
    await second.until(() => statuses(second).some((s) => s.state === 'connected'));
    await first.until(() => statuses(first).some((s) => s.state === 'connected' && s.resync));
    expect(runtimeInternals(upstream.runtime as ServiceRuntime).hub.connectionCount).toBe(1);
    await tradeUntil(second, [pools[1] ?? ''], 1);
    first.cancel();
    second.cancel();
  });
});

describe('upstream silence', () => {
  it('reconnects when the upstream says nothing for too long', async () => {
    const silentDir = mkdtempSync(join(tmpdir(), 'gw-silent-'));
    const silent = new LoopbackService(silentDir, 'silent-gateway-key-1', '600');
    await silent.start();
    const logs: string[] = [];
    const quiet = createGateway({
      config: {
        ...DEFAULT_GATEWAY_CONFIG,
        resubscribeDebounceMs: 5,
        backoffInitialMs: 20,
        backoffMaxMs: 50,
        upstreamSilenceSeconds: 0.3,
      },
      upstream: remoteUpstream(`http://127.0.0.1:${silent.port}`, silent.key),
      log: (line) => logs.push(line),
    });
    const pool =
      [...(silent.runtime?.market.pairs.values() ?? [])].find((p) => p.base.unit === '')?.aggregate.poolId ?? '';
    const browser = new SseReader(await quiet.app.request(`/gw/v1/live?pools=${pool}`));
    await browser.until(() => statuses(browser).filter((s) => s.state === 'connected').length >= 2, 5000);
    expect(statuses(browser)).toContainEqual({ state: 'reconnecting', resync: false });
    expect(logs.some((l) => l.includes('no data from upstream'))).toBe(true);
    browser.cancel();
    quiet.close();
    await silent.stop();
    rmSync(silentDir, { recursive: true, force: true });
  });
});
