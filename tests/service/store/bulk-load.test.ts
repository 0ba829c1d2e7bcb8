import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Random } from '../../../src/service/market/random';
import type { BulkLoad, CommitBatch, TradeRecord } from '../../../src/service/store/ports';
import { openSqliteStore, type SqliteStore } from '../../../src/service/store/sqlite/store';
import { ensureDefined } from '../../support/ensure';
import { installFault, removeFault, storeIndexes } from '../../support/sqlite-faults';

/**
 * SQLite's bulk load (the first backfill's writes: Store.bulkLoad), on its own thread for a store in
 * a data directory and at once for an in-memory one: the trades of every batch, and at the end
 * exactly the bars a rebuild makes of them.
 */

const T = 1_700_000_040;

/** Two pairs: Aggregates 1 and 4, DEX pools 2 and 3 (pair 1) and 5 (pair 2). */
function structure(): CommitBatch {
  const pool = (id: number, poolId: string, group: string, pairId: number) => ({
    id,
    poolId,
    group,
    pairId,
    n: 1,
    feeBps: 30,
    baseReserve: 1000,
    quoteReserve: 1000,
    simulated: true,
  });
  return {
    tokens: [
      { id: 1, unit: '', ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: 1 },
      { id: 2, unit: 'ab'.repeat(28) + '544b4e', ticker: 'TKN', name: 'Token', decimals: 0, logoKind: 0 },
      { id: 3, unit: 'cd'.repeat(28) + '584b4e', ticker: 'XKN', name: 'Xoken', decimals: 2, logoKind: 0 },
    ],
    pairs: [
      { id: 1, base: 1, quote: 2 },
      { id: 2, base: 1, quote: 3 },
    ],
    pools: [
      pool(1, 'agg01', 'Aggregate', 1),
      pool(2, 'pool02', 'Minswap', 1),
      pool(3, 'pool03', 'MinswapV2', 1),
      pool(4, 'agg04', 'Aggregate', 2),
      pool(5, 'pool05', 'Splash', 2),
    ],
  };
}

/** `count` trades over pools 2, 3 and 5 from `T` on (times never go back unless `backwards`), seeded. */
function trades(
  seed: number,
  count: number,
  options: { readonly backwards?: boolean; readonly firstId?: number } = {},
): TradeRecord[] {
  const random = new Random(seed, 0x62756c6b);
  let time = T;
  return Array.from({ length: count }, (_, i) => {
    time += random.chance(0.3) ? 0 : random.int(400);
    const pool = [2, 3, 5][random.int(3)] as number;
    const at = options.backwards && i === count - 1 ? T : time;
    return {
      eventId: `e${(options.firstId ?? 0) + i}`,
      pool,
      agg: pool === 5 ? 4 : 1,
      blockTime: at,
      prevPrice: random.float() * 10,
      price: random.float() * 10,
      prevTvl: random.float() * 1e6,
      tvl: random.float() * 1e6,
      volume: random.int(1e9),
      aggPrevPrice: random.float() * 10,
      aggPrice: random.float() * 10,
      aggPrevTvl: random.float() * 1e6,
      aggTvl: random.float() * 1e6,
    };
  });
}

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store holding the structure, in a data directory (the load's thread) or in memory. */
async function open(where: 'file' | 'memory'): Promise<{ store: SqliteStore; dir: string }> {
  const dir = where === 'file' ? mkdtempSync(join(tmpdir(), 'bulk-load-')) : ':memory:';
  if (where === 'file') dirs.push(dir);
  const store = openSqliteStore(dir);
  stores.push(store);
  await store.commit(structure());
  return { store, dir };
}

/** A bulk load committing its bars 640 at a time (several commits at its end, as the default market's). */
async function startLoad(store: SqliteStore): Promise<BulkLoad> {
  return ensureDefined(await store.bulkLoad({ barsPerCommit: 640 }), 'a bulk load of a store without trades');
}

/** Loads `list` in batches of `size` (with reserves and the simulator's state, as a backfill's commits). */
async function load(bulk: BulkLoad, list: readonly TradeRecord[], size: number): Promise<void> {
  for (let i = 0; i < list.length; i += size) {
    const fair = Buffer.alloc(16, i % 251);
    await bulk.commit({
      trades: list.slice(i, i + size),
      barsStale: true,
      reserves: [{ id: 2, base: 1000 + i, quote: 900 }],
      simState: { height: i, nextBlockTime: T + i, fair },
    });
  }
}

describe('the SQLite bulk load', () => {
  for (const where of ['file', 'memory'] as const) {
    it(`writes every batch's trades and then exactly the bars a rebuild makes of them (${where === 'file' ? 'on its thread' : 'in memory, at once'})`, async () => {
      const { store } = await open(where);
      const list = trades(1, 5_000);
      const bulk = await startLoad(store);
      expect(await store.bars.stale()).toBe(true);
      await load(bulk, list, 700);
      const reports: number[] = [];
      expect(await bulk.finish((done, total) => reports.push(total === list.length ? done : Number.NaN))).toBe(
        list.length,
      );
      await bulk.close();
      // Its bars in several commits, each reported with the trades whose bars are written.
      expect(reports.length).toBeGreaterThan(4);
      expect(reports).toEqual([...reports].sort((a, b) => a - b));
      expect(reports.at(-1)).toBe(list.length);

      expect(await store.bars.stale()).toBe(false);
      expect((await store.trades.list()).map(({ seq: _seq, ...trade }) => trade)).toEqual(list);
      expect((await store.market.load()).pools.find((p) => p.id === 2)).toMatchObject({
        baseReserve: 1000 + 4900,
        quoteReserve: 900,
      });
      expect(await store.sim.load()).toMatchObject({ height: 4900, nextBlockTime: T + 4900 });
      const bars = await store.bars.all();
      expect(bars.length).toBeGreaterThan(1_000);
      await store.bars.rebuild();
      expect(await store.bars.all()).toEqual(bars);
    });
  }

  it("makes the trades' indexes again at its end, and an open makes those a load cut short left missing", async () => {
    const { store, dir } = await open('file');
    expect(storeIndexes(dir)).toEqual(expect.arrayContaining(['trades_pool_time', 'trades_agg_time']));
    const bulk = await startLoad(store);
    await load(bulk, trades(2, 300), 100);
    expect(storeIndexes(dir)).not.toContain('trades_pool_time');
    await bulk.finish();
    await bulk.close();
    expect(storeIndexes(dir)).toEqual(expect.arrayContaining(['trades_pool_time', 'trades_agg_time']));

    const { store: cut, dir: cutDir } = await open('file');
    const abandoned = await startLoad(cut);
    await load(abandoned, trades(3, 300), 100);
    await abandoned.close();
    await cut.close();
    expect(storeIndexes(cutDir)).not.toContain('trades_agg_time');
    const reopened = openSqliteStore(cutDir);
    stores.push(reopened);
    expect(storeIndexes(cutDir)).toEqual(expect.arrayContaining(['trades_pool_time', 'trades_agg_time']));
    expect(await reopened.bars.stale()).toBe(true);
  });

  it('cut short after some of its bars were committed, leaves the stale mark, and a rebuild makes every bar', async () => {
    const { store, dir } = await open('file');
    const list = trades(9, 3_000);
    // The engine refuses the bars past the 2,000th: the load's third commit of bars fails.
    installFault(
      dir,
      'full',
      `BEFORE INSERT ON bars WHEN (SELECT count(*) FROM bars) >= 2000 BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    const bulk = await startLoad(store);
    await load(bulk, list, 1_000);
    await expect(bulk.finish()).rejects.toThrow('disk full');
    await bulk.close();
    expect((await store.bars.all()).length).toBe(1_920);
    expect(await store.bars.stale()).toBe(true);
    removeFault(dir, 'full');
    await store.bars.rebuild();
    expect((await store.bars.all()).length).toBeGreaterThan(2_000);
    expect(await store.bars.stale()).toBe(false);
  });

  it("rebuilds every bar from the stored trades when a series' trades came out of time order", async () => {
    const { store } = await open('file');
    const list = trades(4, 2_000, { backwards: true });
    const bulk = await startLoad(store);
    await load(bulk, list, 500);
    await bulk.finish();
    await bulk.close();
    const bars = await store.bars.all();
    await store.bars.rebuild();
    expect(await store.bars.all()).toEqual(bars);
    expect(await store.bars.stale()).toBe(false);
  });

  it('refuses a trade on a pool the store does not hold, writes nothing more, and leaves the bars stale', async () => {
    const { store } = await open('file');
    const bulk = await startLoad(store);
    await load(bulk, trades(5, 200), 100);
    const stray = { ...ensureDefined(trades(6, 1, { firstId: 900 })[0]), pool: 99 };
    // The thread reports the failure to the commit after it, or to finish.
    const outcome = (async () => {
      await bulk.commit({ trades: [stray], barsStale: true });
      await load(bulk, trades(7, 200, { firstId: 1_000 }), 100);
      await bulk.finish();
    })();
    await expect(outcome).rejects.toThrow(/pool row 99, which the store does not hold/);
    await bulk.close();
    expect(await store.trades.count()).toBe(200);
    expect(await store.bars.stale()).toBe(true);
  });

  for (const where of ['file', 'memory'] as const) {
    it(`refuses a batch that would create rows, roll back or carry bars, and goes on as if it had not come (${where})`, async () => {
      const { store } = await open(where);
      const bulk = await startLoad(store);
      await expect(bulk.commit({ pools: structure().pools })).rejects.toThrow(/not pools/);
      await expect(bulk.commit({ removeTradesAfter: T })).rejects.toThrow(/not removeTradesAfter/);
      // A refused batch's trades are neither written nor counted as waiting for the thread: more of
      // them than the thread may have queued would otherwise hold every later commit for good.
      const many = Array.from({ length: 100_001 }, (_, i) => ({
        ...ensureDefined(trades(10, 1)[0]),
        eventId: `x${i}`,
      }));
      await expect(bulk.commit({ trades: many, pools: structure().pools })).rejects.toThrow(/not pools/);
      const list = trades(11, 500);
      await load(bulk, list, 100);
      expect(await bulk.finish()).toBe(list.length);
      await bulk.close();
      expect((await store.trades.list()).map(({ seq: _seq, ...trade }) => trade)).toEqual(list);
      const bars = await store.bars.all();
      await store.bars.rebuild();
      expect(await store.bars.all()).toEqual(bars);
    });
  }

  it('is not offered on a store that holds trades already', async () => {
    const { store } = await open('file');
    await store.commit({ trades: trades(8, 1) });
    expect(await store.bulkLoad()).toBeUndefined();
  });
});
