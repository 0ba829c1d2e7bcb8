import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchRow } from '../../src/datafeed/symbol-search';
import { UdfDatafeed } from '../../src/datafeed/udf-datafeed';
import { gatewayLiquiditySchema } from '../../src/shared/api/gateway';
import { assetFingerprint } from '../../src/datafeed/fingerprint';
import { splitTokenUnit } from '../../src/shared/id-rules';
import { ensureDefined } from '../support/ensure';
import { attachDatafeed, createHarness, search, searchSymbols, type Harness } from './harness';

let h: Harness;
/** tvl_ada per pool ID, every group. */
const tvlAda = new Map<string, number>();

beforeAll(async () => {
  h = await createHarness();
  for (const group of [
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
  ]) {
    const body = gatewayLiquiditySchema.parse(await (await h.tp.fetch(`/gw/v1/liquidity?group=${group}`)).json());
    body.ticker.forEach((ticker, i) => tvlAda.set(ticker, body.tvl_ada[i] ?? 0));
  }
});
afterAll(() => h.close());

function expectByLiquidity(rows: readonly SearchRow[]): void {
  const values = rows.map((r) => ensureDefined(tvlAda.get(r.ticker), r.ticker));
  expect(values).toEqual([...values].sort((a, b) => b - a));
}

describe('searchSymbols', () => {
  it('puts exact ticker matches first, then the rest, each by liquidity', async () => {
    const rows = await search(h.datafeed, 'SNEK', undefined, 1000);
    const exact = rows.filter((r) => r.base === 'SNEK' || r.quote === 'SNEK');
    expect(exact.length).toBeGreaterThan(1);
    expect(rows.slice(0, exact.length)).toEqual(exact);
    expectByLiquidity(exact);
    expect(ensureDefined(rows[0]).symbol).toBe('ADA.SNEK_Aggregate_Pool1');
    // A prefix of a ticker: matches at a ticker's start, most liquid first.
    const prefix = await search(h.datafeed, 'sne', undefined, 1000);
    expect(prefix.length).toBeGreaterThan(0);
    for (const row of prefix) expect(`${row.base} ${row.quote} ${row.symbol}`.toLowerCase()).toMatch(/(^| )sne/);
    expectByLiquidity(prefix);
  });

  it('answers the library with at most 50 items of its shape, in one group when asked', async () => {
    const all = await searchSymbols(h.datafeed, 'ADA');
    expect(all).toHaveLength(50);
    const minswap = await searchSymbols(h.datafeed, 'ADA', 'Minswap');
    expect(minswap.length).toBeGreaterThan(0);
    for (const item of minswap) {
      expect(item.exchange).toBe('Minswap');
      expect(item.full_name).toBe(`Minswap:${item.symbol}`);
      expect(item.type).toBe('spot');
      expect(item.ticker).toMatch(/^[0-9a-f]+$/);
    }
    expect(await searchSymbols(h.datafeed, 'ADA', '', 'futures')).toEqual([]);
    expect((await search(h.datafeed, '', 'Aggregate', 1000)).length).toBe(119);
  });

  it('finds a token by policy ID, by unit and by CIP-14 fingerprint', async () => {
    const snek = ensureDefined((await search(h.datafeed, 'ADA.SNEK_Aggregate_Pool1', 'Aggregate'))[0]);
    const { policyId, assetName } = splitTokenUnit(snek.quoteUnit);
    const fingerprint = assetFingerprint(policyId, assetName);
    for (const query of [policyId, snek.quoteUnit.toUpperCase(), fingerprint]) {
      const rows = await search(h.datafeed, query, undefined, 100);
      expect(rows.length, query).toBeGreaterThan(0);
      for (const row of rows)
        expect(row.quoteUnit === snek.quoteUnit || row.baseUnit === snek.quoteUnit, query).toBe(true);
      expect(rows[0]).toEqual(snek);
    }
    const partial = await search(h.datafeed, fingerprint.slice(0, 20), 'Aggregate');
    expect(partial.map((r) => r.symbol)).toContain('ADA.SNEK_Aggregate_Pool1');
  });

  it('matches a pair typed with a slash or as two words, and the description', async () => {
    expect(ensureDefined((await search(h.datafeed, 'ada/snek', 'Aggregate'))[0]).symbol).toBe(
      'ADA.SNEK_Aggregate_Pool1',
    );
    expect(ensureDefined((await search(h.datafeed, 'snek ada', 'Aggregate'))[0]).symbol).toBe(
      'ADA.SNEK_Aggregate_Pool1',
    );
    const described = await search(h.datafeed, 'SNEK on Minswap', undefined, 100);
    expect(described.length).toBeGreaterThan(0);
    for (const row of described) expect(row.description.toLowerCase()).toContain('snek');
  });

  it('loads each group once, with one request in flight per group', async () => {
    const fresh = attachDatafeed(h.tp);
    await Promise.all([
      search(fresh.datafeed, 'MIN'),
      search(fresh.datafeed, 'SNEK'),
      search(fresh.datafeed, 'x', 'Aggregate'),
    ]);
    await search(fresh.datafeed, 'INDY');
    const symbolInfo = fresh.fetched.filter((url) => url.includes('/symbol_info?'));
    expect(symbolInfo).toHaveLength(11);
    expect(new Set(symbolInfo).size).toBe(11);
    fresh.close();
  });

  it('ranks without liquidity when the gateway has none', async () => {
    const datafeed = new UdfDatafeed({
      fetch: async (input) =>
        input.includes('/liquidity')
          ? new Response(JSON.stringify({ s: 'error', errmsg: 'no' }), { status: 404 })
          : h.tp.fetch(input),
    });
    const rows = await search(datafeed, 'SNEK', undefined, 100);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.tvl === undefined)).toBe(true);
    const exact = rows.filter((r) => r.base === 'SNEK' || r.quote === 'SNEK');
    expect(rows.slice(0, exact.length)).toEqual(exact);
  });

  it('finds pairs by token name (the gateway’s batch of every token’s name), ranked by liquidity', async () => {
    const fresh = attachDatafeed(h.tp);
    const wmt = await search(fresh.datafeed, 'World Mobile', undefined, 100);
    expect(wmt.length).toBeGreaterThan(1);
    for (const row of wmt) expect([row.base, row.quote]).toContain('WMT');
    expect(ensureDefined(wmt[0]).symbol).toBe('ADA.WMT_Aggregate_Pool1');
    expect(ensureDefined(wmt[0]).quoteName).toBe('World Mobile Token');
    expectByLiquidity(wmt);
    const lq = await search(fresh.datafeed, 'liqwid', undefined, 100);
    expect(lq.length).toBeGreaterThan(0);
    for (const row of lq) expect([row.base, row.quote]).toContain('LQ');
    expectByLiquidity(lq);
    // A ticker that equals the query still comes first: names rank like the description.
    const lqFirst = await search(fresh.datafeed, 'lq', undefined, 100);
    expect(lqFirst.slice(0, lq.length).every((r) => r.base === 'LQ' || r.quote === 'LQ')).toBe(true);
    const library = await searchSymbols(fresh.datafeed, 'world mobile', 'Aggregate');
    expect(library.map((i) => i.symbol)).toEqual(['ADA.WMT_Aggregate_Pool1']);
    // One request for every token, whatever the number of groups and searches.
    expect(fresh.fetched.filter((url) => url.includes('/token-info'))).toEqual(['/gw/v1/token-info']);
    fresh.close();
  });

  it('searches without names where the gateway has none (a remote upstream answers 404), asking once', async () => {
    const fetched: string[] = [];
    const datafeed = new UdfDatafeed({
      fetch: async (input, init) => {
        fetched.push(input);
        if (new URL(input, 'http://x').pathname === '/gw/v1/token-info')
          return Response.json(
            { s: 'error', errmsg: 'Token metadata is only known for the embedded market' },
            { status: 404 },
          );
        return h.tp.fetch(input, init);
      },
    });
    expect(await search(datafeed, 'World Mobile', undefined, 100)).toEqual([]);
    expect(ensureDefined((await search(datafeed, 'WMT', 'Aggregate'))[0]).symbol).toBe('ADA.WMT_Aggregate_Pool1');
    expect(fetched.filter((url) => url.includes('/token-info'))).toHaveLength(1);
    datafeed.close();
  });

  it('gives an empty list (and a warning) when symbol_info fails', async () => {
    const warnings: string[] = [];
    const datafeed = new UdfDatafeed({
      fetch: () => Promise.reject(new TypeError('offline')),
      onWarning: (m) => warnings.push(m),
    });
    expect(await searchSymbols(datafeed, 'SNEK', 'Aggregate')).toEqual([]);
    expect(warnings.join('\n')).toMatch(/Symbol search failed: .*offline/);
    await expect(datafeed.search('SNEK', 'Aggregate')).rejects.toThrow(/offline/);
  });
});

describe('lookup', () => {
  it('finds one symbol of a group by name or pool ID, in any case, as search lists it', async () => {
    const [snek] = await search(h.datafeed, 'ADA.SNEK_Aggregate_Pool1', 'Aggregate', 1);
    const row = ensureDefined(snek);
    expect(await h.datafeed.lookup('ADA.SNEK_Aggregate_Pool1', 'Aggregate')).toEqual(row);
    expect(await h.datafeed.lookup('ada.snek_aggregate_pool1', 'aggregate')).toEqual(row);
    expect(await h.datafeed.lookup(row.ticker.toUpperCase(), 'Aggregate')).toEqual(row);
    expect(await h.datafeed.lookup('ADA.SNEK_Aggregate_Pool1', 'Minswap')).toBeUndefined();
    expect(await h.datafeed.lookup('ADA.NOPE_Aggregate_Pool1', 'Aggregate')).toBeUndefined();
    await expect(h.datafeed.lookup('ADA.SNEK_Aggregate_Pool1', 'NoSuchDex')).rejects.toThrow(/NoSuchDex/);
  });
});
