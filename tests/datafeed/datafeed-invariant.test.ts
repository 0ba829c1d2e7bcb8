import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toWireResolution } from '../../src/datafeed/resolution-map';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import type { Pool } from '../../src/service/market/model';
import { createTestClock } from '../support/clock';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn, lastSeq, storedTrades } from '../support/market';
import {
  createHarness,
  getBars,
  historyBars,
  resolveSymbol,
  subscribe,
  type Harness,
  type TickRecorder,
} from './harness';

/** 40 minutes before a UTC midnight: a run of blocks crosses minute, hour and day boundaries. */
const START_MS = Date.UTC(2025, 0, 15, 23, 20, 0);
const clock = createTestClock(START_MS);
const LIBRARY_RESOLUTIONS = ['1', '5', '15', '60', '1D'] as const;

let h: Harness;
let pools: Pool[];
let infos: LibrarySymbolInfo[];

beforeAll(async () => {
  h = await createHarness({ nowMs: clock.now });
  pools = (await aggregatesByActivity(h.tp.runtime)).slice(0, 4);
  infos = await Promise.all(pools.map((p) => resolveSymbol(h.datafeed, p.poolId)));
});
afterAll(async () => h.close());

const seconds = () => Math.floor(clock.now() / 1000);

describe('live bars', () => {
  it('roll over at bucket boundaries', async () => {
    const pool = ensureDefined(pools[0]);
    const info = ensureDefined(infos[0]);
    const m1 = subscribe(h.datafeed, info, '1', 'roll-1');
    const m5 = subscribe(h.datafeed, info, '5', 'roll-5');
    await vi.waitFor(() => expect(m1.ticks.length * m5.ticks.length).toBeGreaterThan(0));

    clock.set(START_MS + 10_000);
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() => expect(m1.last()?.time).toBe(START_MS));
    await vi.waitFor(() => expect(m5.last()?.time).toBe(START_MS));
    const firstMinute = ensureDefined(m1.last());

    clock.set(START_MS + 65_000);
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() => expect(m1.last()?.time).toBe(START_MS + 60_000));
    await vi.waitFor(async () =>
      expect(m5.last()).toEqual(
        (await historyBars(h.tp, pool.poolId, '5min', START_MS / 1000, START_MS / 1000 + 300))[0],
      ),
    );
    // The new minute opens where the last one closed (the bar rule: open = previous_price of its first trade).
    expect(ensureDefined(m1.last()).open).toBe(firstMinute.close);

    clock.set(START_MS + 5 * 60_000 + 1000);
    await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
    await vi.waitFor(() => expect(m5.last()?.time).toBe(START_MS + 5 * 60_000));
    expect(await historyBars(h.tp, pool.poolId, '1min', START_MS / 1000, START_MS / 1000 + 60)).toEqual([firstMinute]);
    h.datafeed.unsubscribeBars('roll-1');
    h.datafeed.unsubscribeBars('roll-5');
  });

  it('equal /history for the same span at every resolution after a run of live trades', async () => {
    const recorders = new Map<string, { pool: Pool; resolution: string; recorder: TickRecorder }>();
    pools.forEach((pool, i) => {
      for (const resolution of LIBRARY_RESOLUTIONS) {
        recorders.set(`${i}-${resolution}`, {
          pool,
          resolution,
          recorder: subscribe(h.datafeed, ensureDefined(infos[i]), resolution, `${i}-${resolution}`),
        });
      }
    });
    await vi.waitFor(() => expect([...recorders.values()].every((r) => r.recorder.ticks.length > 0)).toBe(true));

    // The trade events of the followed pools, counted as they reach the datafeed.
    let received = 0;
    let live = false;
    const stop = h.datafeed.onTrades(
      pools.map((p) => p.poolId),
      {
        onTrade: () => received++,
        onLive: () => {
          live = true;
        },
      },
    );
    await vi.waitFor(() => expect(live).toBe(true));
    const followed = new Set(pools.map((p) => p.id));
    const runStart = await lastSeq(h.tp.runtime);
    const sent = async () =>
      (await storedTrades(h.tp.runtime, { afterSeq: runStart })).filter((t) => followed.has(t.agg)).length;

    // About 80 minutes of blocks, 5 to 45 s apart, across 23:59:59 -> 00:00; every third block, the
    // datafeed catches up (what a browser sees: a few blocks at a time, not all at once).
    clock.set(START_MS + 6 * 60_000);
    for (let block = 0; block < 200; block++) {
      clock.advanceSeconds(5 + ((block * 17) % 41));
      await h.tp.trade();
      if (block % 3 === 0) {
        const expected = await sent();
        await vi.waitFor(() => expect(received).toBe(expected));
      }
    }
    stop();
    expect(seconds()).toBeGreaterThan(START_MS / 1000 + 40 * 60 + 30 * 60);
    for (const pool of pools) await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());

    for (const { pool, resolution, recorder } of recorders.values()) {
      const wire = ensureDefined(toWireResolution(resolution));
      const from = ensureDefined(recorder.bars()[0]).time / 1000;
      await vi.waitFor(async () => {
        const server = await historyBars(h.tp, pool.poolId, wire, from, seconds() + 86_400);
        expect(recorder.bars()).toEqual(server);
      });
      expect(recorder.resets).toBe(0);
    }
    // The run covered many buckets, and the day boundary.
    const minutes = ensureDefined(recorders.get('0-1')).recorder.bars();
    expect(minutes.length).toBeGreaterThan(30);
    const days = ensureDefined(recorders.get('0-1D')).recorder.bars();
    expect(days.map((b) => new Date(b.time).toISOString().slice(0, 10))).toEqual(['2025-01-15', '2025-01-16']);
    expect(h.tp.platform.gateway.hub.size).toBe(1);
  });
});

describe('a chart drawn before its symbol resolved (a deep link by symbol name)', () => {
  it('keeps the trades of the chart’s last bar when a bucket rolls over before the subscription syncs', async () => {
    const start = Date.UTC(2025, 0, 20, 12, 0, 0);
    const own = createTestClock(start);
    const d = await createHarness({ nowMs: own.now });
    try {
      const pool = ensureDefined((await aggregatesByActivity(d.tp.runtime))[0]);
      const resolved = await resolveSymbol(d.datafeed, pool.poolId);
      // The app's stand-in: the name from the URL, no ticker yet.
      const provisional: LibrarySymbolInfo = Object.fromEntries(
        Object.entries(resolved).filter(([key]) => key !== 'ticker'),
      ) as unknown as LibrarySymbolInfo;
      expect(provisional.ticker).toBeUndefined();
      const now = () => Math.floor(own.now() / 1000);

      own.set(start + 10_000);
      await forceTradesOn(d.tp.runtime, [pool], d.tp.nowSeconds());
      const first = await getBars(d.datafeed, provisional, '1', {
        from: now() - 3600,
        to: now() + 60,
        countBack: 50,
        firstDataRequest: true,
      });
      const chartLast = ensureDefined(first.bars.at(-1));
      expect(chartLast.time).toBe(start);
      // More trades in that minute, then the next minute begins: all before the subscription syncs.
      own.set(start + 30_000);
      await forceTradesOn(d.tp.runtime, [pool], d.tp.nowSeconds());
      own.set(start + 70_000);
      await forceTradesOn(d.tp.runtime, [pool], d.tp.nowSeconds());

      const ticks = subscribe(d.datafeed, resolved, '1', 'deep-link');
      const server = await historyBars(d.tp, pool.poolId, '1min', start / 1000, now() + 60);
      expect(server).toHaveLength(2);
      expect(ensureDefined(server[0])).not.toEqual(chartLast);
      // The chart gets the finished minute (with the trades it had not seen) and the new one.
      await vi.waitFor(() => expect(ticks.bars()).toEqual(server));
      d.datafeed.unsubscribeBars('deep-link');
    } finally {
      await d.close();
    }
  });
});
