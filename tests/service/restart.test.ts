import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyResponseSchema } from '../../src/shared/api/history';
import { DEFAULT_START_MS } from '../support/clock';
import { historyPath } from '../support/builders';
import { allBarRows, busiestPools, memoryReserves, storedReserves, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';

const HOUR = 3600;
const T0 = DEFAULT_START_MS / 1000;

describe('restart and catch-up', () => {
  let service: TestService;
  let before: ReturnType<typeof storedTrades>;
  let heightBefore: number;

  beforeAll(() => {
    const first = createTestService({ days: 1 });
    before = storedTrades(first.runtime);
    heightBefore = first.runtime.simulator.blockHeight;
    first.clock.advanceSeconds(6 * HOUR);
    service = first.restart();
  });
  afterAll(() => service.close());

  it('produces the blocks missed while the service was down, up to now and no further', () => {
    const { runtime } = service;
    expect(before.every((t) => t.blockTime <= T0)).toBe(true);
    expect(runtime.startupTrades).toBeGreaterThan(0);
    const after = storedTrades(runtime);
    const missed = after.slice(before.length);
    expect(missed.length).toBe(runtime.startupTrades);
    expect(missed.every((t) => t.blockTime > T0 && t.blockTime <= T0 + 6 * HOUR)).toBe(true);
    // About one block every 20 s.
    const blocks = runtime.simulator.blockHeight - heightBefore;
    expect(blocks).toBeGreaterThan((6 * HOUR) / 20 / 1.5);
    expect(blocks).toBeLessThan((6 * HOUR) / 20 * 1.5);
    expect(runtime.simulator.nextBlockAt).toBeGreaterThan(T0 + 6 * HOUR);
    // Every hour of the outage has trades.
    const hours = new Set(missed.map((t) => Math.floor((t.blockTime - T0 - 1) / HOUR)));
    expect(hours).toEqual(new Set([0, 1, 2, 3, 4, 5]));
  });

  it('keeps the trades from before the restart unchanged and stores none twice', () => {
    const after = storedTrades(service.runtime);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(new Set(after.map((t) => t.eventId)).size).toBe(after.length);
  });

  it('keeps bars consistent with the trades (a rebuild changes nothing)', () => {
    const bars = allBarRows(service.runtime);
    service.runtime.trades.rebuildBars();
    expect(allBarRows(service.runtime)).toEqual(bars);
  });

  it('keeps reserves in memory equal to the stored ones', () => {
    expect(memoryReserves(service.runtime)).toEqual(storedReserves(service.runtime));
  });

  it('serves the caught-up hours from /history', async () => {
    const { aggregate } = busiestPools(service.runtime);
    const body = historyResponseSchema.parse(
      await service.getJson(historyPath({ symbol: aggregate.poolId, resolution: '60min', from: T0, to: T0 + 6 * HOUR + 1 })),
    );
    expect(body.t.length).toBeGreaterThanOrEqual(5);
    expect(body.t.every((t) => t >= T0 && t < T0 + 6 * HOUR)).toBe(true);
  });

  it('produces nothing on a restart with no time passed', () => {
    const count = storedTrades(service.runtime).length;
    service = service.restart();
    expect(service.runtime.startupTrades).toBe(0);
    expect(storedTrades(service.runtime).length).toBe(count);
  });

  it('keeps the stored market when a restart asks for another seed or size, and says so', () => {
    const lines: string[] = [];
    const pools = service.runtime.market.pools.size;
    service = service.restart({ seed: 99, pools: 500, log: (line) => lines.push(line) });
    expect(service.runtime.market.pools.size).toBe(pools);
    expect(lines.some((line) => line.includes('seed 7') && line.includes('300 pools'))).toBe(true);
  });
});

describe('the data directory lock', () => {
  it('refuses a second runtime on a data directory this process already has open, and frees it on close', () => {
    const first = createTestService({ days: 0.05 });
    try {
      expect(() => createTestService({ days: 0.05, dataDir: first.dataDir })).toThrow(/is in use by process/);
      // The refused attempt did not release the lock of the open runtime.
      expect(() => createTestService({ days: 0.05, dataDir: first.dataDir })).toThrow(/is in use by process/);
      const reopened = first.restart();
      expect(reopened.runtime.market.pools.size).toBeGreaterThan(0);
      reopened.close();
    } finally {
      first.close();
    }
  });
});

describe('determinism', () => {
  it('gives the same trades, bars and reserves whether the service ran straight to T or restarted halfway', () => {
    // Both histories start at T0 - 1 day; one runs to T0 + 6 h at once, the other stops at T0.
    const straight = createTestService({ startMs: (T0 + 6 * HOUR) * 1000, days: 1.25 });
    const first = createTestService({ days: 1 });
    first.clock.advanceSeconds(6 * HOUR);
    const interrupted = first.restart();
    try {
      expect(storedTrades(interrupted.runtime)).toEqual(storedTrades(straight.runtime));
      expect(allBarRows(interrupted.runtime)).toEqual(allBarRows(straight.runtime));
      expect(storedReserves(interrupted.runtime)).toEqual(storedReserves(straight.runtime));
      expect(interrupted.runtime.simulator.blockHeight).toBe(straight.runtime.simulator.blockHeight);
      expect(interrupted.runtime.simulator.nextBlockAt).toBe(straight.runtime.simulator.nextBlockAt);
    } finally {
      straight.close();
      interrupted.close();
    }
  });

  it('gives the same market for the same seed, and another for another seed', () => {
    const a = createTestService({ days: 0.2 });
    const b = createTestService({ days: 0.2 });
    const c = createTestService({ days: 0.2, seed: 8 });
    try {
      expect(storedTrades(a.runtime)).toEqual(storedTrades(b.runtime));
      expect([...a.runtime.market.pools.keys()]).toEqual([...b.runtime.market.pools.keys()]);
      expect([...c.runtime.market.pools.keys()]).not.toEqual([...a.runtime.market.pools.keys()]);
    } finally {
      a.close();
      b.close();
      c.close();
    }
  });
});
