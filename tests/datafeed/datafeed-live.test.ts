import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LiveConnectionStatus } from '../../src/datafeed';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import type { TradeEvent } from '../../src/shared/api/stream';
import type { Bar } from '../../src/shared/bars';
import type { Pool } from '../../src/service/market/model';
import { TestEventSource } from '../support/event-source';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, busiestPools, forceTradesOn, wholeTrades } from '../support/market';
import { attachDatafeed, createHarness, getBars, historyBars, resolveSymbol, subscribe, type Harness } from './harness';
import { runtimeInternals } from '../../src/service/runtime-internals';

let h: Harness;
let pools: Pool[];
let infos: LibrarySymbolInfo[];
let attached: ReturnType<typeof attachDatafeed>[] = [];

beforeAll(async () => {
  h = await createHarness();
  pools = (await aggregatesByActivity(h.tp.runtime)).slice(0, 3);
  infos = await Promise.all(pools.map((p) => resolveSymbol(h.datafeed, p.poolId)));
});
afterAll(async () => h.close());
afterEach(async () => {
  for (const a of attached) a.close();
  attached = [];
  await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(0));
});

/** A fresh datafeed on the shared platform (closed after the test). */
function feed() {
  const a = attachDatafeed(h.tp);
  attached.push(a);
  return a;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const pool = (i: number) => ensureDefined(pools[i], `pool ${i}`);
const info = (i: number) => ensureDefined(infos[i], `symbol ${i}`);

describe('subscribeBars', () => {
  it('emits the current bar of an Aggregate symbol after each trade, equal to /history', async () => {
    const { datafeed, sources } = feed();
    await getBars(datafeed, info(0), '1', {
      from: nowSeconds() - 3600,
      to: nowSeconds() + 60,
      countBack: 10,
      firstDataRequest: true,
    });
    const ticks = subscribe(datafeed, info(0), '1', 'a');
    await vi.waitFor(() => expect(ticks.ticks.length).toBeGreaterThan(0));
    expect(sources).toHaveLength(1);
    const before = ticks.ticks.length;
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(ticks.ticks.length).toBeGreaterThan(before));
    const last = ensureDefined(ticks.last());
    const server = await historyBars(h.tp, pool(0).poolId, '1min', last.time / 1000, last.time / 1000 + 60);
    expect(server).toEqual([last]);
    expect(last.time % 60_000).toBe(0);
  });

  it('counts trades made between getBars and the subscription (reconcile on connected)', async () => {
    const { datafeed } = feed();
    const first = await getBars(datafeed, info(1), '5', {
      from: nowSeconds() - 86_400,
      to: nowSeconds() + 300,
      countBack: 50,
      firstDataRequest: true,
    });
    const newestBefore = ensureDefined(first.bars.at(-1));
    await forceTradesOn(h.tp.runtime, [pool(1)], h.tp.nowSeconds());
    const ticks = subscribe(datafeed, info(1), '5', 'b');
    const server = ensureDefined(
      (await historyBars(h.tp, pool(1).poolId, '5min', newestBefore.time / 1000, nowSeconds() + 300)).at(-1),
    );
    await vi.waitFor(() => expect(ticks.last()).toEqual(server));
    expect(ticks.ticks.every((t) => t.time >= newestBefore.time)).toBe(true);
  });

  it('serves several listeners and resolutions on one EventSource', async () => {
    const { datafeed, sources } = feed();
    const recorders = [
      subscribe(datafeed, info(0), '1', 'p0-1'),
      subscribe(datafeed, info(0), '1', 'p0-1-again'),
      subscribe(datafeed, info(0), '15', 'p0-15'),
      subscribe(datafeed, info(1), '60', 'p1-60'),
      subscribe(datafeed, info(2), '1D', 'p2-1D'),
    ];
    await vi.waitFor(() => expect(recorders.every((r) => r.ticks.length > 0)).toBe(true));
    expect(sources).toHaveLength(1);
    expect(ensureDefined(sources[0]).url).toMatch(/\/gw\/v1\/live\?pools=[0-9a-f]+%2C[0-9a-f]+%2C[0-9a-f]+$/);
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    const counts = recorders.map((r) => r.ticks.length);
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(recorders.slice(0, 3).every((r, i) => r.ticks.length > (counts[i] ?? 0))).toBe(true));
    expect(recorders[0]?.ticks.at(-1)).toEqual(recorders[1]?.ticks.at(-1));
    // A listener joining a live series gets its current bar at once.
    const late = subscribe(datafeed, info(0), '1', 'late');
    expect(late.last()).toEqual(recorders[0]?.last());
    expect(sources).toHaveLength(1);
  });

  it('switches to a new EventSource with lastEventId when the pool set changes, one open at a time', async () => {
    const { datafeed, sources } = feed();
    const a = subscribe(datafeed, info(0), '1', 'a');
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(0));
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(1));
    const b = subscribe(datafeed, info(1), '1', 'b');
    await vi.waitFor(() => expect(b.ticks.length).toBeGreaterThan(0));
    expect(sources).toHaveLength(2);
    expect(ensureDefined(sources[1]).url).toMatch(/&lastEventId=[0-9a-z]+\.\d+$/);
    expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED);
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(1));
    const count = a.ticks.length;
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(count));
  });

  it('closes the EventSource when the last listener leaves, and the gateway drops the client', async () => {
    const { datafeed, sources } = feed();
    const a = subscribe(datafeed, info(0), '1', 'a');
    const b = subscribe(datafeed, info(0), '5', 'b');
    await vi.waitFor(() => expect(a.ticks.length * b.ticks.length).toBeGreaterThan(0));
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    datafeed.unsubscribeBars('a');
    // The pool is still wanted: the same connection keeps carrying it.
    const countB = b.ticks.length;
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(b.ticks.length).toBeGreaterThan(countB));
    expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.OPEN);
    expect(sources).toHaveLength(1);
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    const count = a.ticks.length + b.ticks.length;
    datafeed.unsubscribeBars('b');
    await vi.waitFor(() => expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED));
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('idle'));
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(0));
    // Another browser's connection sees the next trade; this one is gone.
    const control = subscribe(feed().datafeed, info(0), '1', 'control');
    await vi.waitFor(() => expect(control.ticks.length).toBeGreaterThan(0));
    const seen = control.ticks.length;
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(control.ticks.length).toBeGreaterThan(seen));
    expect(a.ticks.length + b.ticks.length).toBe(count);
    expect(sources).toHaveLength(1);
  });

  it('accepts a non-Aggregate symbol without opening a connection (history only)', async () => {
    const { datafeed, sources, warnings } = feed();
    const dex = await resolveSymbol(datafeed, (await busiestPools(h.tp.runtime)).dexPool.poolId);
    expect(dex.exchange).not.toBe('Aggregate');
    const ticks = subscribe(datafeed, dex, '1', 'dex');
    expect(datafeed.liveStatus.state).toBe('idle');
    // An Aggregate symbol next: its connection carries that pool alone.
    const live = subscribe(datafeed, info(0), '1', 'aggregate');
    await vi.waitFor(() => expect(live.ticks.length).toBeGreaterThan(0));
    expect(sources).toHaveLength(1);
    expect(ensureDefined(sources[0]).url).toBe(`/gw/v1/live?pools=${pool(0).poolId}`);
    expect(ticks.ticks).toEqual([]);
    datafeed.unsubscribeBars('dex');
    expect(warnings).toEqual([]);
  });

  it('closes the EventSource on a refusal with retry false and reports it', async () => {
    const { datafeed, sources, warnings } = feed();
    const many = (await aggregatesByActivity(h.tp.runtime)).slice(0, 51);
    const symbols = await Promise.all(many.map((p) => resolveSymbol(datafeed, p.poolId)));
    symbols.forEach((s, i) => subscribe(datafeed, s, '1', `l${i}`));
    await vi.waitFor(() =>
      expect(warnings.join('\n')).toMatch(/Live updates: Too many pools: 51 requested, at most 50/),
    );
    expect(sources).toHaveLength(1);
    expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED);
    // Back within the limit: a new connection.
    datafeed.unsubscribeBars('l50');
    await vi.waitFor(() => expect(sources).toHaveLength(2));
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(1));
  });
});

describe('onTrades', () => {
  it('delivers each trade event of the pool as the stream carries it, after telling the pool is live', async () => {
    const { datafeed } = feed();
    const log: string[] = [];
    const events: TradeEvent[] = [];
    datafeed.onTrades(info(0), {
      onTrade: (event) => {
        log.push('trade');
        events.push(event);
      },
      onLive: ({ resync }) => log.push(`live ${resync}`),
    });
    await vi.waitFor(() => expect(log).toEqual(['live false']));
    const stored = wholeTrades(
      h.tp.runtime.market,
      (await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds())).filter((t) => t.agg === pool(0).id),
    );
    await vi.waitFor(() => expect(events).toHaveLength(stored.length));
    // The spec's trade event of the Aggregate pool, one per stored trade, in order (volume in whole units).
    expect(events).toEqual(
      stored.map((t) => ({
        block_time: t.blockTime,
        pool_id: pool(0).poolId,
        current_price: t.aggPrice,
        previous_price: t.aggPrevPrice,
        current_tvl: t.aggTvl,
        previous_tvl: t.aggPrevTvl,
        volume: t.volume,
      })),
    );
    expect(log[0]).toBe('live false');
  });

  it('takes pool IDs and symbol names, shares the one connection with live bars, and stops on unsubscribe', async () => {
    const { datafeed, sources, warnings } = feed();
    const bars = subscribe(datafeed, info(0), '1', 'bars');
    const byId: TradeEvent[] = [];
    const byName: TradeEvent[] = [];
    const stopId = datafeed.onTrades([pool(0).poolId.toUpperCase(), pool(1).poolId], (event) => byId.push(event));
    datafeed.onTrades(info(1).name, (event) => byName.push(event));
    await vi.waitFor(() => expect(datafeed.liveStatus.pools).toEqual([pool(0).poolId, pool(1).poolId].sort()));
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('live'));
    await vi.waitFor(() => expect(bars.ticks.length).toBeGreaterThan(0));
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    await forceTradesOn(h.tp.runtime, [pool(1)], h.tp.nowSeconds());
    await vi.waitFor(() =>
      expect(new Set(byId.map((e) => e.pool_id))).toEqual(new Set([pool(0).poolId, pool(1).poolId])),
    );
    await vi.waitFor(() => expect(byName.length).toBeGreaterThan(0));
    expect(byName.every((e) => e.pool_id === pool(1).poolId)).toBe(true);
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    const opened = sources.length;
    stopId();
    // Pool 0 is still wanted by the bars, pool 1 by the name: the same connection stays.
    const count = byId.length;
    const countName = byName.length;
    await forceTradesOn(h.tp.runtime, [pool(1)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(byName.length).toBeGreaterThan(countName));
    expect(byId).toHaveLength(count);
    expect(sources).toHaveLength(opened);
    expect(warnings).toEqual([]);
  });

  it('follows pool IDs known to be Aggregate pools without looking them up in the symbol lists', async () => {
    const { datafeed, fetched } = feed();
    const events: TradeEvent[] = [];
    const stop = datafeed.onTrades({ aggregatePools: [pool(0).poolId, pool(2).poolId, 'not a pool'] }, (event) =>
      events.push(event),
    );
    await vi.waitFor(() =>
      expect(datafeed.liveStatus).toMatchObject({ state: 'live', pools: [pool(0).poolId, pool(2).poolId].sort() }),
    );
    await forceTradesOn(h.tp.runtime, [pool(2)], h.tp.nowSeconds());
    await vi.waitFor(() => expect(events.some((e) => e.pool_id === pool(2).poolId)).toBe(true));
    // Pool 0 may trade meanwhile (an earlier test's trades): only the two followed pools are heard.
    expect(events.filter((e) => e.pool_id !== pool(0).poolId && e.pool_id !== pool(2).poolId)).toEqual([]);
    expect(fetched.filter((url) => url.includes('/symbol_info'))).toEqual([]);
    stop();
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('idle'));
  });

  it('warns about names that are not Aggregate symbols and follows nothing for them', async () => {
    const { datafeed, sources, warnings } = feed();
    const dex = (await busiestPools(h.tp.runtime)).dexPool;
    datafeed.onTrades([dex.poolId, 'ADA.NOPE_Aggregate_Pool9'], () => {});
    await vi.waitFor(() => expect(warnings).toHaveLength(2));
    expect(warnings[0]).toBe(`No live trades for ${dex.poolId}: live updates exist for Aggregate pools only`);
    expect(warnings[1]).toMatch(/^No live trades for ADA\.NOPE_Aggregate_Pool9: Unknown symbol/);
    expect(sources).toHaveLength(0);
    expect(datafeed.liveStatus.state).toBe('idle');
  });
});

describe('onLiveStatus', () => {
  it('follows the connection: connecting, live, reconnecting while the gateway lost its upstream, live with a resync, idle', async () => {
    const { datafeed } = feed();
    const seen: LiveConnectionStatus[] = [];
    datafeed.onLiveStatus((status) => seen.push(status));
    const resyncs: boolean[] = [];
    const stop = datafeed.onTrades(info(0), { onTrade: () => {}, onLive: ({ resync }) => resyncs.push(resync) });
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('live'));
    runtimeInternals(h.tp.runtime).hub.closeAll();
    // The gateway reconnects upstream after its retry delay; on a loaded CI machine that can pass a second.
    await vi.waitFor(() => expect(seen.map((s) => s.state)).toEqual(['connecting', 'live', 'reconnecting', 'live']), {
      timeout: 10_000,
    });
    const pools = [pool(0).poolId];
    expect(seen).toEqual([
      { state: 'connecting', pools, resync: false },
      { state: 'live', pools, resync: false },
      { state: 'reconnecting', pools, resync: false },
      { state: 'live', pools, resync: true },
    ]);
    expect(resyncs).toEqual([false, true]);
    stop();
    await vi.waitFor(() => expect(datafeed.liveStatus).toEqual({ state: 'idle', pools: [], resync: false }));
    expect(seen.at(-1)?.state).toBe('idle');
  });
});

describe('bars and onBars (seconds, for our own UI)', () => {
  it('give the bars of getBars and subscribeBars in the wire’s units', async () => {
    const { datafeed } = feed();
    const range = { from: nowSeconds() - 6 * 3600, to: nowSeconds() + 60, countBack: 20 };
    const answer = await datafeed.bars(info(0), '5', range);
    const library = await getBars(datafeed, info(0), '5', { ...range, firstDataRequest: true });
    expect(answer.noData).toBe(false);
    expect(answer.bars.map((b) => ({ ...b, time: b.time * 1000 }))).toEqual(library.bars);
    const live: Bar[] = [];
    const stop = datafeed.onBars(info(0), '5', { onBar: (bar) => live.push(bar) });
    await vi.waitFor(() => expect(live.length).toBeGreaterThan(0));
    await forceTradesOn(h.tp.runtime, [pool(0)], h.tp.nowSeconds());
    const last = () => ensureDefined(live.at(-1));
    await vi.waitFor(async () => {
      const server = await historyBars(h.tp, pool(0).poolId, '5min', last().time, last().time + 300);
      expect([{ ...last(), time: last().time * 1000 }]).toEqual(server);
    });
    stop();
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('idle'));
    await expect(datafeed.bars(info(0), '7', range)).rejects.toThrow(/Unsupported resolution "7"/);
    await expect(datafeed.bars({ ...info(0), ticker: 'deadbeef' }, '5', range)).rejects.toThrow(
      'Unknown symbol: deadbeef',
    );
  });
});
