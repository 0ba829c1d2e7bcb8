import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { attachDatafeed, createHarness, historyBars, resolveSymbol, subscribe, type Harness } from './harness';
import { runtimeInternals } from '../../src/service/runtime-internals';

let h: Harness;
let pool: Pool;
let info: LibrarySymbolInfo;
let attached: ReturnType<typeof attachDatafeed>[] = [];

beforeAll(async () => {
  // Fast upstream reconnects, so a dropped upstream comes back within a test.
  h = await createHarness({ gateway: { backoffInitialMs: 20, backoffMaxMs: 40 } });
  pool = ensureDefined((await aggregatesByActivity(h.tp.runtime))[0]);
  info = await resolveSymbol(h.datafeed, pool.poolId);
});
afterAll(async () => h.close());
afterEach(async () => {
  for (const a of attached) a.close();
  attached = [];
  await vi.waitFor(() => expect(h.tp.platform.gateway.hub.size).toBe(0));
});

const runtime = () => ensureDefined(h.tp.platform.runtime);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A datafeed following `pool` at 1min and 5min, live. */
async function liveFeed() {
  const a = attachDatafeed(h.tp);
  attached.push(a);
  const statuses: string[] = [];
  const m1 = subscribe(a.datafeed, info, '1', 'm1');
  const m5 = subscribe(a.datafeed, info, '5', 'm5');
  await vi.waitFor(() => expect(m1.ticks.length * m5.ticks.length).toBeGreaterThan(0));
  await vi.waitFor(() => expect(ensureDefined(a.sources[0]).readyState).toBe(1));
  ensureDefined(a.sources[0]).addEventListener('status', (e) => statuses.push(String(e.data)));
  return { ...a, m1, m5, statuses };
}

async function expectLastBarsEqualHistory(recorders: {
  m1: ReturnType<typeof subscribe>;
  m5: ReturnType<typeof subscribe>;
}): Promise<void> {
  for (const [recorder, resolution] of [
    [recorders.m1, '1min'],
    [recorders.m5, '5min'],
  ] as const) {
    await vi.waitFor(async () => {
      const server = await historyBars(h.tp, pool.poolId, resolution, nowSeconds() - 86_400, nowSeconds() + 86_400);
      expect(recorder.last()).toEqual(server.at(-1));
    });
  }
}

describe('resync after the upstream stream drops', () => {
  it('refetches recent history and does not reset the chart when nothing changed', async () => {
    const f = await liveFeed();
    const fetches = f.fetched.length;
    runtimeInternals(runtime()).hub.closeAll();
    await vi.waitFor(() => expect(f.statuses).toContain('{"state":"connected","resync":true}'));
    expect(f.statuses[0]).toBe('{"state":"reconnecting","resync":false}');
    await vi.waitFor(() => expect(f.fetched.slice(fetches).filter((u) => u.includes('/history?'))).toHaveLength(2));
    // Still live afterwards: a trade ticks both series, which they only do once their resync is done
    // (a reset, had there been one, comes before).
    const counts = [f.m1.ticks.length, f.m5.ticks.length];
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() =>
      expect([f.m1.ticks.length, f.m5.ticks.length].every((n, i) => n > (counts[i] ?? 0))).toBe(true),
    );
    expect(f.m1.resets + f.m5.resets).toBe(0);
    await expectLastBarsEqualHistory(f);
  });

  it('resets the chart when trades were lost while the upstream was down, and keeps emitting correct bars', async () => {
    const f = await liveFeed();
    const before = ensureDefined(f.m1.last());
    runtimeInternals(runtime()).hub.closeAll();
    // The service has no stream client now: these trades reach nobody.
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() => expect(f.m1.resets).toBe(1));
    await vi.waitFor(() => expect(f.m5.resets).toBe(1));
    await expectLastBarsEqualHistory(f);
    expect(ensureDefined(f.m1.last())).not.toEqual(before);
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await expectLastBarsEqualHistory(f);
    expect(f.m1.resets).toBe(1);
  });
});

describe('reconnect of the browser connection', () => {
  it('resumes with Last-Event-ID: missed trades are replayed, no reset', async () => {
    const f = await liveFeed();
    const count = f.m1.ticks.length;
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() => expect(f.m1.ticks.length).toBeGreaterThan(count));
    const fetches = f.fetched.length;
    // The gateway ends every browser connection; the EventSource reconnects after the server's retry delay.
    h.tp.platform.gateway.hub.closeAll();
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    const server = ensureDefined(
      (await historyBars(h.tp, pool.poolId, '1min', nowSeconds() - 3600, nowSeconds() + 60)).at(-1),
    );
    await vi.waitFor(() => expect(f.m1.last()).toEqual(server), { timeout: 8000, interval: 50 });
    expect(f.sources).toHaveLength(1);
    expect(ensureDefined(f.sources[0]).readyState).toBe(1);
    expect(f.statuses).toEqual(['{"state":"connected","resync":false}']);
    expect(f.m1.resets + f.m5.resets).toBe(0);
    // Replayed, not refetched.
    expect(f.fetched.slice(fetches).filter((u) => u.includes('/history?'))).toEqual([]);
    await expectLastBarsEqualHistory(f);
  }, 15_000);

  it("resumes from the status frame's id when no trade was seen yet: replayed, no reset", async () => {
    const f = await liveFeed();
    const fetches = f.fetched.length;
    h.tp.platform.gateway.hub.closeAll();
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    const server = ensureDefined(
      (await historyBars(h.tp, pool.poolId, '1min', nowSeconds() - 3600, nowSeconds() + 60)).at(-1),
    );
    await vi.waitFor(() => expect(f.m1.last()).toEqual(server), { timeout: 8000, interval: 50 });
    expect(f.sources).toHaveLength(1);
    expect(f.m1.resets + f.m5.resets).toBe(0);
    expect(f.fetched.slice(fetches).filter((u) => u.includes('/history?'))).toEqual([]);
    await expectLastBarsEqualHistory(f);
  }, 15_000);
});
