import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importTrades } from '../../../src/service/importers/trades';
import { openMarket } from '../../../src/service/open-market';
import { createTestService } from '../../support/service';
import { runtimeInternals } from '../../../src/service/runtime-internals';

/** `--source none`: a data directory of imported trades is served as it is, with no simulated market beside it. */
const dir = mkdtempSync(join(tmpdir(), 'source-none-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UNIT = `${'ab'.repeat(28)}534e454b`;
const POOL = 'cd'.repeat(32);
const T = 1_718_000_040;
const TRADE_1 = {
  id: 'tx1#0',
  block_time: T,
  pool_id: POOL,
  previous_price: 0.0037,
  current_price: 0.00371,
  previous_tvl: 2_000_000,
  current_tvl: 2_000_400,
  volume: 200,
};

/** A file of import:trades lines: the token and its pool, then `trades`. */
function tradesFile(name: string, trades: readonly object[]): string {
  const file = join(dir, name);
  const head = [
    { kind: 'token', unit: UNIT, ticker: 'SNEK', decimals: 0 },
    { kind: 'pool', pool_id: POOL, group: 'MinswapV2', base: '', quote: UNIT },
  ];
  writeFileSync(file, [...head, ...trades].map((line) => JSON.stringify(line)).join('\n'));
  return file;
}

describe('--source none', () => {
  it('serves the imported trades alone, says so, and keeps the source: a later start asking for the simulator is refused', async () => {
    const file = tradesFile('trades.jsonl', [
      TRADE_1,
      {
        id: 'tx2#0',
        block_time: T + 60,
        pool_id: POOL,
        previous_price: 0.00371,
        current_price: 0.0038,
        previous_tvl: 2_000_400,
        current_tvl: 2_001_000,
        volume: 300,
      },
    ]);
    const handle = await openMarket(dir, 'import');
    expect((await importTrades(handle, file)).trades).toBe(2);
    await handle.close();

    const service = await createTestService({ dataDir: dir, env: { SOURCE: 'none' } });
    try {
      // One DEX pool and its Aggregate: nothing generated beside them.
      expect(service.runtime.market.pools.size).toBe(2);
      expect(await runtimeInternals(service.runtime).store.trades.count()).toBe(2);
      const health = (await (await service.request('/healthz', { key: null })).json()) as {
        source: string;
        blockHeight?: number;
      };
      expect(health.source).toBe('none');
      expect(health.blockHeight).toBeUndefined();
      const history = (await service.getJson(
        `/api/v1/history?symbol=${POOL}&resolution=1min&from=${T - 60}&to=${T + 120}`,
      )) as { c: number[] };
      expect(history.c).toHaveLength(2);
      expect(history.c[0]).toBeCloseTo(0.00371, 12);
      expect(history.c[1]).toBeCloseTo(0.0038, 12);
      service.runtime.startLive();
      expect(await runtimeInternals(service.runtime).store.trades.count()).toBe(2);
    } finally {
      await service.close();
    }
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(/fed by the none source.*--source none/);
  });

  it('refuses to follow the chain in a directory of imported trades (no source stored yet), changing nothing', async () => {
    const imported = join(dir, 'imported-only');
    const file = tradesFile('one-pool.jsonl', [TRADE_1]);
    const handle = await openMarket(imported, 'import');
    expect((await importTrades(handle, file)).trades).toBe(1);
    await handle.close();

    await expect(
      createTestService({ dataDir: imported, env: { SOURCE: 'chain', OGMIOS_URL: 'ws://127.0.0.1:9' } }),
    ).rejects.toThrow(
      /holds 2 imported pool\(s\) and their trades, and this start asked for --source chain: serve it with --source none/,
    );
    // Nothing was changed: served with --source none afterwards, the trade is there alone.
    const service = await createTestService({ dataDir: imported, env: { SOURCE: 'none' } });
    try {
      expect(await runtimeInternals(service.runtime).store.trades.count()).toBe(1);
      expect(service.runtime.market.pools.size).toBe(2);
    } finally {
      await service.close();
    }
  });
});
