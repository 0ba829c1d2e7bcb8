import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UdfDatafeed } from '../../src/datafeed';
import { PairSearchIndex } from '../../src/app/features/search/lib/pair-search-index';
import { assetFingerprint } from '../../src/shared/fingerprint';
import { splitTokenUnit } from '../../src/shared/ids';
import { ensureDefined } from '../support/ensure';
import { createTestPlatform, type TestPlatform } from '../support/platform';

let tp: TestPlatform;
let datafeed: UdfDatafeed;
let index: PairSearchIndex;

beforeAll(async () => {
  tp = createTestPlatform();
  datafeed = new UdfDatafeed({ fetch: tp.fetch, onWarning: () => {} });
  index = new PairSearchIndex(await datafeed.search('', undefined, Number.MAX_SAFE_INTEGER));
});
afterAll(() => {
  datafeed.close();
  tp.close();
});

describe('PairSearchIndex', () => {
  it('indexes every symbol of every group', async () => {
    const groups = ['Aggregate', 'Minswap', 'MinswapV2', 'SundaeSwap', 'SundaeSwapV3', 'WingRiders', 'WingRidersV2', 'Spectrum', 'Splash', 'MuesliSwap', 'VyFi'];
    let total = 0;
    for (const group of groups) total += (await datafeed.search('', group, 1_000_000)).length;
    expect(index.size).toBe(total);
    expect(index.find('ada.snek_aggregate_pool1')?.symbol).toBe('ADA.SNEK_Aggregate_Pool1');
  });

  it('answers exactly as the datafeed search, for every kind of query and limit', async () => {
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
    ];
    for (const limit of [1, 7, 50, 5000]) {
      for (const query of queries) {
        const expected = (await datafeed.search(query, undefined, limit)).map((r) => r.symbol);
        expect(index.search(query, limit).map((r) => r.symbol), `"${query}" limit ${limit}`).toEqual(expected);
      }
    }
  });

  it('returns nothing for a zero limit', () => {
    expect(index.search('snek', 0)).toEqual([]);
  });
});
