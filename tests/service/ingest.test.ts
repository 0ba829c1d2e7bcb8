import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { allBarRows, busiestPools, lastSeq, memoryReserves, storedReserves, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { installFault, removeFault } from '../support/sqlite-faults';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let pool: Pool;

beforeAll(async () => {
  service = await createTestService({ days: 1 });
  pool = (await busiestPools(service.runtime)).dexPool;
});
afterAll(async () => service.close());

/** Everything an ingest may change: trades, bars, and reserves on disk and in memory. */
async function snapshot() {
  const { runtime } = service;
  return {
    trades: await storedTrades(runtime),
    bars: await allBarRows(runtime),
    stored: await storedReserves(runtime),
    memory: memoryReserves(runtime),
    simHeight: runtime.simulator.blockHeight,
  };
}

/** A swap on `target` that moves its price by `factor` at constant product (raw units). */
function swapOn(target: Pool, factor: number, time: number, eventId: string) {
  const k = target.baseReserve * target.quoteReserve;
  const base = target.baseReserve * Math.sqrt(factor);
  return runtimeInternals(service.runtime).ingestor.swapOnce(
    target,
    base,
    k / base,
    time,
    Math.abs(base - target.baseReserve) / 1e6,
    eventId,
  );
}

/** Makes every write of a bar fail inside the commit's transaction, until the returned function is called. */
function failBarWrites(): () => void {
  installFault(
    service.dataDir,
    'fail_bar_insert',
    `BEFORE INSERT ON bars BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  );
  installFault(
    service.dataDir,
    'fail_bar_update',
    `BEFORE UPDATE ON bars BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
  );
  return () => {
    removeFault(service.dataDir, 'fail_bar_insert');
    removeFault(service.dataDir, 'fail_bar_update');
  };
}

describe('ingest', () => {
  it('stores a trade once: ingesting the same event id again (later or in the same batch) changes nothing', async () => {
    const time = service.clock.seconds();
    const { ingestor } = runtimeInternals(service.runtime);
    await swapOn(pool, 1.01, time, 'test:idem:1');
    await ingestor.commit();
    const once = await snapshot();
    expect(once.trades.at(-1)?.eventId).toBe('test:idem:1');

    expect(await ingestor.has('test:idem:1')).toBe(true);
    expect(await swapOn(pool, 1.01, time, 'test:idem:1')).toBeUndefined();
    await ingestor.commit();
    expect(await snapshot()).toEqual(once);

    await swapOn(pool, 1.02, time, 'test:idem:2');
    expect(await swapOn(pool, 1.02, time, 'test:idem:2')).toBeUndefined();
    await swapOn(pool, 1.01, time, 'test:idem:1');
    await ingestor.commit();
    const after = await snapshot();
    expect(after.trades.map((t) => t.eventId).filter((id) => id.startsWith('test:idem:'))).toEqual([
      'test:idem:1',
      'test:idem:2',
    ]);
    expect(after.trades.length).toBe(once.trades.length + 1);
  });

  it('knows the id of a pending trade whose source vouched it new (newId: not kept in the set of pending ids)', async () => {
    const time = service.clock.seconds();
    const { ingestor } = runtimeInternals(service.runtime);
    const k = pool.baseReserve * pool.quoteReserve;
    const base = pool.baseReserve * 1.001;
    expect(await ingestor.has('test:new:1')).toBe(false);
    ingestor.swap(pool, base, k / base, time, 1, 'test:new:1', { newId: true });
    expect(await ingestor.has('test:new:1')).toBe(true);
    expect(await ingestor.has('test:new:2')).toBe(false);
    await ingestor.commit();
    expect(await ingestor.has('test:new:1')).toBe(true);
    expect((await storedTrades(service.runtime)).at(-1)?.eventId).toBe('test:new:1');
  });

  it('keeps bars equal to a rebuild from the stored trades, to the bit', async () => {
    const { runtime } = service;
    // Live-style trading on top of the backfill: one commit per block, bars merged across commits.
    service.clock.advanceSeconds(3 * 3600);
    await runtime.simulator.runUntil(service.clock.seconds(), undefined, 1);
    const incremental = await allBarRows(runtime);
    const trades = await runtimeInternals(runtime).store.bars.rebuild();
    expect(trades).toBe((await storedTrades(runtime)).length);
    expect(await allBarRows(runtime)).toEqual(incremental);
  });
});

describe('crash consistency', () => {
  it('leaves trades, bars and reserves as they were when a commit throws in its transaction', async () => {
    const { ingestor } = runtimeInternals(service.runtime);
    const before = await snapshot();
    const time = service.clock.seconds();
    await swapOn(pool, 1.05, time, 'test:crash:1');
    await swapOn(ensureDefined(pool.pair.pools.find((p) => p !== pool) ?? pool), 0.97, time, 'test:crash:2');
    // The second trade's insert fails, after the first was written in the same transaction.
    installFault(
      service.dataDir,
      'disk_full',
      `BEFORE INSERT ON trades WHEN NEW.event_id = 'test:crash:2' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    try {
      await expect(ingestor.commit()).rejects.toThrow('disk full');
    } finally {
      removeFault(service.dataDir, 'disk_full');
    }
    expect(await snapshot()).toEqual(before);
    expect(ingestor.pendingCount).toBe(0);
    expect(await ingestor.has('test:crash:1')).toBe(false);
  });

  it('rolls back trades already written when a bar write fails mid-transaction, and commits cleanly afterwards', async () => {
    const { runtime } = service;
    const { ingestor } = runtimeInternals(runtime);
    const before = await snapshot();
    const time = service.clock.seconds();
    const restore = failBarWrites();
    try {
      await swapOn(pool, 1.03, time, 'test:crash:3');
      await expect(ingestor.commit()).rejects.toThrow('injected failure');
    } finally {
      restore();
    }
    expect(await snapshot()).toEqual(before);
    await swapOn(pool, 1.03, time, 'test:crash:3');
    await ingestor.commit();
    expect(await lastSeq(runtime)).toBeGreaterThan(before.trades.at(-1)?.seq ?? 0);
    const bars = await allBarRows(runtime);
    await runtimeInternals(runtime).store.bars.rebuild();
    expect(await allBarRows(runtime)).toEqual(bars);
  });

  it('lets the simulator go on after a failed commit exactly as if it had not failed', async () => {
    const twin = await createTestService({ days: 1 });
    const other = await createTestService({ days: 1 });
    try {
      const until = twin.clock.seconds() + 600;
      await twin.runtime.simulator.runUntil(until, undefined, 1);

      const { simulator } = other.runtime;
      installFault(
        other.dataDir,
        'fail_once',
        `BEFORE INSERT ON trades BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      );
      await expect(simulator.forceBlock(other.clock.seconds() + 1)).rejects.toThrow('injected failure');
      removeFault(other.dataDir, 'fail_once');
      await simulator.runUntil(until, undefined, 1);

      const strip = (list: Awaited<ReturnType<typeof storedTrades>>) => list.map(({ seq: _seq, ...trade }) => trade);
      expect(strip(await storedTrades(other.runtime))).toEqual(strip(await storedTrades(twin.runtime)));
      expect(memoryReserves(other.runtime)).toEqual(memoryReserves(twin.runtime));
    } finally {
      await twin.close();
      await other.close();
    }
  });
});
