import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UdfDatafeed } from '../../src/datafeed';
import { normalizeQuery, type SearchRow, type SymbolSearchIndex } from '../../src/datafeed/symbol-search';
import { assetFingerprint } from '../../src/datafeed/fingerprint';
import { splitTokenUnit } from '../../src/shared/id-rules';
import { ensureDefined } from '../support/ensure';
import { createTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The search index answers from lookups (maps, sorted prefixes, one haystack). This is the plain
 * definition of its ranking, written as one pass over every symbol: the index must answer exactly as
 * this reference does, for every query and limit.
 */
function referenceSearch(rows: readonly SearchRow[], query: string, limit: number): string[] {
  const lower = (v: string) => v.toLowerCase();
  const liquidity = (r: SearchRow) => r.tvlAda ?? r.tvl ?? -1;
  const entries = [...rows]
    .sort((a, b) => liquidity(b) - liquidity(a) || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((row) => {
      const base = lower(row.base);
      const quote = lower(row.quote);
      const symbol = lower(row.symbol);
      const ids = [lower(row.ticker)];
      for (const unit of [row.quoteUnit, row.baseUnit]) {
        if (unit === '') continue;
        const { policyId, assetName } = splitTokenUnit(lower(unit));
        ids.push(lower(unit), policyId, assetFingerprint(policyId, assetName));
      }
      return {
        row,
        exact: [quote, base, symbol, `${base}.${quote}`, ...ids],
        prefix: [quote, base, symbol],
        // Token names match like the description: anywhere, never exact or prefix.
        text: [
          symbol,
          lower(row.description),
          ...[row.quoteName, row.baseName].flatMap((n) => (n ? [lower(n)] : [])),
          ...ids,
        ].join('\n'),
        group: lower(row.exchange),
      };
    });
  const q = normalizeQuery(query);
  if (limit <= 0) return [];
  if (q === '') return entries.slice(0, limit).map((e) => e.row.symbol);
  const terms = q.split(' ');
  const exact: string[] = [];
  const prefix: string[] = [];
  const anywhere: string[] = [];
  for (const e of entries) {
    if (!terms.every((t) => e.text.includes(t))) continue;
    if (terms.every((t) => (terms.length > 1 && t === e.group) || e.exact.includes(t))) exact.push(e.row.symbol);
    else if (terms.every((t) => (terms.length > 1 && e.group.startsWith(t)) || e.prefix.some((k) => k.startsWith(t))))
      prefix.push(e.row.symbol);
    else anywhere.push(e.row.symbol);
  }
  return [...exact, ...prefix, ...anywhere].slice(0, limit);
}

let tp: TestPlatform;
let datafeed: UdfDatafeed;
let index: SymbolSearchIndex;

beforeAll(async () => {
  tp = await createTestPlatform();
  // Token names come from the gateway's GET /gw/v1/token-info (every token at once).
  datafeed = new UdfDatafeed({ fetch: tp.fetch, onWarning: () => {} });
  index = await datafeed.searchIndex();
});
afterAll(async () => {
  datafeed.close();
  await tp.close();
});

describe('the search index of every group', () => {
  it('holds every symbol of every group, found by name in any case', async () => {
    const groups = [
      'Aggregate',
      'Minswap',
      'MinswapV2',
      'SundaeSwap',
      'SundaeSwapV3',
      'WingRiders',
      'WingRidersV2',
      'Spectrum',
      'Splash',
      'MuesliSwap',
      'VyFi',
    ];
    let total = 0;
    for (const group of groups) total += (await datafeed.searchIndex(group)).size;
    expect(index.size).toBe(total);
    expect(index.find('ada.snek_aggregate_pool1')?.symbol).toBe('ADA.SNEK_Aggregate_Pool1');
    expect(await datafeed.searchIndex()).toBe(index);
  });

  it('knows the token names', async () => {
    const wmt = ensureDefined(index.find('ADA.WMT_Aggregate_Pool1'));
    expect(wmt.quoteName).toBe('World Mobile Token');
  });

  it('answers exactly as the reference ranking, for every kind of query and limit', async () => {
    const snek = ensureDefined(index.find('ADA.SNEK_Aggregate_Pool1'));
    const { policyId, assetName } = splitTokenUnit(snek.quoteUnit);
    const queries = [
      '',
      's',
      'sn',
      'SNEK',
      'snek ',
      'ada',
      'ADA/SNEK',
      'ada.snek',
      'a',
      '0',
      'f',
      'pool1',
      'aggregate',
      'snek minswap',
      'min sundae',
      'ada min v2',
      'zzz',
      'asset1',
      snek.ticker,
      snek.ticker.slice(0, 10).toUpperCase(),
      snek.quoteUnit,
      policyId,
      assetFingerprint(policyId, assetName),
      'on splash',
      'world mobile',
      'World Mobile Token',
      'liqwid',
      'liqwid dao',
      'dao',
      'token',
      'mobile minswap',
      'ada world',
    ];
    for (const limit of [1, 7, 50, 5000]) {
      for (const query of queries) {
        expect(
          index.search(query, { limit }).map((r) => r.symbol),
          `"${query}" limit ${limit}`,
        ).toEqual(referenceSearch(index.rows, query, limit));
      }
    }
  });

  it('agrees with the reference on random queries', async () => {
    const alphabet = fc.constantFrom(...'abcdefiklmnoprstuvwxyz0123456789 ./_'.split(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 6 }).map((chars) => chars.join('')),
        fc.integer({ min: 1, max: 300 }),
        (query, limit) => {
          expect(index.search(query, { limit }).map((r) => r.symbol)).toEqual(
            referenceSearch(index.rows, query, limit),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('returns nothing for a zero limit, and nothing for a type no symbol has', async () => {
    expect(index.search('snek', { limit: 0 })).toEqual([]);
    expect(index.search('snek', { limit: 10, type: 'futures' })).toEqual([]);
    expect(index.search('snek', { limit: 10, type: 'spot' }).length).toBeGreaterThan(0);
  });
});
