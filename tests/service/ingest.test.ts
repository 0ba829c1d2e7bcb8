import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { allBarRows, busiestPools, lastSeq, memoryReserves, storedReserves, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';

let service: TestService;
let pool: Pool;

beforeAll(() => {
  service = createTestService({ days: 1 });
  pool = busiestPools(service.runtime).dexPool;
});
afterAll(() => service.close());

/** Everything an ingest may change: trades, bars, and reserves on disk and in memory. */
function snapshot() {
  const { runtime } = service;
  return {
    trades: storedTrades(runtime),
    bars: allBarRows(runtime),
    stored: storedReserves(runtime),
    memory: memoryReserves(runtime),
    simHeight: runtime.simulator.blockHeight,
  };
}

/** A swap on `target` that moves its price by `factor` at constant product (raw units). */
function swapOn(target: Pool, factor: number, time: number, eventId: string) {
  const k = target.baseReserve * target.quoteReserve;
  const base = target.baseReserve * Math.sqrt(factor);
  return service.runtime.ingestor.swap(target, base, k / base, time, Math.abs(base - target.baseReserve) / 1e6, eventId);
}

/** Installs a trigger that makes the next write of a bar fail inside the commit's transaction. */
function failNextBarWrite(): () => void {
  const { db } = service.runtime;
  db.exec(`CREATE TEMP TRIGGER fail_bar_insert BEFORE INSERT ON bars BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
           CREATE TEMP TRIGGER fail_bar_update BEFORE UPDATE ON bars BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`);
  return () => db.exec('DROP TRIGGER fail_bar_insert; DROP TRIGGER fail_bar_update;');
}

describe('ingest', () => {
  it('stores a trade once: ingesting the same event id again (later or in the same batch) changes nothing', () => {
    const time = service.clock.seconds();
    const { ingestor } = service.runtime;
    swapOn(pool, 1.01, time, 'test:idem:1');
    ingestor.commit();
    const once = snapshot();
    expect(once.trades.at(-1)?.eventId).toBe('test:idem:1');

    expect(ingestor.has('test:idem:1')).toBe(true);
    swapOn(pool, 1.01, time, 'test:idem:1');
    expect(() => ingestor.commit()).not.toThrow();
    expect(snapshot()).toEqual(once);

    swapOn(pool, 1.02, time, 'test:idem:2');
    swapOn(pool, 1.02, time, 'test:idem:2');
    swapOn(pool, 1.01, time, 'test:idem:1');
    ingestor.commit();
    const after = snapshot();
    expect(after.trades.map((t) => t.eventId).filter((id) => id.startsWith('test:idem:'))).toEqual(['test:idem:1', 'test:idem:2']);
    expect(after.trades.length).toBe(once.trades.length + 1);
  });

  it('keeps bars equal to a rebuild from the stored trades, to the bit', () => {
    const { runtime } = service;
    // Live-style trading on top of the backfill: one commit per block, bars merged across commits.
    service.clock.advanceSeconds(3 * 3600);
    runtime.simulator.runUntil(service.clock.seconds(), undefined, 1);
    const incremental = allBarRows(runtime);
    const trades = runtime.trades.rebuildBars();
    expect(trades).toBe(storedTrades(runtime).length);
    expect(allBarRows(runtime)).toEqual(incremental);
  });
});

describe('crash consistency', () => {
  it('leaves trades, bars and reserves as they were when a commit throws in its transaction', () => {
    const { ingestor } = service.runtime;
    const before = snapshot();
    const time = service.clock.seconds();
    swapOn(pool, 1.05, time, 'test:crash:1');
    swapOn(ensureDefined(pool.pair.pools.find((p) => p !== pool) ?? pool), 0.97, time, 'test:crash:2');
    expect(() =>
      ingestor.commit(() => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(snapshot()).toEqual(before);
    expect(ingestor.pendingCount).toBe(0);
    expect(ingestor.has('test:crash:1')).toBe(false);
  });

  it('rolls back trades already written when a bar write fails mid-transaction, and commits cleanly afterwards', () => {
    const { runtime } = service;
    const { ingestor } = runtime;
    const before = snapshot();
    const time = service.clock.seconds();
    const restore = failNextBarWrite();
    try {
      swapOn(pool, 1.03, time, 'test:crash:3');
      expect(() => ingestor.commit()).toThrow('injected failure');
    } finally {
      restore();
    }
    expect(snapshot()).toEqual(before);
    swapOn(pool, 1.03, time, 'test:crash:3');
    ingestor.commit();
    expect(lastSeq(runtime)).toBeGreaterThan(before.trades.at(-1)?.seq ?? 0);
    const bars = allBarRows(runtime);
    runtime.trades.rebuildBars();
    expect(allBarRows(runtime)).toEqual(bars);
  });

  it('lets the simulator go on after a failed commit exactly as if it had not failed', () => {
    const twin = createTestService({ days: 1 });
    const other = createTestService({ days: 1 });
    try {
      const until = twin.clock.seconds() + 600;
      twin.runtime.simulator.runUntil(until, undefined, 1);

      const { db, simulator } = other.runtime;
      db.exec(`CREATE TEMP TRIGGER fail_once BEFORE INSERT ON trades BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`);
      expect(() => simulator.forceBlock(other.clock.seconds() + 1)).toThrow('injected failure');
      db.exec('DROP TRIGGER fail_once');
      simulator.runUntil(until, undefined, 1);

      const strip = (list: ReturnType<typeof storedTrades>) => list.map(({ seq: _seq, ...trade }) => trade);
      expect(strip(storedTrades(other.runtime))).toEqual(strip(storedTrades(twin.runtime)));
      expect(memoryReserves(other.runtime)).toEqual(memoryReserves(twin.runtime));
    } finally {
      twin.close();
      other.close();
    }
  });
});
