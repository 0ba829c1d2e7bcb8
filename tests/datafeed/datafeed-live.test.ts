import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import type { Pool } from '../../src/service/market/model';
import { TestEventSource } from '../support/event-source';
import { ensureDefined } from '../support/ensure';
import {
  attachDatafeed,
  busiestAggregates,
  busiestDexPool,
  createHarness,
  getBars,
  historyBars,
  resolveSymbol,
  subscribe,
  tradeUntil,
  type Harness,
} from './harness';

let h: Harness;
let pools: Pool[];
let infos: LibrarySymbolInfo[];
let attached: ReturnType<typeof attachDatafeed>[] = [];

beforeAll(async () => {
  h = createHarness();
  pools = busiestAggregates(h.tp).slice(0, 3);
  infos = await Promise.all(pools.map((p) => resolveSymbol(h.datafeed, p.poolId)));
});
afterAll(() => h.close());
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
    await getBars(datafeed, info(0), '1', { from: nowSeconds() - 3600, to: nowSeconds() + 60, countBack: 10, firstDataRequest: true });
    const ticks = subscribe(datafeed, info(0), '1', 'a');
    await vi.waitFor(() => expect(ticks.ticks.length).toBeGreaterThan(0));
    expect(sources).toHaveLength(1);
    const before = ticks.ticks.length;
    tradeUntil(h.tp, [pool(0)]);
    await vi.waitFor(() => expect(ticks.ticks.length).toBeGreaterThan(before));
    const last = ensureDefined(ticks.last());
    const server = await historyBars(h.tp, pool(0).poolId, '1min', last.time / 1000, last.time / 1000 + 60);
    expect(server).toEqual([last]);
    expect(last.time % 60_000).toBe(0);
  });

  it('counts trades made between getBars and the subscription (reconcile on connected)', async () => {
    const { datafeed } = feed();
    const first = await getBars(datafeed, info(1), '5', { from: nowSeconds() - 86_400, to: nowSeconds() + 300, countBack: 50, firstDataRequest: true });
    const newestBefore = ensureDefined(first.bars.at(-1));
    tradeUntil(h.tp, [pool(1)]);
    const ticks = subscribe(datafeed, info(1), '5', 'b');
    const server = ensureDefined((await historyBars(h.tp, pool(1).poolId, '5min', newestBefore.time / 1000, nowSeconds() + 300)).at(-1));
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
    tradeUntil(h.tp, [pool(0)]);
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
    tradeUntil(h.tp, [pool(0)]);
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(1));
    const b = subscribe(datafeed, info(1), '1', 'b');
    await vi.waitFor(() => expect(b.ticks.length).toBeGreaterThan(0));
    expect(sources).toHaveLength(2);
    expect(ensureDefined(sources[1]).url).toMatch(/&lastEventId=[0-9a-z]+\.\d+$/);
    expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED);
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(1));
    const count = a.ticks.length;
    tradeUntil(h.tp, [pool(0)]);
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(count));
  });

  it('closes the EventSource when the last listener leaves, and the gateway drops the client', async () => {
    const { datafeed, sources } = feed();
    const a = subscribe(datafeed, info(0), '1', 'a');
    subscribe(datafeed, info(0), '5', 'b');
    await vi.waitFor(() => expect(a.ticks.length).toBeGreaterThan(0));
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    datafeed.unsubscribeBars('a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ensureDefined(sources[0]).readyState).not.toBe(TestEventSource.CLOSED);
    expect(h.tp.platform.gateway.hub.size).toBe(1);
    const count = a.ticks.length;
    datafeed.unsubscribeBars('b');
    await vi.waitFor(() => expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED));
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(0));
    tradeUntil(h.tp, [pool(0)]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(a.ticks.length).toBe(count);
    expect(sources).toHaveLength(1);
  });

  it('accepts a non-Aggregate symbol without opening a connection (history only)', async () => {
    const { datafeed, sources, warnings } = feed();
    const dex = await resolveSymbol(datafeed, busiestDexPool(h.tp).poolId);
    expect(dex.exchange).not.toBe('Aggregate');
    const ticks = subscribe(datafeed, dex, '1', 'dex');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sources).toHaveLength(0);
    expect(ticks.ticks).toEqual([]);
    datafeed.unsubscribeBars('dex');
    expect(warnings).toEqual([]);
  });

  it('closes the EventSource on a refusal with retry false and reports it', async () => {
    const { datafeed, sources, warnings } = feed();
    const many = busiestAggregates(h.tp).slice(0, 51);
    const symbols = await Promise.all(many.map((p) => resolveSymbol(datafeed, p.poolId)));
    symbols.forEach((s, i) => subscribe(datafeed, s, '1', `l${i}`));
    await vi.waitFor(() => expect(warnings.join('\n')).toMatch(/Live updates: Too many pools: 51 requested, at most 50/));
    expect(sources).toHaveLength(1);
    expect(ensureDefined(sources[0]).readyState).toBe(TestEventSource.CLOSED);
    // Back within the limit: a new connection.
    datafeed.unsubscribeBars('l50');
    await vi.waitFor(() => expect(sources).toHaveLength(2));
    await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(1));
  });
});
