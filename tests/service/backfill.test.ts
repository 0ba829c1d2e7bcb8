import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/service/store/database';
import { RESOLUTION_SECONDS, RESOLUTIONS } from '../../src/shared/resolutions';
import { aggregateStep, allBarRows, memoryReserves, poolStep, referenceBars, storedTrades, type BarTableRow } from '../support/market';
import { createTestService, type TestService } from '../support/service';

/** The backfill writes trades alone and builds every bar in one pass at its end (docs/architecture.md). */

/** Every bar the bar rule makes of the stored trades, as rows of the bars table in key order. */
function expectedBarRows(service: TestService): BarTableRow[] {
  const trades = storedTrades(service.runtime);
  const rows: BarTableRow[] = [];
  for (const series of [...service.runtime.market.poolsById.keys()].sort((a, b) => a - b)) {
    const own = trades.filter((t) => t.pool === series).map(poolStep);
    const steps = own.length > 0 ? own : trades.filter((t) => t.agg === series).map(aggregateStep);
    for (const resolution of RESOLUTIONS) {
      for (const bar of referenceBars(steps, resolution)) {
        rows.push({ series, res: RESOLUTION_SECONDS[resolution], t: bar.t, o: bar.o, h: bar.h, l: bar.l, c: bar.c, v: bar.v, tvl: bar.tvl ?? Number.NaN });
      }
    }
  }
  return rows;
}

describe('backfill', () => {
  let service: TestService;
  beforeAll(() => {
    service = createTestService({ days: 3 });
  });
  afterAll(() => service.close());

  it('stores exactly the bars the bar rule makes of the stored trades, at every resolution', () => {
    expect(storedTrades(service.runtime).length).toBeGreaterThan(10_000);
    expect(allBarRows(service.runtime)).toEqual(expectedBarRows(service));
  });

  it('leaves the bars current (no stale mark) once it is done', () => {
    expect(service.runtime.trades.barsStale).toBe(false);
  });
});

describe('a crash in the middle of the backfill', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves trades marked as lacking bars, and the next start rebuilds them and goes on as if nothing happened', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'backfill-crash-'));
    dirs.push(dataDir);
    // A store that fails the backfill's second commit (the simulator saves its height with every commit).
    const db = openDatabase({ dataDir });
    db.exec(`CREATE TRIGGER crash AFTER UPDATE ON sim_state WHEN NEW.height > 4320 BEGIN SELECT RAISE(ABORT, 'power cut'); END;`);
    db.close();
    expect(() => createTestService({ days: 3, dataDir })).toThrow('power cut');

    const after = openDatabase({ dataDir });
    const trades = (after.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n;
    const bars = (after.prepare('SELECT count(*) AS n FROM bars').get() as { n: number }).n;
    const stale = after.prepare(`SELECT value FROM meta WHERE key = 'bars_stale'`).get();
    after.exec('DROP TRIGGER crash');
    after.close();
    expect(trades).toBeGreaterThan(0);
    expect(bars).toBe(0);
    expect(stale).toBeDefined();

    const recovered = createTestService({ days: 3, dataDir });
    const straight = createTestService({ days: 3 });
    try {
      expect(recovered.runtime.trades.barsStale).toBe(false);
      const strip = (list: ReturnType<typeof storedTrades>) => list.map(({ seq: _seq, ...trade }) => trade);
      expect(strip(storedTrades(recovered.runtime))).toEqual(strip(storedTrades(straight.runtime)));
      expect(allBarRows(recovered.runtime)).toEqual(allBarRows(straight.runtime));
      expect(allBarRows(recovered.runtime)).toEqual(expectedBarRows(recovered));
      expect(memoryReserves(recovered.runtime)).toEqual(memoryReserves(straight.runtime));
    } finally {
      recovered.close();
      straight.close();
    }
  });
});
