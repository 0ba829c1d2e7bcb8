import { describe, expect, it } from 'vitest';
import { SymbolSearchIndex, normalizeQuery, type SearchRow } from '../../src/datafeed/symbol-search';
import { assetFingerprint } from '../../src/datafeed/fingerprint';
import { ensureDefined } from '../support/ensure';

const GROUPS = [
  'Minswap',
  'MinswapV2',
  'SundaeSwap',
  'WingRiders',
  'Spectrum',
  'Splash',
  'MuesliSwap',
  'VyFi',
  'Aggregate',
];

function hex(n: number, length: number): string {
  return n.toString(16).padStart(length, '0').slice(-length);
}

/** A synthetic catalog the size of the real one: 17,100 symbols over 1,900 tokens and 9 groups. */
function bigCatalog(): SearchRow[] {
  const rows: SearchRow[] = [];
  for (let t = 0; t < 1900; t++) {
    const quote = t === 7 ? 'SNEK' : t === 8 ? 'SNEKX' : t === 9 ? 'BIGSNEK' : `TK${t}`;
    const quoteUnit = `${hex(t * 7919 + 1, 56)}${hex(t, 8)}`;
    GROUPS.forEach((group, g) => {
      const base = g === 0 && t % 2 === 1 ? 'SNEK' : 'ADA';
      const baseUnit = base === 'SNEK' ? `${hex(7 * 7919 + 1, 56)}${hex(7, 8)}` : '';
      const symbol = `${base}.${quote}_${group}_Pool1`;
      rows.push({
        symbol,
        ticker: hex(t * 100 + g, 56),
        description: `${base}/${quote} on ${group}`,
        exchange: group,
        type: 'spot',
        base,
        quote,
        baseUnit,
        quoteUnit,
        tvl: (t * 37 + g * 11) % 1000,
        tvlAda: ((t * 37 + g * 11) % 1000) * (group === 'Aggregate' ? 10 : 1),
      });
    });
  }
  return rows;
}

const rows = bigCatalog();
const index = new SymbolSearchIndex(rows);
const liquidity = (r: SearchRow) => r.tvlAda ?? -1;

function expectSortedByLiquidity(list: readonly SearchRow[]): void {
  const values = list.map(liquidity);
  expect(values).toEqual([...values].sort((a, b) => b - a));
}

describe('SymbolSearchIndex over 17,000 symbols', () => {
  it('holds every symbol', () => {
    expect(index.size).toBe(17_100);
  });

  it('ranks exact ticker matches first, then prefix matches, then the rest, each by liquidity', () => {
    const found = index.search('snek', { limit: 20_000 });
    const exactCount = rows.filter((r) => r.base === 'SNEK' || r.quote === 'SNEK').length;
    const exact = found.slice(0, exactCount);
    expect(exact.every((r) => r.base === 'SNEK' || r.quote === 'SNEK')).toBe(true);
    expectSortedByLiquidity(exact);
    const rest = found.slice(exactCount);
    const prefix = rows.filter((r) => r.quote === 'SNEKX' && r.base !== 'SNEK');
    const anywhere = rows.filter((r) => r.quote === 'BIGSNEK' && r.base !== 'SNEK');
    expect(rest).toHaveLength(prefix.length + anywhere.length);
    expect(new Set(rest.slice(0, prefix.length))).toEqual(new Set(prefix));
    expect(new Set(rest.slice(prefix.length))).toEqual(new Set(anywhere));
    expectSortedByLiquidity(rest.slice(0, prefix.length));
    expectSortedByLiquidity(rest.slice(prefix.length));
  });

  it('returns at most `limit` rows, the best ones', () => {
    const top = index.search('tk1', { limit: 50 });
    expect(top).toHaveLength(50);
    const all = index.search('tk1', { limit: 100_000 });
    expect(top).toEqual(all.slice(0, 50));
    expect(index.search('tk1', { limit: 0 })).toEqual([]);
  });

  it('finds by pool ID, unit, policy ID and fingerprint, ignoring case', () => {
    const target = ensureDefined(rows[1234]);
    expect(index.search(target.ticker.toUpperCase(), { limit: 5 })[0]).toEqual(target);
    const byUnit = index.search(target.quoteUnit, { limit: 50 });
    expect(byUnit.length).toBe(GROUPS.length);
    expect(byUnit.every((r) => r.quoteUnit === target.quoteUnit)).toBe(true);
    expect(index.search(target.quoteUnit.slice(0, 56), { limit: 50 })).toEqual(byUnit);
    const fingerprint = assetFingerprint(target.quoteUnit.slice(0, 56), target.quoteUnit.slice(56));
    expect(index.search(fingerprint, { limit: 50 })).toEqual(byUnit);
    expect(index.search(fingerprint.slice(0, 15).toUpperCase(), { limit: 50 })).toEqual(expect.arrayContaining(byUnit));
  });

  it('matches a pair written with / or as several words, and filters by type', () => {
    const pair = index.search('ada/tk42', { limit: 50 });
    expect(pair.map((r) => r.quote)).toContain('TK42');
    expect(ensureDefined(pair[0]).quote).toBe('TK42');
    const words = index.search('tk42 vyfi', { limit: 50 });
    expect(ensureDefined(words[0]).symbol).toBe('ADA.TK42_VyFi_Pool1');
    expect(words.slice(1).every((r) => r.exchange === 'VyFi' && r.quote.startsWith('TK42'))).toBe(true);
    expect(index.search('tk42', { limit: 50, type: 'futures' })).toEqual([]);
    expect(normalizeQuery('  ADA/Snek   on  ')).toBe('ada.snek on');
  });

  it('matches token names anywhere, ranked like the description: after exact and prefix ticker matches', () => {
    const named = rows.map((r) =>
      r.quote === 'TK500'
        ? { ...r, quoteName: 'Snek Fan Club', tvlAda: 1_000_000 + (r.tvlAda ?? 0) }
        : r.quote === 'SNEK'
          ? { ...r, quoteName: 'Snek' }
          : r,
    );
    const withNames = new SymbolSearchIndex(named);
    const found = withNames.search('snek', { limit: 20_000 });
    const exactCount = named.filter((r) => r.base === 'SNEK' || r.quote === 'SNEK').length;
    const prefixCount = named.filter((r) => r.quote === 'SNEKX' && r.base !== 'SNEK').length;
    const tier = found.slice(exactCount + prefixCount);
    const byName = named.filter((r) => r.quote === 'TK500' && r.base !== 'SNEK');
    // In the "anywhere" tier with BIGSNEK, and first there (the most liquid).
    expect(tier.slice(0, byName.length)).toEqual([...byName].sort((a, b) => liquidity(b) - liquidity(a)));
    expect(new Set(tier.slice(byName.length).map((r) => r.quote))).toEqual(new Set(['BIGSNEK']));
    expect(withNames.search('fan club', { limit: 50 }).map((r) => r.quote)).toEqual(byName.map(() => 'TK500'));
    expect(withNames.search('snek fan vyfi', { limit: 50 }).map((r) => r.symbol)).toEqual(['ADA.TK500_VyFi_Pool1']);
    expect(index.search('fan club', { limit: 50 })).toEqual([]);
  });

  it('lists the most liquid symbols for an empty query', () => {
    const top = index.search('   ', { limit: 25 });
    expect(top).toHaveLength(25);
    expectSortedByLiquidity(top);
    expect(liquidity(ensureDefined(top[0]))).toBe(Math.max(...rows.map(liquidity)));
  });

  it('builds in slices that let timers run between them, to the same index as building at once', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const sliced = await SymbolSearchIndex.build(rows, { sliceMs: 1 });
      // 17,100 rows are far more than one slice: the page's timers ran while it was being built.
      expect(ticks).toBeGreaterThan(2);
      expect(sliced.size).toBe(index.size);
      for (const query of ['snek', 'sn', 'tk12', 'ada/snek', 'snek minswap', 'on vyfi', rows[5]?.ticker ?? '', '']) {
        expect(sliced.search(query, { limit: 200 })).toEqual(index.search(query, { limit: 200 }));
      }
      expect(sliced.find('ADA.SNEK_Minswap_Pool1')).toEqual(index.find('ada.snek_minswap_pool1'));
    } finally {
      clearInterval(timer);
    }
  });
});
