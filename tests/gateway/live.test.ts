import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveErrorSchema } from '../../src/shared/api/gateway';
import { aggregatesByActivity, forceTradesOn, lastSeq, storedTrades, wholeTrades } from '../support/market';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { liveStatuses, liveTrades, SseReader, tradeUntilSeen } from '../support/sse';
import { runtimeInternals } from '../../src/service/runtime-internals';

let t: TestPlatform;
/** Aggregate pool IDs, busiest first. */
let aggregates: string[];

const open = async (pools: string[], headers?: Record<string, string>) =>
  new SseReader(await t.fetch(`/gw/v1/live?pools=${pools.join(',')}`, headers ? { headers } : undefined));

const statuses = liveStatuses;
const trades = liveTrades;
const tradeUntil = (reader: SseReader, pools: readonly string[], count = 1) =>
  tradeUntilSeen(reader, t.runtime, t.nowSeconds(), pools, count);

const serviceStreams = () => (t.platform.runtime ? runtimeInternals(t.platform.runtime).hub.connectionCount : -1);

beforeAll(async () => {
  t = await createTestPlatform({
    pools: 120,
    days: 1,
    gateway: {
      heartbeatSeconds: 0.2,
      maxConnectionsPerAddress: 6,
      maxPoolsPerConnection: 5,
      maxBufferedBytes: 8 * 1024,
      handoverMs: 50,
    },
  });
  aggregates = (await aggregatesByActivity(t.runtime)).map((p) => p.poolId);
});

afterAll(async () => t.close());

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
    await Promise.all(
      readers.map((r) =>
        r.until((f) => f.some((x) => x.event === 'status' && JSON.parse(x.data).state === 'connected')),
      ),
    );
    await vi.waitUntil(() => serviceStreams() === 1, { timeout: 3000, interval: 10 });
    const [ra, rb, rac] = readers as [SseReader, SseReader, SseReader];
    await tradeUntil(ra, [a ?? ''], 2);
    await tradeUntil(rb, [b ?? ''], 1);
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
    await tradeUntil(newcomer, [aggregates[4] ?? ''], 1);
    newcomer.cancel();
    await vi.waitUntil(() => !t.platform.gateway.hub.union.has(aggregates[4] ?? '') && serviceStreams() === 1, {
      timeout: 3000,
      interval: 10,
    });
    await tradeUntil(first, [aggregates[0] ?? ''], 1);
    first.cancel();
    await vi.waitUntil(() => t.platform.gateway.hub.size === 0 && serviceStreams() === 0, {
      timeout: 3000,
      interval: 10,
    });
  });

  it('loses and duplicates nothing for a watching browser while others join and leave (make before break)', async () => {
    const watched = aggregates[0] ?? '';
    const runtime = t.runtime;
    const aggregate = runtime.market.pools.get(watched);
    if (!aggregate) throw new Error('no such pool');
    const watcher = await open([watched]);
    await watcher.until(() => statuses(watcher).some((s) => s.state === 'connected'));
    const fromSeq = await lastSeq(runtime);
    const storedSoFar = () => storedTrades(runtime, { agg: aggregate.id, afterSeq: fromSeq });
    const others: SseReader[] = [];
    for (let round = 0; round < 12; round++) {
      // Every round changes the union (a join or a leave), and the market trades throughout: each
      // trade of the watched pool reaches the watcher before the next block, whatever the switch.
      if (round % 3 === 2) others.shift()?.cancel();
      else others.push(await open([aggregates[5 + (round % 8)] ?? '']));
      for (let i = 0; i < 15; i++) {
        await t.trade();
        const expected = (await storedSoFar()).length;
        await watcher.until(() => trades(watcher).length >= expected);
      }
    }
    // One more trade of the watched pool, seen last: a duplicate of an earlier one would have come before it.
    await forceTradesOn(runtime, [aggregate], t.nowSeconds());
    const stored = wholeTrades(runtime.market, await storedSoFar());
    expect(stored.length).toBeGreaterThan(5);
    await watcher.until(() => trades(watcher).length >= stored.length);
    expect(trades(watcher).map((e) => [e.previous_price, e.current_price, e.volume])).toEqual(
      stored.map((r) => [r.aggPrevPrice, r.aggPrice, r.volume]),
    );
    expect(statuses(watcher).filter((s) => s.resync)).toEqual([]);
    others.forEach((o) => o.cancel());
    watcher.cancel();
  });

  it('tells a browser joining after the last one left that it is live only once the upstream carries its pools', async () => {
    const pool = aggregates[2] ?? '';
    const leaving = await open([pool]);
    await leaving.until(() => statuses(leaving).some((s) => s.state === 'connected'));
    leaving.cancel();
    await vi.waitUntil(
      () => t.platform.gateway.hub.size === 0 && t.platform.gateway.upstreamStream.livePools === undefined,
      { timeout: 3000, interval: 10 },
    );
    const joining = await open([pool]);
    let liveWhenTold: boolean | undefined;
    await joining.until(() => {
      const told = statuses(joining).some((s) => s.state === 'connected');
      if (told && liveWhenTold === undefined)
        liveWhenTold = t.platform.gateway.upstreamStream.livePools?.has(pool) ?? false;
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
    await tradeUntil(keeper, [aggregates[0] ?? ''], 3);
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
    expect(refused.events<{ errmsg: string }>('error')[0]?.errmsg).toMatch(
      /Too many live connections from local \(at most 6\)/,
    );
    readers.forEach((r) => r.cancel());
    await vi.waitUntil(() => t.platform.gateway.hub.connectionsOf('local') === 0, { timeout: 3000, interval: 5 });
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
      await t.trade();
      // Let the frames reach the connection's sink (no time passes: the I/O callbacks run).
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(t.platform.gateway.hub.size).toBe(before - 1);
    await response.body?.cancel();
  });
});

describe('an upstream that says it missed events without its stream breaking (a cluster node after a gap)', () => {
  it('tells live browsers to resync and keeps them live; one coming back from before the gap resyncs too', async () => {
    const pool = aggregates[0] ?? '';
    const reader = await open([pool]);
    let back: SseReader | undefined;
    try {
      await reader.until(() => statuses(reader).some((s) => s.state === 'connected'));
      // Settled: one upstream connection (an earlier switch's handover is over).
      await vi.waitUntil(() => serviceStreams() === 1, { timeout: 3000, interval: 10 });
      await tradeUntil(reader, [pool], 1);
      const before = reader.frames.filter((f) => f.event === 'trade').at(-1)?.id ?? '';
      t.platform.gateway.upstreamStream.markMissed();
      await reader.until(() => statuses(reader).some((s) => s.resync));
      expect(statuses(reader).at(-1)).toEqual({ state: 'connected', resync: true });
      // Still the same upstream connection, still live: events keep coming.
      expect(serviceStreams()).toBe(1);
      await tradeUntil(reader, [pool], 1);
      back = await open([pool], { 'Last-Event-ID': before });
      const reconnected = back;
      await reconnected.until(() => statuses(reconnected).length > 0);
      expect(statuses(reconnected)[0]).toEqual({ state: 'connected', resync: true });
    } finally {
      reader.cancel();
      back?.cancel();
    }
  });
});

describe('browsers coming back', () => {
  it('replays everything to a browser back within the linger: the subscription stayed up', async () => {
    const pool = aggregates[0] ?? '';
    const first = await open([pool]);
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    await tradeUntil(first, [pool], 1);
    const lastSeen = first.frames.filter((f) => f.event === 'trade').at(-1)?.id ?? '';
    first.cancel();
    await vi.waitUntil(() => t.platform.gateway.hub.size === 0, { timeout: 3000, interval: 10 });
    // Nobody is connected, but the upstream lingers: these trades reach the gateway's ring.
    const aggregate = t.runtime.market.pools.get(pool);
    if (!aggregate) throw new Error('no such pool');
    const missed = [
      ...(await forceTradesOn(t.runtime, [aggregate], t.nowSeconds())),
      ...(await forceTradesOn(t.runtime, [aggregate], t.nowSeconds())),
    ].filter((r) => r.agg === aggregate.id);
    expect(t.platform.gateway.upstreamStream.livePools?.has(pool)).toBe(true);
    const back = await open([pool], { 'Last-Event-ID': lastSeen });
    await back.until(() => trades(back).length >= missed.length && statuses(back).length > 0);
    expect(statuses(back)[0]).toEqual({ state: 'connected', resync: false });
    back.cancel();
  });
});

describe('browsers coming back after the gateway stopped following their pools', () => {
  let quick: TestPlatform;
  beforeAll(async () => {
    quick = await createTestPlatform({ pools: 120, days: 1, gateway: { idleLingerMs: 1 } });
  });
  afterAll(async () => quick.close());

  it('are told to resync: the gateway itself missed events', async () => {
    const pool = (await aggregatesByActivity(quick.runtime))[0]?.poolId ?? '';
    const first = new SseReader(await quick.fetch(`/gw/v1/live?pools=${pool}`));
    await first.until(() => statuses(first).some((s) => s.state === 'connected'));
    const lastSeen = first.frames.find((f) => f.event === 'status')?.id ?? '';
    first.cancel();
    await vi.waitUntil(() => quick.platform.gateway.upstreamStream.livePools === undefined, {
      timeout: 3000,
      interval: 10,
    });
    for (let i = 0; i < 20; i++) await quick.trade();
    const back = new SseReader(
      await quick.fetch(`/gw/v1/live?pools=${pool}`, { headers: { 'Last-Event-ID': lastSeen } }),
    );
    await back.until(() => statuses(back).length > 0);
    expect(statuses(back)[0]).toEqual({ state: 'connected', resync: true });
    back.cancel();
  });
});
