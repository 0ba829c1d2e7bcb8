import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyResponseSchema } from '../../src/shared/api/history';
import { DEFAULT_START_MS } from '../support/clock';
import { historyPath } from '../support/builders';
import { allBarRows, busiestPools, memoryReserves, storedReserves, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

const HOUR = 3600;
const T0 = DEFAULT_START_MS / 1000;

describe('restart and catch-up', () => {
  let service: TestService;
  let before: Awaited<ReturnType<typeof storedTrades>>;
  let heightBefore: number;

  beforeAll(async () => {
    const first = await createTestService({ days: 1 });
    before = await storedTrades(first.runtime);
    heightBefore = first.runtime.simulator.blockHeight;
    first.clock.advanceSeconds(6 * HOUR);
    service = await first.restart();
  });
  afterAll(async () => service.close());

  it('produces the blocks missed while the service was down, up to now and no further', async () => {
    const { runtime } = service;
    expect(before.every((t) => t.blockTime <= T0)).toBe(true);
    expect(runtime.startupTrades).toBeGreaterThan(0);
    const after = await storedTrades(runtime);
    const missed = after.slice(before.length);
    expect(missed.length).toBe(runtime.startupTrades);
    expect(missed.every((t) => t.blockTime > T0 && t.blockTime <= T0 + 6 * HOUR)).toBe(true);
    // About one block every 20 s.
    const blocks = runtime.simulator.blockHeight - heightBefore;
    expect(blocks).toBeGreaterThan((6 * HOUR) / 20 / 1.5);
    expect(blocks).toBeLessThan(((6 * HOUR) / 20) * 1.5);
    expect(runtime.simulator.nextBlockAt).toBeGreaterThan(T0 + 6 * HOUR);
    // Every hour of the outage has trades.
    const hours = new Set(missed.map((t) => Math.floor((t.blockTime - T0 - 1) / HOUR)));
    expect(hours).toEqual(new Set([0, 1, 2, 3, 4, 5]));
  });

  it('keeps the trades from before the restart unchanged and stores none twice', async () => {
    const after = await storedTrades(service.runtime);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(new Set(after.map((t) => t.eventId)).size).toBe(after.length);
  });

  it('keeps bars consistent with the trades (a rebuild changes nothing)', async () => {
    const bars = await allBarRows(service.runtime);
    await runtimeInternals(service.runtime).store.bars.rebuild();
    expect(await allBarRows(service.runtime)).toEqual(bars);
  });

  it('keeps reserves in memory equal to the stored ones', async () => {
    expect(memoryReserves(service.runtime)).toEqual(await storedReserves(service.runtime));
  });

  it('serves the caught-up hours from /history', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const body = historyResponseSchema.parse(
      await service.getJson(
        historyPath({ symbol: aggregate.poolId, resolution: '60min', from: T0, to: T0 + 6 * HOUR + 1 }),
      ),
    );
    expect(body.t.length).toBeGreaterThanOrEqual(5);
    expect(body.t.every((t) => t >= T0 && t < T0 + 6 * HOUR)).toBe(true);
  });

  it('produces nothing on a restart with no time passed', async () => {
    const count = (await storedTrades(service.runtime)).length;
    service = await service.restart();
    expect(service.runtime.startupTrades).toBe(0);
    expect((await storedTrades(service.runtime)).length).toBe(count);
  });

  it('keeps the stored market when a restart asks for another seed or size, and says so', async () => {
    const lines: string[] = [];
    const pools = service.runtime.market.pools.size;
    service = await service.restart({ seed: 99, pools: 500, log: (line) => lines.push(line) });
    expect(service.runtime.market.pools.size).toBe(pools);
    expect(lines.some((line) => line.includes('seed 7') && line.includes('300 pools'))).toBe(true);
  });
});

describe('the data directory lock', () => {
  it('refuses a second runtime on a data directory this process already has open, and frees it on close', async () => {
    const first = await createTestService({ days: 0.05 });
    try {
      await expect(createTestService({ days: 0.05, dataDir: first.dataDir })).rejects.toThrow(/is in use by process/);
      // The refused attempt did not release the lock of the open runtime.
      await expect(createTestService({ days: 0.05, dataDir: first.dataDir })).rejects.toThrow(/is in use by process/);
      const reopened = await first.restart();
      expect(reopened.runtime.market.pools.size).toBeGreaterThan(0);
      await reopened.close();
    } finally {
      await first.close();
    }
  });
});

describe('determinism', () => {
  it('gives the same trades, bars and reserves whether the service ran straight to T or restarted halfway', async () => {
    // Both histories start at T0 - 1 day; one runs to T0 + 6 h at once, the other stops at T0.
    const straight = await createTestService({ startMs: (T0 + 6 * HOUR) * 1000, days: 1.25 });
    const first = await createTestService({ days: 1 });
    first.clock.advanceSeconds(6 * HOUR);
    const interrupted = await first.restart();
    try {
      expect(await storedTrades(interrupted.runtime)).toEqual(await storedTrades(straight.runtime));
      expect(await allBarRows(interrupted.runtime)).toEqual(await allBarRows(straight.runtime));
      expect(await storedReserves(interrupted.runtime)).toEqual(await storedReserves(straight.runtime));
      expect(interrupted.runtime.simulator.blockHeight).toBe(straight.runtime.simulator.blockHeight);
      expect(interrupted.runtime.simulator.nextBlockAt).toBe(straight.runtime.simulator.nextBlockAt);
    } finally {
      await straight.close();
      await interrupted.close();
    }
  });

  it('gives the same market for the same seed, and another for another seed', async () => {
    const a = await createTestService({ days: 0.2 });
    const b = await createTestService({ days: 0.2 });
    const c = await createTestService({ days: 0.2, seed: 8 });
    try {
      expect(await storedTrades(a.runtime)).toEqual(await storedTrades(b.runtime));
      expect([...a.runtime.market.pools.keys()]).toEqual([...b.runtime.market.pools.keys()]);
      expect([...c.runtime.market.pools.keys()]).not.toEqual([...a.runtime.market.pools.keys()]);
    } finally {
      await a.close();
      await b.close();
      await c.close();
    }
  });
});
