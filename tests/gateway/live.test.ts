import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveErrorSchema } from '../../src/shared/api/gateway';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { liveStatuses, liveTrades, SseReader, tradeUntilSeen } from '../support/sse';

let t: TestPlatform;
let aggregates: string[];

/** Aggregate pool ids, busiest (deepest) first. */
function busiestAggregates(platform: TestPlatform): string[] {
  const market = platform.platform.runtime?.market;
  if (!market) throw new Error('no market');
  return [...market.pairs.values()]
    .sort((a, b) => b.aggregate.baseReserve - a.aggregate.baseReserve)
    .filter((p) => p.base.unit === '')
    .map((p) => p.aggregate.poolId);
}

const open = async (pools: string[], headers?: Record<string, string>) =>
  new SseReader(await t.fetch(`/gw/v1/live?pools=${pools.join(',')}`, headers ? { headers } : undefined));

const statuses = liveStatuses;
const trades = liveTrades;
const tradeUntil = (reader: SseReader, count = 1) => tradeUntilSeen(reader, () => t.trade(), count, 400, 0);

const serviceStreams = () => t.platform.runtime?.hub.connectionCount ?? -1;

beforeAll(() => {
  t = createTestPlatform({ pools: 120, days: 1, gateway: { heartbeatSeconds: 0.2, maxConnectionsPerAddress: 6, maxPoolsPerConnection: 5, maxBufferedBytes: 8 * 1024, handoverMs: 50 } });
  aggregates = busiestAggregates(t);
});

afterAll(() => t.close());

describe('gateway live multiplexing', () => {
  it('serves SSE with a retry hint, status and heartbeats', async () => {
    const reader = await open([aggregates[0] ?? '']);
    await reader.until((f) => f.some((x) => x.event === 'status') && f.some((x) => x.event === 'heartbeat'), 3000);
    expect(reader.retry).toBe(250);
    expect(statuses(reader)[0]).toEqual({ state: 'connected', resync: false });
    reader.cancel();
  });

  it('three browsers share one upstream connection, each receiving only its pools', async () => {
    const [a, b, c] = aggregates;
    const readers = await Promise.all([open([a ?? '']), open([b ?? '']), open([a ?? '', c ?? ''])]);
    await Promise.all(readers.map((r) => r.until((f) => f.some((x) => x.event === 'status' && JSON.parse(x.data).state === 'connected'))));
    await vi.waitUntil(() => serviceStreams() === 1, { timeout: 3000, interval: 10 });
    const [ra, rb, rac] = readers as [SseReader, SseReader, SseReader];
    await tradeUntil(ra, 2);
    await tradeUntil(rb, 1);
    expect(trades(ra).every((e) => e.pool_id === a)).toBe(true);
    expect(trades(rb).every((e) => e.pool_id === b)).toBe(true);
    expect(trades(rac).every((e) => e.pool_id === a || e.pool_id === c)).toBe(true);
    // The shared browser got at least what the first one got for pool a.
    const forA = (r: SseReader) => trades(r).filter((e) => e.pool_id === a).length;
    await rac.until(() => forA(rac) >= forA(ra));
    // Every trade frame has an id, increasing.
    const ids = ra.frames.filter((f) => f.event === 'trade').map((f) => Number(f.id?.split('.')[1]));
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true);
    readers.forEach((r) => r.cancel());
  });

  it('re-subscribes when the union grows and when it shrinks, still on one connection', async () => {
    const first = await open([aggregates[0] ?? '']);
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    const newcomer = await open([aggregates[4] ?? '']);
    await newcomer.until(() => statuses(newcomer).some((s) => s.state === 'connected'));
    expect(t.platform.gateway.upstreamStream.livePools?.has(aggregates[4] ?? '')).toBe(true);
    await vi.waitUntil(() => serviceStreams() === 1, { timeout: 3000, interval: 10 });
    await tradeUntil(newcomer, 1);
    newcomer.cancel();
    await vi.waitUntil(() => !t.platform.gateway.hub.union.has(aggregates[4] ?? '') && serviceStreams() === 1, { timeout: 3000, interval: 10 });
    await tradeUntil(first, 1);
    first.cancel();
    await vi.waitUntil(() => t.platform.gateway.hub.size === 0 && serviceStreams() === 0, { timeout: 3000, interval: 10 });
  });

  it('loses and duplicates nothing for a watching browser while others join and leave (make before break)', async () => {
    const watched = aggregates[0] ?? '';
    const runtime = t.platform.runtime;
    if (!runtime) throw new Error('no runtime');
    const aggregateId = runtime.market.pools.get(watched)?.id ?? -1;
    const watcher = await open([watched]);
    await watcher.until(() => statuses(watcher).some((s) => s.state === 'connected'));
    const fromSeq = (runtime.db.prepare('SELECT coalesce(max(seq), 0) AS s FROM trades').get() as { s: number }).s;
    const others: SseReader[] = [];
    for (let round = 0; round < 12; round++) {
      // Every round changes the union (a join or a leave), and the market trades throughout.
      if (round % 3 === 2) others.shift()?.cancel();
      else others.push(await open([aggregates[5 + (round % 8)] ?? '']));
      for (let i = 0; i < 15; i++) {
        t.trade();
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    const stored = runtime.db
      .prepare('SELECT agg_price AS price, agg_prev_price AS prev, volume FROM trades WHERE agg = ? AND seq > ? ORDER BY seq')
      .all(aggregateId, fromSeq) as { price: number; prev: number; volume: number }[];
    expect(stored.length).toBeGreaterThan(5);
    await watcher.until(() => trades(watcher).length >= stored.length);
    await new Promise((r) => setTimeout(r, 100));
    expect(trades(watcher).map((e) => [e.previous_price, e.current_price, Math.round(e.volume * 1e6)])).toEqual(stored.map((r) => [r.prev, r.price, r.volume]));
    expect(statuses(watcher).filter((s) => s.resync)).toEqual([]);
    others.forEach((o) => o.cancel());
    watcher.cancel();
  });

  it('tells a browser joining after the last one left that it is live only once the upstream carries its pools', async () => {
    const pool = aggregates[2] ?? '';
    const leaving = await open([pool]);
    await leaving.until(() => statuses(leaving).some((s) => s.state === 'connected'));
    leaving.cancel();
    await vi.waitUntil(() => t.platform.gateway.hub.size === 0 && t.platform.gateway.upstreamStream.livePools === undefined, { timeout: 3000, interval: 10 });
    const joining = await open([pool]);
    let liveWhenTold: boolean | undefined;
    await joining.until(() => {
      const told = statuses(joining).some((s) => s.state === 'connected');
      if (told && liveWhenTold === undefined) liveWhenTold = t.platform.gateway.upstreamStream.livePools?.has(pool) ?? false;
      return told;
    });
    expect(liveWhenTold).toBe(true);
    joining.cancel();
  });

  it('gives status and heartbeat frames the latest event id, for resuming', async () => {
    const reader = await open([aggregates[0] ?? '']);
    await reader.until((f) => f.some((x) => x.event === 'heartbeat'));
    const status = reader.frames.find((f) => f.event === 'status');
    const heartbeat = reader.frames.find((f) => f.event === 'heartbeat');
    expect(status?.id).toMatch(/^[a-z0-9]+\.\d+$/);
    expect(heartbeat?.id).toMatch(/^[a-z0-9]+\.\d+$/);
    reader.cancel();
  });

  it('replays missed events to a browser reconnecting with Last-Event-ID', async () => {
    const keeper = await open([aggregates[0] ?? '']);
    await keeper.until(() => statuses(keeper).length > 0);
    await tradeUntil(keeper, 3);
    const all = keeper.frames.filter((f) => f.event === 'trade');
    const lastSeen = all[0]?.id ?? '';
    const back = await open([aggregates[0] ?? ''], { 'Last-Event-ID': lastSeen });
    await back.until(() => trades(back).length >= all.length - 1);
    expect(trades(back)).toEqual(trades(keeper).slice(1));
    back.cancel();
    // An id from another gateway process cannot be replayed: the browser is told to resync.
    const stranger = await open([aggregates[0] ?? ''], { 'Last-Event-ID': 'otherboot.5' });
    await stranger.until(() => statuses(stranger).length > 0);
    expect(statuses(stranger)[0]).toEqual({ state: 'connected', resync: true });
    stranger.cancel();
    keeper.cancel();
  });

  it('refuses bad requests with an error event and closes', async () => {
    const cases: [string, RegExp, boolean][] = [
      ['/gw/v1/live', /Give the pools/, false],
      ['/gw/v1/live?pools=xyz', /Invalid pool ID format/, false],
      [`/gw/v1/live?pools=${'ab'.repeat(28)}`, /Not an Aggregate pool ID/, false],
      [`/gw/v1/live?pools=${aggregates.slice(0, 6).join(',')}`, /Too many pools: 6 requested, at most 5/, false],
    ];
    for (const [url, message, retry] of cases) {
      const reader = new SseReader(await t.fetch(url));
      await reader.end();
      const [error] = reader.events('error').map((e) => liveErrorSchema.parse(e));
      expect(error?.errmsg).toMatch(message);
      expect(error?.retry).toBe(retry);
    }
  });

  it('limits connections per client address', async () => {
    const readers = await Promise.all(Array.from({ length: 6 }, () => open([aggregates[1] ?? ''])));
    const refused = await open([aggregates[1] ?? '']);
    await refused.end();
    expect(refused.events<{ errmsg: string }>('error')[0]?.errmsg).toMatch(/Too many live connections from local \(at most 6\)/);
    readers.forEach((r) => r.cancel());
    await new Promise((r) => setTimeout(r, 50));
    const again = await open([aggregates[1] ?? '']);
    await again.until(() => statuses(again).length > 0);
    again.cancel();
  });

  it('drops a browser that stops reading instead of buffering without bound', async () => {
    const response = await t.fetch(`/gw/v1/live?pools=${aggregates[0]}`);
    // Never read the body: frames pile up to the bound (8 KiB here), then the gateway lets go.
    const before = t.platform.gateway.hub.size;
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 3000 && t.platform.gateway.hub.size >= before; i++) {
      t.trade();
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    expect(t.platform.gateway.hub.size).toBe(before - 1);
    await response.body?.cancel();
  });
});

describe('browsers coming back', () => {
  it('replays everything to a browser back within the linger: the subscription stayed up', async () => {
    const pool = aggregates[0] ?? '';
    const first = await open([pool]);
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    await tradeUntil(first, 1);
    const lastSeen = first.frames.filter((f) => f.event === 'trade').at(-1)?.id ?? '';
    first.cancel();
    await vi.waitUntil(() => t.platform.gateway.hub.size === 0, { timeout: 3000, interval: 10 });
    // Nobody is connected, but the upstream lingers: these trades reach the gateway's ring.
    const runtime = t.platform.runtime;
    if (!runtime) throw new Error('no runtime');
    const aggregateId = runtime.market.pools.get(pool)?.id ?? -1;
    const count = () => (runtime.db.prepare('SELECT count(*) AS n FROM trades WHERE agg = ?').get(aggregateId) as { n: number }).n;
    const before = count();
    for (let i = 0; i < 400 && count() < before + 2; i++) t.trade();
    expect(t.platform.gateway.upstreamStream.livePools?.has(pool)).toBe(true);
    const back = await open([pool], { 'Last-Event-ID': lastSeen });
    await back.until(() => trades(back).length >= count() - before && statuses(back).length > 0);
    expect(statuses(back)[0]).toEqual({ state: 'connected', resync: false });
    back.cancel();
  });
});

describe('browsers coming back after the gateway stopped following their pools', () => {
  let quick: TestPlatform;
  beforeAll(() => {
    quick = createTestPlatform({ pools: 120, days: 1, gateway: { idleLingerMs: 1 } });
  });
  afterAll(() => quick.close());

  it('are told to resync: the gateway itself missed events', async () => {
    const market = quick.platform.runtime?.market;
    const pool = [...(market?.pairs.values() ?? [])].sort((a, b) => b.aggregate.baseReserve - a.aggregate.baseReserve)[0]?.aggregate.poolId ?? '';
    const first = new SseReader(await quick.fetch(`/gw/v1/live?pools=${pool}`));
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    const lastSeen = first.frames.find((f) => f.event === 'status')?.id ?? '';
    first.cancel();
    await vi.waitUntil(() => quick.platform.gateway.upstreamStream.livePools === undefined, { timeout: 3000, interval: 10 });
    for (let i = 0; i < 20; i++) quick.trade();
    const back = new SseReader(await quick.fetch(`/gw/v1/live?pools=${pool}`, { headers: { 'Last-Event-ID': lastSeen } }));
    await back.until(() => statuses(back).length > 0);
    expect(statuses(back)[0]).toEqual({ state: 'connected', resync: true });
    back.cancel();
  });
});
