import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importTrades, type ImportTradesOptions } from '../../../src/service/importers/trades';
import type { Pool } from '../../../src/service/market/model';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import { busiestPools } from '../../support/market';
import { createTestService } from '../../support/service';

/** Raw units (lovelace) per ADA: the store's unit for ADA amounts. */
const LOVELACE = 1_000_000;

const QUOTE = `${'9'.repeat(56)}${Buffer.from('QTK').toString('hex')}`;
const POOL_A = 'aa01';
const POOL_B = 'bb02';
/** A UTC day start: bars of every resolution start here. */
const DAY = Math.floor(1_718_000_000 / 86_400) * 86_400;

const tokenLine = { kind: 'token', unit: QUOTE, ticker: 'QTK', name: 'Quote Token', decimals: 6 };
const poolLine = (pool_id: string, group: string) => ({
  kind: 'pool',
  pool_id,
  group,
  base: '',
  quote: QUOTE,
  fee_bps: 30,
});

interface TradeInput {
  id: string;
  pool: string;
  t: number;
  prev: number;
  cur: number;
  prevTvl: number;
  curTvl: number;
  volume: number;
}

const trade = ({ id, pool, t, prev, cur, prevTvl, curTvl, volume }: TradeInput) => ({
  id,
  block_time: DAY + t,
  pool_id: pool,
  previous_price: prev,
  current_price: cur,
  previous_tvl: prevTvl,
  current_tvl: curTvl,
  volume,
});

/** Three trades on pool A (two in the first minute) and one on pool B of the same ADA/QTK pair. */
const GOOD_TRADES = [
  trade({ id: 'a1', pool: POOL_A, t: 10, prev: 1.0, cur: 1.1, prevTvl: 1000, curTvl: 1010, volume: 5 }),
  {
    kind: 'trade',
    ...trade({ id: 'a2', pool: POOL_A, t: 30, prev: 1.1, cur: 0.9, prevTvl: 1010, curTvl: 990, volume: 7 }),
  },
  trade({ id: 'a3', pool: POOL_A, t: 70, prev: 0.9, cur: 0.95, prevTvl: 990, curTvl: 1000, volume: 3 }),
  trade({ id: 'b1', pool: POOL_B, t: 80, prev: 2.0, cur: 2.2, prevTvl: 500, curTvl: 520, volume: 4 }),
];

const GOOD_FILE = [tokenLine, poolLine(POOL_A, 'MinswapV2'), poolLine(POOL_B, 'SundaeSwapV3'), ...GOOD_TRADES];

let root: string;
let dataDir: string;
let handle: MarketHandle;
let fileCount = 0;

function writeLines(lines: readonly (object | string)[]): string {
  const file = join(root, `input-${fileCount++}.jsonl`);
  writeFileSync(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return file;
}

function run(lines: readonly (object | string)[], options?: ImportTradesOptions) {
  return importTrades(handle, writeLines(lines), options);
}

function pool(poolId: string): Pool {
  const found = handle.market.pools.get(poolId);
  if (!found) throw new Error(`no pool ${poolId}`);
  return found;
}

async function allBars(series: number) {
  return {
    '1min': await handle.store.bars.range(series, '1min', 0, 2 ** 31),
    '60min': await handle.store.bars.range(series, '60min', 0, 2 ** 31),
    '1d': await handle.store.bars.range(series, '1d', 0, 2 ** 31),
  };
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'trades-import-'));
  dataDir = join(root, 'data');
  handle = await openMarket(dataDir, 'test');
});

afterEach(async () => {
  await handle.close();
  rmSync(root, { recursive: true, force: true });
});

describe('trades importer', () => {
  it('declares tokens and pools and stores trades with the bars of each pool and of its Aggregate', async () => {
    const report = await run(GOOD_FILE);
    expect(report).toMatchObject({
      lines: 7,
      tokens: 1,
      tokensAdded: 1,
      pools: 2,
      poolsAdded: 2,
      trades: 4,
      duplicates: 0,
      errorCount: 0,
    });

    const a = pool(POOL_A);
    const b = pool(POOL_B);
    expect(a.pair).toBe(b.pair);
    expect(a).toMatchObject({ group: 'MinswapV2', n: 1, feeBps: 30, simulated: false });
    expect(handle.market.tokens.get('')).toMatchObject({ ticker: 'ADA', decimals: 6 });
    expect(handle.market.tokens.get(QUOTE)).toMatchObject({ ticker: 'QTK', name: 'Quote Token', decimals: 6 });

    // Pool A: o = previous_price of the first event, c = current_price of the last; stored in raw units (both
    // tokens have 6 decimals: prices as in the file, TVL and volume in lovelace).
    const [first, second] = await handle.store.bars.range(a.id, '1min', DAY, DAY + 3600);
    const near = (value: number) => expect.closeTo(value, 12);
    expect(first).toEqual([
      DAY,
      near(1.0),
      near(1.1),
      near(0.9),
      near(0.9),
      12 * LOVELACE,
      expect.closeTo(990 * LOVELACE, 3),
    ]);
    expect(second?.[0]).toBe(DAY + 60);
    expect(second?.[1]).toBeCloseTo(0.9, 12);
    expect(second?.[4]).toBeCloseTo(0.95, 12);
    expect(second?.[5]).toBe(3 * LOVELACE);
    const [poolB] = await handle.store.bars.range(b.id, '1d', DAY, DAY + 86_400);
    expect(poolB).toEqual([
      DAY,
      near(2.0),
      near(2.2),
      near(2.0),
      near(2.2),
      4 * LOVELACE,
      expect.closeTo(520 * LOVELACE, 3),
    ]);

    // The Aggregate sums the reserves of A (base 500, quote 500/0.95) and B (base 260, quote 260/2.2).
    const aggregate = a.pair.aggregate;
    const [aggDay] = await handle.store.bars.range(aggregate.id, '1d', DAY, DAY + 86_400);
    const aggClose = (500 + 260) / (500 / 0.95 + 260 / 2.2);
    expect(aggDay?.[0]).toBe(DAY);
    expect(aggDay?.[1]).toBeCloseTo(1.0, 12);
    expect(aggDay?.[4]).toBeCloseTo(aggClose, 12);
    expect(aggDay?.[5]).toBe(19 * LOVELACE);
    expect(aggDay?.[6]).toBeCloseTo(1520 * LOVELACE, 3);
    expect(await handle.store.bars.range(aggregate.id, '1min', DAY, DAY + 3600)).toHaveLength(2);
    // Reserves follow the last state: TVL = 2 x base reserve, price = base / quote (decimal-adjusted).
    expect(a.baseReserve).toBeCloseTo(500e6, 3);
    expect(a.baseReserve / a.quoteReserve).toBeCloseTo(0.95, 12);
    expect(await handle.store.trades.lastTradeTime(a.id, false)).toBe(DAY + 70);
  });

  it('changes nothing when the same file is imported again', async () => {
    await run(GOOD_FILE);
    const a = pool(POOL_A);
    const before = [await allBars(a.id), await allBars(a.pair.aggregate.id), a.baseReserve, a.quoteReserve];

    const report = await run(GOOD_FILE);
    expect(report).toMatchObject({
      tokens: 1,
      tokensAdded: 0,
      pools: 2,
      poolsAdded: 0,
      trades: 0,
      duplicates: 4,
      errorCount: 0,
    });
    expect([await allBars(a.id), await allBars(a.pair.aggregate.id), a.baseReserve, a.quoteReserve]).toEqual(before);
    expect(await handle.store.trades.count()).toBe(4);
  });

  it('builds the same bars whatever the commit batch size', async () => {
    await run(GOOD_FILE, { batchSize: 1 });
    const a = pool(POOL_A);
    const batched = [await allBars(a.id), await allBars(a.pair.aggregate.id)];
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
    handle = await openMarket(dataDir, 'test');
    await run(GOOD_FILE);
    const b = pool(POOL_A);
    expect([await allBars(b.id), await allBars(b.pair.aggregate.id)]).toEqual(batched);
  });

  it('reports bad lines with their line numbers and keeps the good ones', async () => {
    const aggregateId = 'will be replaced';
    const lines: (object | string)[] = [
      tokenLine, // 1
      poolLine(POOL_A, 'MinswapV2'), // 2
      'not json', // 3
      GOOD_TRADES[0] ?? {}, // 4
      { kind: 'trade', id: 'x1', pool_id: POOL_A }, // 5: wrong shape
      trade({ id: 'x2', pool: 'beef', t: 40, prev: 1, cur: 1, prevTvl: 1, curTvl: 1, volume: 1 }), // 6: unknown pool
      trade({ id: 'x3', pool: POOL_A, t: 40, prev: 1.1, cur: 0, prevTvl: 1010, curTvl: 1010, volume: 1 }), // 7: price 0
      '', // 8: blank, ignored
      aggregateId, // 9: Aggregate pool (set below)
      GOOD_TRADES[1] ?? {}, // 10
      { kind: 'swap' }, // 11: unknown kind
      { ...trade({ id: 'x5', pool: POOL_A, t: 50, prev: 1, cur: 1, prevTvl: 1, curTvl: 1, volume: 1 }), extra: true }, // 12
      GOOD_TRADES[2] ?? {}, // 13
      poolLine('zz', 'MinswapV2'), // 14: bad pool id
      { ...poolLine('cc03', 'Aggregate') }, // 15: Aggregate is not a DEX group
      { kind: 'token', unit: '', ticker: 'ADA', decimals: 6 }, // 16: ADA is built in
      trade({ id: 'sim:1:1', pool: POOL_A, t: 90, prev: 1, cur: 1, prevTvl: 1, curTvl: 1, volume: 1 }), // 17
      trade({ id: 'x6', pool: POOL_A, t: 95, prev: 0.95, cur: 0.96, prevTvl: -1000, curTvl: 1000, volume: 1 }), // 18
    ];
    // The Aggregate pool ID is derived from the pair: learn it by declaring the pool first.
    await run([tokenLine, poolLine(POOL_A, 'MinswapV2')]);
    lines[8] = trade({
      id: 'x4',
      pool: pool(POOL_A).pair.aggregate.poolId,
      t: 45,
      prev: 1,
      cur: 1,
      prevTvl: 1,
      curTvl: 1,
      volume: 1,
    });

    const report = await run(lines);
    expect(report.lines).toBe(18);
    expect(report.trades).toBe(3);
    expect(report.errors.map((e) => e.line)).toEqual([3, 5, 6, 7, 9, 11, 12, 14, 15, 16, 17, 18]);
    expect(report.errorCount).toBe(12);
    const reason = (line: number) => report.errors.find((e) => e.line === line)?.reason ?? '';
    expect(reason(3)).toContain('invalid JSON');
    expect(reason(5)).toMatch(/invalid trade line: .*block_time/);
    expect(reason(6)).toContain('unknown pool beef');
    expect(reason(7)).toContain('current_price must be positive');
    expect(reason(9)).toContain('is an Aggregate pool');
    expect(reason(11)).toContain('unknown kind "swap"');
    expect(reason(12)).toContain('extra');
    expect(reason(14)).toContain('pool_id');
    expect(reason(15)).toContain('group must be one of');
    expect(reason(16)).toContain('built in');
    expect(reason(17)).toContain('reserved for the simulator');
    expect(reason(18)).toContain('previous_tvl must be positive');

    const a = pool(POOL_A);
    expect((await handle.store.bars.range(a.id, '1d', DAY, DAY + 86_400))[0]?.[5]).toBe(15 * LOVELACE);
  });

  it('rejects a trade on a pool that was never declared', async () => {
    const report = await run([tokenLine, GOOD_TRADES[0] ?? {}, poolLine(POOL_A, 'MinswapV2'), GOOD_TRADES[1] ?? {}]);
    expect(report.trades).toBe(1);
    expect(report.errors).toEqual([{ line: 2, reason: expect.stringContaining(`unknown pool ${POOL_A}`) }]);
  });

  it('rejects a pool whose tokens are unknown, and a pool ID that exists with another group or pair', async () => {
    const report = await run([
      poolLine(POOL_A, 'MinswapV2'),
      tokenLine,
      poolLine(POOL_A, 'MinswapV2'),
      poolLine(POOL_A, 'VyFi'),
    ]);
    expect(report.poolsAdded).toBe(1);
    expect(report.errors).toEqual([
      { line: 1, reason: expect.stringContaining(`unknown quote token ${QUOTE}`) },
      { line: 4, reason: expect.stringContaining('already exists as MinswapV2') },
    ]);
  });

  it('accepts trades older than the latest of their pool or pair: the pool keeps its latest state, the touched buckets are folded again, bars equal a rebuild', async () => {
    const t = (id: string, p: string, at: number, cur: number) =>
      trade({ id, pool: p, t: at, prev: 1, cur, prevTvl: 1000, curTvl: 1001, volume: 1 });
    const report = await run([
      tokenLine,
      poolLine(POOL_A, 'MinswapV2'),
      poolLine(POOL_B, 'SundaeSwapV3'),
      t('o1', POOL_A, 100, 1.5),
      t('o2', POOL_A, 50, 1.2),
      t('o3', POOL_B, 60, 1.3),
    ]);
    expect(report.errors).toEqual([]);
    expect(report.trades).toBe(3);
    // Pool A's present is its latest trade's state, not the older one imported after it.
    const a = pool(POOL_A);
    expect((a.baseReserve / 1e6 / (a.quoteReserve / 1e6)).toFixed(6)).toBe('1.500000');
    expect(await handle.store.trades.lastTradeTime(a.id, false)).toBe(DAY + 100);
    const later = await run([t('o4', POOL_A, 10, 0.8), t('o5', POOL_A, 130, 1.7)]);
    expect(later.trades).toBe(2);
    const bars = await handle.store.bars.all();
    await handle.store.bars.rebuild();
    expect(await handle.store.bars.all()).toEqual(bars);
    // The first minute now opens with the oldest trade.
    expect((await handle.store.bars.range(a.id, '1min', DAY, DAY + 60))[0]?.[1]).toBe(1);
    expect((await handle.store.bars.range(a.id, '1min', DAY, DAY + 60))[0]?.[4]).toBeCloseTo(1.2, 9);
  });

  it("gives the same bars whatever the order of a file's chunks: in order, in shuffled chunks, and rebuilt", async () => {
    // Two pairs of one pool each (an Aggregate then follows its one pool whatever the import order).
    const second = `${'8'.repeat(56)}${Buffer.from('ZTK').toString('hex')}`;
    const head = [
      tokenLine,
      { ...tokenLine, unit: second, ticker: 'ZTK' },
      poolLine(POOL_A, 'MinswapV2'),
      { ...poolLine(POOL_B, 'SundaeSwapV3'), quote: second },
    ];
    let price = [1, 2];
    const trades = Array.from({ length: 600 }, (_, i) => {
      const which = i % 2;
      const prev = price[which] ?? 1;
      const cur = prev * (1 + (((i * 7919) % 13) - 6) / 200);
      price = which === 0 ? [cur, price[1] ?? 2] : [price[0] ?? 1, cur];
      return trade({
        id: `c${i}`,
        pool: which === 0 ? POOL_A : POOL_B,
        t: i * 37,
        prev,
        cur,
        prevTvl: 1000 + i,
        curTvl: 1001 + i,
        volume: 1 + (i % 5),
      });
    });
    await run([...head, ...trades], { batchSize: 50 });
    const inOrder = await handle.store.bars.all();

    await handle.close();
    handle = await openMarket(join(root, 'shuffled'), 'test');
    await run(head);
    const chunks = Array.from({ length: 12 }, (_, k) => trades.slice(k * 50, k * 50 + 50));
    for (const k of [7, 2, 11, 0, 5, 9, 1, 10, 4, 8, 3, 6])
      expect((await run(chunks[k] ?? [], { batchSize: 20 })).errors).toEqual([]);
    expect(await handle.store.trades.count()).toBe(600);
    const shuffled = await handle.store.bars.all();
    expect(shuffled).toEqual(inOrder);
    await handle.store.bars.rebuild();
    expect(await handle.store.bars.all()).toEqual(inOrder);
  });

  it("gives the same bars whatever the order of a file's chunks when a pair has several pools: its Aggregate is computed again from each pool's state at the time", async () => {
    // Three pools of one pair, each moving its own way: the Aggregate at a trade sums every pool's
    // state at that moment, which an older trade imported late changes for every later trade.
    const POOL_C = 'cc03';
    const head = [
      tokenLine,
      poolLine(POOL_A, 'MinswapV2'),
      poolLine(POOL_B, 'SundaeSwapV3'),
      poolLine(POOL_C, 'WingRiders'),
    ];
    const ids = [POOL_A, POOL_B, POOL_C];
    const state = ids.map((_, k) => ({ price: 1 + k * 0.05, tvl: 1000 * (k + 1) }));
    const trades = Array.from({ length: 450 }, (_, i) => {
      const which = (i * 7) % 3;
      const was = state[which] ?? { price: 1, tvl: 1000 };
      const now = {
        price: was.price * (1 + (((i * 7919) % 13) - 6) / 300),
        tvl: was.tvl * (1 + (((i * 104_729) % 11) - 5) / 400),
      };
      state[which] = now;
      return trade({
        id: `m${i}`,
        pool: ids[which] ?? POOL_A,
        t: i * 41,
        prev: was.price,
        cur: now.price,
        prevTvl: was.tvl,
        curTvl: now.tvl,
        volume: 1 + (i % 7),
      });
    });
    await run([...head, ...trades], { batchSize: 40 });
    const inOrder = await handle.store.bars.all();
    const aggregate = pool(POOL_A).pair.aggregate.id;
    const aggregateBars = await handle.store.bars.range(aggregate, '1min', DAY, DAY + 450 * 41);
    expect(aggregateBars.length).toBeGreaterThan(300);

    await handle.close();
    handle = await openMarket(join(root, 'shuffled-pools'), 'test');
    await run(head);
    const chunks = Array.from({ length: 9 }, (_, k) => trades.slice(k * 50, k * 50 + 50));
    for (const k of [6, 1, 8, 0, 4, 7, 2, 5, 3])
      expect((await run(chunks[k] ?? [], { batchSize: 17 })).errors).toEqual([]);
    expect(await handle.store.trades.count()).toBe(450);
    expect(await handle.store.bars.all()).toEqual(inOrder);
    await handle.store.bars.rebuild();
    expect(await handle.store.bars.all()).toEqual(inOrder);
    // The pair's present is its pools' latest states whatever the order.
    const present = pool(POOL_A).pair.aggregate;
    const latest = state.reduce((sum, s) => sum + s.tvl, 0);
    expect((2 * present.baseReserve) / 1e6).toBeCloseTo(latest, 6);
  });

  it('rejects trades on pools of the simulated market, which trades them up to the present', async () => {
    await handle.close();
    const simulated = await createTestService({ days: 1, dataDir: join(root, 'simulated') });
    const target = (await busiestPools(simulated.runtime)).dexPool;
    const now = simulated.clock.seconds();
    await simulated.close();
    handle = await openMarket(join(root, 'simulated'), 'test');
    const trades = await handle.store.trades.count();
    const bars = await handle.store.bars.all();
    const report = await run([
      {
        id: 'future',
        block_time: now + 600,
        pool_id: target.poolId,
        previous_price: 1,
        current_price: 1.1,
        previous_tvl: 1000,
        current_tvl: 1010,
        volume: 5,
      },
    ]);
    expect(report.trades).toBe(0);
    expect(report.errors).toEqual([{ line: 1, reason: expect.stringContaining('simulated market') }]);
    expect(await handle.store.trades.count()).toBe(trades);
    expect(await handle.store.bars.all()).toEqual(bars);
  });

  it('counts a repeated id inside one file as a duplicate, not an error', async () => {
    const first = GOOD_TRADES[0] ?? {};
    const report = await run([tokenLine, poolLine(POOL_A, 'MinswapV2'), first, first, GOOD_TRADES[1] ?? {}]);
    expect(report).toMatchObject({ trades: 2, duplicates: 1, errorCount: 0 });
    expect((await handle.store.bars.range(pool(POOL_A).id, '1min', DAY, DAY + 60))[0]?.[5]).toBe(12 * LOVELACE);
  });

  it('fails with a clear error when the file cannot be read', async () => {
    await expect(importTrades(handle, join(root, 'missing.jsonl'))).rejects.toThrow(/ENOENT/);
  });
});
