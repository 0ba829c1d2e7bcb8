import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG, type GatewayConfig } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { liveErrorSchema, type LiveError } from '../../src/shared/api/gateway';
import { aggregatesByActivity } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { liveStatuses, SseReader, tradeUntilSeen } from '../support/sse';
import { serveLoopback, type Loopback } from './support/loopback';
import { runtimeInternals } from '../../src/service/runtime-internals';

/**
 * The gateway in front of a real service over loopback HTTP, with keys of the hosted kind: one stream
 * per key and a plan's pool limit per stream (pro: 100 pools; free: 10; TINY: 3 requests a minute).
 */
const TINY = { requestsPerMinute: 3, poolsPerStream: 100 };

let service: TestService;
let loopback: Loopback;
/** Every Aggregate pool (119 in the test market), busiest first. */
let aggregates: string[];

beforeAll(async () => {
  service = await createTestService({ env: { TOKEN_API_PLANS: JSON.stringify({ tiny: TINY }) } });
  loopback = await serveLoopback(service.app.fetch);
  aggregates = (await aggregatesByActivity(service.runtime)).map((p) => p.poolId);
});

afterAll(async () => {
  await loopback.close();
  await service.close();
});

/** The header that stands for a browser's client address in these in-process tests (`local` without it). */
const CLIENT = 'x-test-client';

function gatewayFor(key: string, logs: string[] = [], config: Partial<GatewayConfig> = {}): Gateway {
  return createGateway({
    config: { ...DEFAULT_GATEWAY_CONFIG, resubscribeDebounceMs: 5, backoffInitialMs: 50, backoffMaxMs: 400, ...config },
    upstream: remoteUpstream(loopback.origin, key),
    log: (line) => logs.push(line),
    clientAddress: (c) => c.req.header(CLIENT) ?? 'local',
  });
}

const open = async (gateway: Gateway, pools: readonly string[], lastEventId?: string, client?: string) =>
  new SseReader(
    await gateway.app.request(`/gw/v1/live?pools=${pools.join(',')}`, {
      headers: { ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}), ...(client ? { [CLIENT]: client } : {}) },
    }),
  );
const statuses = liveStatuses;
const errors = (r: SseReader): LiveError[] => r.events('error').map((e) => liveErrorSchema.parse(e));
const connected = (r: SseReader, count = 1) =>
  r.until(() => statuses(r).filter((s) => s.state === 'connected').length >= count, 10_000);

const tradeUntil = (reader: SseReader, pools: readonly string[], count = 1) =>
  tradeUntilSeen(reader, service.runtime, service.clock.seconds(), pools, count);

describe('an upstream plan that allows fewer pools than the gateway is configured for', () => {
  it('refuses the browser that does not fit with a retryable error, learns the limit, and keeps the others live', async () => {
    expect(aggregates.length).toBe(119);
    const logs: string[] = [];
    // One address stands for three browsers here: no share per address (the next test has one).
    const gateway = gatewayFor(await service.newKey('pro'), logs, { addressSharePercent: 100 });
    const readers: SseReader[] = [];
    try {
      const first = await open(gateway, aggregates.slice(0, 50));
      readers.push(first);
      await connected(first);
      const second = await open(gateway, aggregates.slice(50, 100));
      readers.push(second);
      await connected(second);

      // 119 pools in all: the pro plan allows 100 per stream.
      const third = await open(gateway, aggregates.slice(100, 119));
      readers.push(third);
      await third.end(10_000);
      expect(errors(third)).toEqual([
        { errmsg: expect.stringMatching(/upstream plan allows 100 pools per stream/), retry: true },
      ]);
      expect(statuses(third).filter((s) => s.state === 'connected')).toEqual([]);
      expect(logs.some((l) => l.includes('allows 100 pools per stream'))).toBe(true);

      // The browsers it covers keep their events, on one upstream connection.
      await tradeUntil(first, aggregates.slice(0, 50));
      await tradeUntil(second, aggregates.slice(50, 100));
      await vi.waitUntil(
        () =>
          [...(gateway.upstreamStream.livePools ?? [])].length === 100 && !gateway.hub.union.has(aggregates[110] ?? ''),
        { timeout: 5000, interval: 10 },
      );

      // The limit is learned: the same request is refused at once, and one that fits is served.
      const again = await open(gateway, aggregates.slice(100, 119));
      readers.push(again);
      await again.end();
      expect(errors(again)).toEqual([{ errmsg: expect.stringMatching(/100 pools/), retry: true }]);
      const subset = await open(gateway, aggregates.slice(10, 20));
      readers.push(subset);
      await connected(subset);
      expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(1);
    } finally {
      readers.forEach((r) => r.cancel());
      gateway.close();
    }
  });

  it('keeps each address within its share of the learned limit: an address past it loses its newest connection', async () => {
    // Before the refusal: 1,000 pools of budget, 250 per address. After: 100, and 50 per address
    // (a quarter is 25, but one connection's 50 pools are always allowed).
    const gateway = gatewayFor(await service.newKey('pro'), [], { addressSharePercent: 25 });
    const readers: SseReader[] = [];
    try {
      const first = await open(gateway, aggregates.slice(19, 69), undefined, '198.51.100.1');
      readers.push(first);
      await connected(first);
      const second = await open(gateway, aggregates.slice(69, 119), undefined, '198.51.100.1');
      readers.push(second);
      await connected(second);
      expect(gateway.hub.addressMaxPools).toBe(250);
      // Another address takes the union past the plan's 100.
      const other = await open(gateway, aggregates.slice(0, 19), undefined, '198.51.100.2');
      readers.push(other);
      await second.end(10_000);
      expect(errors(second)).toEqual([
        {
          errmsg: expect.stringMatching(
            /^Too many pools from 198\.51\.100\.1: .*each client address may follow at most 50 of the gateway's 100 pools/,
          ),
          retry: true,
        },
      ]);
      await connected(other);
      expect(gateway.hub.addressMaxPools).toBe(50);
      expect(gateway.hub.poolsOf('198.51.100.1')).toBe(50);
      await tradeUntil(first, aggregates.slice(19, 69));
      await tradeUntil(other, aggregates.slice(0, 19));
      // The address is at its share now: another connection of new pools is refused at once.
      const more = await open(gateway, aggregates.slice(80, 81), undefined, '198.51.100.1');
      readers.push(more);
      await more.end();
      expect(errors(more)).toEqual([
        {
          errmsg: expect.stringMatching(/^Too many pools from 198\.51\.100\.1: its live connections follow 50/),
          retry: true,
        },
      ]);
      // Pools it already follows cost nothing more.
      const again = await open(gateway, aggregates.slice(20, 30), undefined, '198.51.100.1');
      readers.push(again);
      await connected(again);
    } finally {
      readers.forEach((r) => r.cancel());
      gateway.close();
    }
  });

  it('tells a browser that alone asks more than the plan allows not to retry, and serves the next one', async () => {
    const gateway = gatewayFor(await service.newKey('free'), [], { maxPoolsPerConnection: 50 });
    const readers: SseReader[] = [];
    try {
      // The free plan allows 10 pools per stream.
      const greedy = await open(gateway, aggregates.slice(0, 12));
      readers.push(greedy);
      await greedy.end(10_000);
      expect(errors(greedy)).toEqual([
        { errmsg: expect.stringMatching(/12 requested.*allows 10 pools per stream/), retry: false },
      ]);
      const modest = await open(gateway, aggregates.slice(0, 8));
      readers.push(modest);
      await connected(modest);
      await tradeUntil(modest, aggregates.slice(0, 8));
    } finally {
      readers.forEach((r) => r.cancel());
      gateway.close();
    }
  });
});

describe('a re-subscription the upstream refuses for another reason', () => {
  it('tells the browsers it would cover that they are not live yet, and connects them once it succeeds', async () => {
    const key = (await runtimeInternals(service.runtime).keyStore.create('tiny', 'test')).key;
    const gateway = gatewayFor(key);
    const readers: SseReader[] = [];
    try {
      const first = await open(gateway, aggregates.slice(0, 1));
      readers.push(first);
      await connected(first);
      // Spend the key's last request: the switch below is rate limited (429).
      for (let i = 0; i < 3; i++) await service.request('/api/v1/groups', { key });
      expect((await service.request('/api/v1/groups', { key })).status).toBe(429);

      const waiting = await open(gateway, aggregates.slice(1, 2));
      readers.push(waiting);
      await waiting.until(() => statuses(waiting).length > 0, 10_000);
      expect(statuses(waiting)[0]).toEqual({ state: 'reconnecting', resync: false });

      // The window closes: the retry goes through (breaking first, as the key allows one stream).
      // Budgets count wall-clock minutes (rate-limiter-flexible reads Date), so the wall clock moves.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(Date.now() + 61_000);
      await connected(waiting);
      expect(statuses(waiting).at(-1)).toEqual({ state: 'connected', resync: false });
      await connected(first, 2);
      expect(statuses(first).at(-1)).toEqual({ state: 'connected', resync: true });
    } finally {
      vi.useRealTimers();
      readers.forEach((r) => r.cancel());
      gateway.close();
    }
  });
});

describe('resuming across a re-subscription without overlap (a key allowing one stream)', () => {
  it('tells a browser resuming from before the switch to resync', async () => {
    const gateway = gatewayFor(await service.newKey('pro'));
    const [p, q] = aggregates as [string, string];
    const readers: SseReader[] = [];
    try {
      const z = await open(gateway, [p]);
      readers.push(z);
      await connected(z);
      const x = await open(gateway, [p]);
      readers.push(x);
      await connected(x);
      await tradeUntil(x, [p]);
      const seen = x.frames.filter((f) => f.event === 'trade').at(-1)?.id ?? '';
      expect(seen).not.toBe('');
      x.cancel();
      await vi.waitUntil(() => gateway.hub.size === 1, { timeout: 5000, interval: 10 });

      // Y forces a switch: the old connection closes before the new one opens.
      const y = await open(gateway, [q]);
      readers.push(y);
      await connected(y);
      await connected(z, 2);
      expect(statuses(z).at(-1)).toEqual({ state: 'connected', resync: true });

      const back = await open(gateway, [p], seen);
      readers.push(back);
      await back.until(() => statuses(back).length > 0);
      expect(statuses(back)[0]).toEqual({ state: 'connected', resync: true });
    } finally {
      readers.forEach((r) => r.cancel());
      gateway.close();
    }
  });
});
