import { describe, expect, it } from 'vitest';
import {
  filterByText,
  liveNumbers,
  mergeAnswers,
  parsePlace,
  rowOrders,
  rowsOf,
  sortRows,
  type OverviewRow,
} from '../../src/app/features/overview/lib/rows';
import { applyTrade, EMPTY_OVERLAY } from '../../src/app/lib/live-stats';
import type { GroupStats } from '../../src/shared/api/extensions';

/** The overview's pure parts: rows from an answer, sorting with unknown numbers, merging, live numbers, places. */

const DJED = 'ab'.repeat(28) + '444a4544';

function answer(overrides: Partial<GroupStats> = {}): GroupStats {
  return {
    s: 'ok',
    group: 'Aggregate',
    complete: true,
    ticker: ['p1', 'p2', 'p3', 'p4'],
    symbol: [
      'ADA.SNEK_Aggregate_Pool1',
      'ADA.WMT_Aggregate_Pool1',
      'DJED.IUSD_Aggregate_Pool1',
      'ADA.HOSKY_Aggregate_Pool1',
    ],
    base: ['', '', DJED, ''],
    quote: ['aa', 'bb', 'cc', 'dd'],
    price: [0.004, 0.3, 1.01, null],
    change_24h: [5, -2, 0.1, null],
    volume_24h: [1000, 5000, 200, null],
    tvl: [2_000_000, 900_000, 100_000, 50],
    // DJED at 2 ADA: its pair's TVL is 200,000 ADA.
    tvl_ada: [2_000_000, 900_000, 200_000, 50],
    ...overrides,
  };
}

const symbols = (rows: readonly OverviewRow[]) => rows.map((r) => r.symbol.split('_')[0]);

describe('overview rows', () => {
  it('reads the pair’s tickers from the symbol name, ADA for the native currency', () => {
    const [snek, , djed] = rowsOf(answer());
    expect(snek).toMatchObject({
      base: 'ADA',
      quote: 'SNEK',
      baseUnit: '',
      quoteUnit: 'aa',
      price: 0.004,
      tvlAda: 2_000_000,
      group: 'Aggregate',
    });
    expect(djed).toMatchObject({ base: 'DJED', quote: 'IUSD', baseUnit: DJED });
    expect(rowsOf(answer()).at(-1)).toMatchObject({ price: undefined, change: undefined, volume: undefined, tvl: 50 });
  });

  it('sorts by values in ADA, unknown values last in both directions, ties deepest first', () => {
    const rows = rowsOf(answer());
    expect(symbols(sortRows(rows, { key: 'tvl', direction: 'desc' }))).toEqual([
      'ADA.SNEK',
      'ADA.WMT',
      'DJED.IUSD',
      'ADA.HOSKY',
    ]);
    expect(symbols(sortRows(rows, { key: 'tvl', direction: 'asc' }))).toEqual([
      'ADA.HOSKY',
      'DJED.IUSD',
      'ADA.WMT',
      'ADA.SNEK',
    ]);
    // Price in ADA: 1.01 DJED at 2 ADA each is the dearest.
    expect(symbols(sortRows(rows, { key: 'price', direction: 'desc' }))).toEqual([
      'DJED.IUSD',
      'ADA.WMT',
      'ADA.SNEK',
      'ADA.HOSKY',
    ]);
    expect(symbols(sortRows(rows, { key: 'price', direction: 'asc' }))).toEqual([
      'ADA.SNEK',
      'ADA.WMT',
      'DJED.IUSD',
      'ADA.HOSKY',
    ]);
    expect(symbols(sortRows(rows, { key: 'change', direction: 'asc' }))).toEqual([
      'ADA.WMT',
      'DJED.IUSD',
      'ADA.SNEK',
      'ADA.HOSKY',
    ]);
    // 200 DJED is 400 ADA of volume.
    expect(symbols(sortRows(rows, { key: 'volume', direction: 'desc' }))).toEqual([
      'ADA.WMT',
      'ADA.SNEK',
      'DJED.IUSD',
      'ADA.HOSKY',
    ]);
    const tied = rowsOf(answer({ change_24h: [1, 1, 1, 1] }));
    expect(symbols(sortRows(tied, { key: 'change', direction: 'asc' }))).toEqual([
      'ADA.SNEK',
      'ADA.WMT',
      'DJED.IUSD',
      'ADA.HOSKY',
    ]);
    expect(rows.map((r) => r.ticker)).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it('keeps each order it computed: unknown last in both directions, ties deepest first, the same array when asked again', () => {
    const rows = rowsOf(answer({ change_24h: [3, null, 3, -2] }));
    const orders = rowOrders(rows);
    const changeDesc = orders({ key: 'change', direction: 'desc' });
    // Ties (3 and 3) deepest first; the unknown change last.
    expect(symbols(changeDesc)).toEqual(['ADA.SNEK', 'DJED.IUSD', 'ADA.HOSKY', 'ADA.WMT']);
    expect(symbols(orders({ key: 'change', direction: 'asc' }))).toEqual([
      'ADA.HOSKY',
      'ADA.SNEK',
      'DJED.IUSD',
      'ADA.WMT',
    ]);
    expect(orders({ key: 'change', direction: 'desc' })).toBe(changeDesc);
  });

  it('filters on every word of the query, any case', () => {
    const rows = rowsOf(answer());
    expect(symbols(filterByText(rows, 'snek'))).toEqual(['ADA.SNEK']);
    expect(symbols(filterByText(rows, 'IUSD djed'))).toEqual(['DJED.IUSD']);
    expect(symbols(filterByText(rows, 'hosky/ada'))).toEqual(['ADA.HOSKY']);
    expect(filterByText(rows, '  ')).toHaveLength(4);
    expect(filterByText(rows, 'snek wmt')).toHaveLength(0);
  });

  it('merges the numbers of the rows shown into the list, complete once every row has a price', () => {
    const list = answer({
      complete: false,
      price: [null, null, null, null],
      change_24h: [null, null, null, null],
      volume_24h: [null, null, null, null],
      tvl: [null, null, 5, null],
      tvl_ada: [null, null, null, null],
    });
    const shown = answer({
      complete: true,
      ticker: ['P2', 'p4', 'zz'],
      symbol: ['a', 'b', 'c'],
      base: ['', '', ''],
      quote: ['', '', ''],
      price: [0.3, 2, 9],
      change_24h: [-2, 1, 0],
      volume_24h: [5000, 3, 0],
      tvl: [900_000, 60, 1],
      tvl_ada: [900_000, 60, 1],
    });
    const merged = mergeAnswers(list, shown);
    expect(merged.price).toEqual([null, 0.3, null, 2]);
    expect(merged.tvl).toEqual([null, 900_000, 5, 60]);
    expect(merged.complete).toBe(false);
    expect(list.price).toEqual([null, null, null, null]);
    const all = mergeAnswers(
      merged,
      answer({
        ticker: ['p1', 'p3'],
        symbol: ['a', 'b'],
        base: ['', ''],
        quote: ['', ''],
        price: [1, 2],
        change_24h: [0, 0],
        volume_24h: [0, 0],
        tvl: [1, 1],
        tvl_ada: [1, 1],
      }),
    );
    expect(all.complete).toBe(true);
  });

  it('puts live trades seen after the fetch on top of a row’s numbers', () => {
    const [snek, , djed] = rowsOf(answer());
    if (!snek || !djed) throw new Error('rows');
    expect(liveNumbers(snek, undefined, 1000)).toBe(snek);
    const overlay = applyTrade(EMPTY_OVERLAY, { current_price: 0.0042, current_tvl: 2_100_000, volume: 50 }, 2000);
    // 0.004 was +5 % over 24 h: the price 24 h ago was 0.004 / 1.05.
    expect(liveNumbers(snek, overlay, 1000)).toEqual({
      price: 0.0042,
      change: expect.closeTo((0.0042 / (0.004 / 1.05) - 1) * 100, 9),
      volume: 1050,
      tvl: 2_100_000,
      tvlAda: 2_100_000,
    });
    // Numbers asked after the trade: its volume is in them, but its price and TVL stay (the pool was
    // followed without a break since, so no later trade happened; the answer may be a cache's).
    expect(liveNumbers(snek, overlay, 3000)).toMatchObject({ price: 0.0042, tvl: 2_100_000, volume: 1000 });
    // A token base: TVL in ADA moves with the TVL.
    expect(
      liveNumbers(djed, applyTrade(EMPTY_OVERLAY, { current_price: 1.02, current_tvl: 110_000, volume: 1 }, 2000), 1000)
        .tvlAda,
    ).toBeCloseTo(220_000, 6);
  });

  it('reads a place back from a history entry, and nothing else', () => {
    expect(parsePlace({ sort: { key: 'volume', direction: 'asc' }, query: 'snek', offset: 440 })).toEqual({
      sort: { key: 'volume', direction: 'asc' },
      query: 'snek',
      offset: 440,
    });
    for (const bad of [
      undefined,
      null,
      3,
      {},
      { sort: { key: 'name', direction: 'asc' }, query: '', offset: 0 },
      { sort: { key: 'tvl', direction: 'up' }, query: '', offset: 0 },
      { sort: { key: 'tvl', direction: 'asc' }, query: 1, offset: 0 },
      { sort: { key: 'tvl', direction: 'asc' }, query: '', offset: -1 },
    ]) {
      expect(parsePlace(bad)).toBeUndefined();
    }
  });
});
