import { describe, expect, it } from 'vitest';
import { checkCandle } from '../../src/app/features/candle-trades/lib/check';
import { rowsOf, sortRows, spreadsByPair, withSpreads } from '../../src/app/features/overview/lib/rows';
import { spreadLines, spreadTable } from '../../src/app/features/spread/lib/spread-lines';
import { chainTxOf, txUrl } from '../../src/app/lib/explorer';
import { DEFAULT_TRADER_SETTINGS, parseTraderSettings } from '../../src/app/lib/trader-settings';
import type { GroupStats, PairPool, Spreads, TapeTrade } from '../../src/shared/api/extensions';
import { candleOfTrades, tradesOfCandle } from '../../src/shared/candle-trades';
import { DEFAULT_SPREAD_MIN_TVL_ADA } from '../../src/shared/spread';

/** The trader tools' pure parts (issue 27, parts 3 and 5): explorer links, settings, the spread's lines and table, the overview's column, a candle's check. */

const HASH = 'ab'.repeat(32);

describe('explorer links', () => {
  it('link a chain trade’s transaction on the chosen explorer, and nothing else', () => {
    expect(chainTxOf(`${HASH.toUpperCase()}#3`)).toBe(HASH);
    expect(txUrl(`${HASH}#0`, 'cexplorer')).toBe(`https://cexplorer.io/tx/${HASH}`);
    expect(txUrl(`${HASH}#0`, 'cardanoscan')).toBe(`https://cardanoscan.io/transaction/${HASH}`);
    for (const id of ['sim:12:3', `${HASH}`, `${HASH}#`, `${HASH.slice(2)}#1`, undefined])
      expect(txUrl(id, 'cexplorer'), String(id)).toBeUndefined();
  });
});

describe('trader settings', () => {
  it('read back what was kept, and their defaults for anything else', () => {
    expect(parseTraderSettings(JSON.stringify({ explorer: 'cardanoscan', spreadMinTvl: 50_000 }))).toEqual({
      explorer: 'cardanoscan',
      spreadMinTvl: 50_000,
    });
    expect(parseTraderSettings(null)).toEqual(DEFAULT_TRADER_SETTINGS);
    expect(DEFAULT_TRADER_SETTINGS).toEqual({ explorer: 'cexplorer', spreadMinTvl: DEFAULT_SPREAD_MIN_TVL_ADA });
    for (const text of [
      '{',
      '[]',
      '"x"',
      JSON.stringify({ explorer: 'evil.example', spreadMinTvl: -1 }),
      JSON.stringify({ spreadMinTvl: 'NaN' }),
      JSON.stringify({ spreadMinTvl: 1e16 }),
    ]) {
      expect(parseTraderSettings(text), text).toEqual(DEFAULT_TRADER_SETTINGS);
    }
  });
});

describe('the spread view', () => {
  const bar = (time: number, close: number) => ({ time, close });
  it('draws each pool in prices, or in percent from the Aggregate’s close of the bucket (or its last before)', () => {
    const aggregate = [bar(60, 1), bar(180, 2)];
    const pools = [
      { id: 'agg', bars: aggregate },
      { id: 'a', bars: [bar(0, 5), bar(60, 1.1), bar(120, 0.9), bar(180, 2.2)] },
    ];
    const [agg, a] = spreadLines(aggregate, pools, 'percent', false);
    expect(agg?.points).toEqual([
      { time: 60, value: 0 },
      { time: 180, value: 0 },
    ]);
    // The bar before the Aggregate's first has no percent; 120 is against the Aggregate's close at 60.
    expect(a?.points.map((p) => p.time)).toEqual([60, 120, 180]);
    expect(a?.points.map((p) => p.value)).toEqual([
      expect.closeTo(10, 9),
      expect.closeTo(-10, 9),
      expect.closeTo(10, 9),
    ]);
    expect(spreadLines(aggregate, pools, 'price', true)[1]?.points[1]).toEqual({ time: 60, value: 1 / 1.1 });
    // Inverted, percents are those of the inverse price.
    expect(spreadLines(aggregate, pools, 'percent', true)[1]?.points[0]?.value).toBeCloseTo((1 / 1.1 / 1 - 1) * 100, 9);
  });

  const pool = (pool_id: string, price: number, tvl: number, tvl_ada?: number): PairPool => ({
    pool_id,
    symbol: `ADA.X_${pool_id}_Pool1`,
    group: pool_id,
    tvl,
    share: 0,
    price,
    deviation_percent: 0,
    volume_24h: 0,
    ...(tvl_ada === undefined ? {} : { tvl_ada }),
  });

  it('tables each pool’s difference from the best price among the deep ones, and the spread over them', () => {
    const pools = [
      pool('a', 1.0, 50_000),
      pool('b', 1.1, 20_000),
      pool('c', 0.5, 100),
      pool('d', 1.05, 30_000, 30_000),
    ];
    const { rows, spread } = spreadTable(pools, true, 10_000, false);
    expect(spread).toEqual({ percent: expect.closeTo(10, 9), pools: 3, low: 'a', high: 'b' });
    expect(rows.map((r) => [r.pool_id, r.counts, r.fromBest === null ? null : Number(r.fromBest.toFixed(6))])).toEqual([
      ['a', true, 0],
      ['b', true, 10],
      ['c', false, -50],
      ['d', true, 5],
    ]);
    // Inverted: the best is the lowest inverse price (the dearest pool); the spread is the same gap.
    const inverted = spreadTable(pools, true, 10_000, true);
    expect(inverted.rows.find((r) => r.pool_id === 'b')?.fromBest).toBeCloseTo(0, 9);
    expect(inverted.spread.percent).toBeCloseTo(10, 9);
    // A token/token pair without TVL in ADA: no pool counts.
    expect(spreadTable(pools.slice(0, 3), false, 10_000, false).spread).toEqual({
      percent: null,
      pools: 0,
      low: null,
      high: null,
    });
  });
});

describe('the overview’s spread column', () => {
  const stats: GroupStats = {
    s: 'ok',
    group: 'Aggregate',
    complete: true,
    ticker: ['p1', 'p2', 'p3'],
    symbol: ['ADA.SNEK_Aggregate_Pool1', 'ADA.WMT_Aggregate_Pool1', 'ADA.HOSKY_Aggregate_Pool1'],
    base: ['', '', ''],
    quote: ['aa', 'bb', 'cc'],
    price: [1, 2, 3],
    change_24h: [0, 0, 0],
    volume_24h: [0, 0, 0],
    tvl: [3, 2, 1],
    tvl_ada: [3, 2, 1],
  };
  const spreads: Spreads = {
    s: 'ok',
    min_tvl: 10_000,
    base: ['', '', ''],
    quote: ['bb', 'aa', 'zz'],
    aggregate: ['p2', 'p1', 'p9'],
    spread_percent: [4, 0.5, 9],
    pools: [2, 3, 2],
    low: ['x', 'y', 'z'],
    high: ['u', 'v', 'w'],
  };
  it('joins each row to its pair’s spread and sorts by it, rows without one last', () => {
    const rows = withSpreads(rowsOf(stats), spreadsByPair(spreads));
    expect(rows.map((r) => r.spread)).toEqual([0.5, 4, undefined]);
    expect(sortRows(rows, { key: 'spread', direction: 'desc' }).map((r) => r.ticker)).toEqual(['p2', 'p1', 'p3']);
    expect(sortRows(rows, { key: 'spread', direction: 'asc' }).map((r) => r.ticker)).toEqual(['p1', 'p2', 'p3']);
    expect(withSpreads(rowsOf(stats), undefined).every((r) => r.spread === undefined)).toBe(true);
  });
});

describe('a candle checked against its trades', () => {
  const trade = (id: string, time: number, previous: number, price: number, base: number): TapeTrade => ({
    id,
    time,
    pool_id: 'aa',
    group: 'MinswapV2',
    side: price >= previous ? 'buy' : 'sell',
    price,
    previous_price: previous,
    base_amount: base,
    quote_amount: base / ((price + previous) / 2),
    tvl: 100,
  });

  it('lists the trades of the bucket from pages of the route, oldest first, and rebuilds the bar from them', async () => {
    // Newest first, as the route pages them: one after the bucket, three inside, one before.
    const all = [
      trade('e', 185, 1.3, 1.25, 1),
      trade('d', 170, 1.2, 1.3, 0.1),
      trade('c', 130, 1.0, 1.2, 0.2),
      trade('b', 120, 1.1, 1.0, 0.3),
      trade('a', 100, 1, 1.1, 5),
    ];
    const asked: string[] = [];
    const page = async (query: { pool: string; before: string; limit: number }) => {
      asked.push(query.before);
      const [time] = query.before.split('.').map(Number);
      const older = all.filter((t) => t.time < (time ?? 0));
      const trades = older.slice(0, 2);
      return { s: 'ok' as const, trades, next: older.length > 2 ? `${trades.at(-1)?.time}.1` : null };
    };
    const { trades, cut } = await tradesOfCandle(page, 'aa', 120, '1min');
    expect(asked[0]).toBe('180.0');
    expect(cut).toBe(false);
    expect(trades.map((t) => t.id)).toEqual(['b', 'c', 'd']);
    const candle = candleOfTrades(trades, '1min');
    expect(candle).toEqual({
      time: 120,
      open: 1.1,
      high: 1.3,
      low: 1.0,
      close: 1.3,
      volume: expect.closeTo(0.6, 12),
      tvl: 100,
    });
    if (!candle) throw new Error('no candle');
    expect(checkCandle({ ...candle, volume: 0.6 }, candle).every((row) => row.agree)).toBe(true);
    const wrong = checkCandle({ ...candle, high: 1.31 }, candle);
    expect(wrong.filter((row) => !row.agree).map((row) => row.label)).toEqual(['High']);
    expect(checkCandle(candle, undefined).every((row) => !row.agree)).toBe(true);
  });
});
