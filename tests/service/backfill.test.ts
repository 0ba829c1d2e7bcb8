import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/service/store/open';
import { RESOLUTION_SECONDS, RESOLUTIONS } from '../../src/shared/resolutions';
import {
  aggregateStep,
  allBarRows,
  memoryReserves,
  poolStep,
  referenceBars,
  storedTrades,
  type BarTableRow,
} from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { installFault, removeFault } from '../support/sqlite-faults';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** The backfill writes trades alone and builds every bar in one pass at its end (docs/architecture.md). */

/** Every bar the bar rule makes of the stored trades, as rows of the bars table in key order. */
async function expectedBarRows(service: TestService): Promise<BarTableRow[]> {
  const trades = await storedTrades(service.runtime);
  const rows: BarTableRow[] = [];
  for (const series of [...service.runtime.market.poolsById.keys()].sort((a, b) => a - b)) {
    const own = trades.filter((t) => t.pool === series).map(poolStep);
    const steps = own.length > 0 ? own : trades.filter((t) => t.agg === series).map(aggregateStep);
    for (const resolution of RESOLUTIONS) {
      for (const bar of referenceBars(steps, resolution)) {
        rows.push({
          series,
          res: RESOLUTION_SECONDS[resolution],
          t: bar.t,
          o: bar.o,
          h: bar.h,
          l: bar.l,
          c: bar.c,
          v: bar.v,
          tvl: bar.tvl ?? Number.NaN,
        });
      }
    }
  }
  return rows;
}

describe('backfill', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService({ days: 3 });
  });
  afterAll(async () => service.close());

  it('stores exactly the bars the bar rule makes of the stored trades, at every resolution', async () => {
    expect((await storedTrades(service.runtime)).length).toBeGreaterThan(10_000);
    expect(await allBarRows(service.runtime)).toEqual(await expectedBarRows(service));
  });

  it('leaves the bars current (no stale mark) once it is done', async () => {
    expect(await runtimeInternals(service.runtime).store.bars.stale()).toBe(false);
  });
});

describe('a crash in the middle of the backfill', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves trades marked as lacking bars, and the next start rebuilds them and goes on as if nothing happened', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'backfill-crash-'));
    dirs.push(dataDir);
    // A store that fails the backfill's second commit (the simulator saves its height with every commit).
    installFault(
      dataDir,
      'crash',
      `AFTER UPDATE ON sim_state WHEN NEW.height > 4320 BEGIN SELECT RAISE(ABORT, 'power cut'); END`,
    );
    await expect(createTestService({ days: 3, dataDir })).rejects.toThrow('power cut');

    const after = openStore(dataDir);
    const trades = await after.trades.count();
    const bars = (await after.bars.all()).length;
    const stale = await after.bars.stale();
    await after.close();
    removeFault(dataDir, 'crash');
    expect(trades).toBeGreaterThan(0);
    expect(bars).toBe(0);
    expect(stale).toBe(true);

    const recovered = await createTestService({ days: 3, dataDir });
    const straight = await createTestService({ days: 3 });
    try {
      expect(await runtimeInternals(recovered.runtime).store.bars.stale()).toBe(false);
      const strip = (list: Awaited<ReturnType<typeof storedTrades>>) => list.map(({ seq: _seq, ...trade }) => trade);
      expect(strip(await storedTrades(recovered.runtime))).toEqual(strip(await storedTrades(straight.runtime)));
      expect(await allBarRows(recovered.runtime)).toEqual(await allBarRows(straight.runtime));
      expect(await allBarRows(recovered.runtime)).toEqual(await expectedBarRows(recovered));
      expect(memoryReserves(recovered.runtime)).toEqual(memoryReserves(straight.runtime));
    } finally {
      await recovered.close();
      await straight.close();
    }
  });
});
