import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGO_NONE } from '../../src/service/market/model';
import { Random } from '../../src/service/market/random';
import { SymbolNames } from '../../src/service/market/symbols';
import { openMarket } from '../../src/service/open-market';
import { runtimeInternals } from '../../src/service/runtime-internals';
import { symbolInfoResponseSchema, symbolInfoRows } from '../../src/shared/api/symbol-info';
import { parseSymbolName } from '../../src/shared/symbols';
import { hasInvisible, lookAlikeKey } from '../../src/shared/visible-text';
import { addUnknownTokenPool } from '../support/ada-pools';
import { importLookAlikes, LOOK_ALIKE_DAY as DAY, LOOK_ALIKES, lookAlikeUnit as unitOf } from '../support/look-alikes';
import { createTestService, type TestService } from '../support/service';

/**
 * Symbol names are unambiguous (issue 29): the look-alikes of SNEK (a zero-width space, a word joiner,
 * a right-to-left override, full-width letters...) and two tokens whose policy IDs share their first
 * hex digits each get a name of their own that shows as different, and a request by name answers for
 * the pool symbol_info lists under it.
 */

let root: string;
let service: TestService;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'symbol-names-'));
  const dataDir = join(root, 'data');
  await importLookAlikes(dataDir);
  service = await createTestService({ dataDir, env: { SOURCE: 'none' }, startMs: (DAY + 86_400) * 1000 });
});
afterAll(async () => {
  await service.close();
  rmSync(root, { recursive: true, force: true });
});

async function symbols(): Promise<{ symbol: string; ticker: string; description: string; currency: string }[]> {
  return symbolInfoRows(symbolInfoResponseSchema.parse(await service.getJson('/api/v1/symbol_info?group=MinswapV2')));
}

describe('symbol names of look-alike tokens', () => {
  it('write out invisible and bidi-control characters, and suffix every ticker that looks like one before it', async () => {
    const rows = await symbols();
    for (const { unit, shown } of LOOK_ALIKES) {
      const row = rows.find((r) => r.currency === unit);
      expect(row?.symbol, unit).toBe(`ADA.${shown}_MinswapV2_Pool1`);
      expect(row?.description, unit).toBe(`ADA/${shown} on MinswapV2`);
      expect(hasInvisible(row?.symbol ?? '')).toBe(false);
    }
  });

  it('never give two pools one name, nor two names that look alike', async () => {
    const rows = await symbols();
    expect(new Set(rows.map((r) => r.symbol)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => lookAlikeKey(r.symbol))).size).toBe(rows.length);
  });

  it('answer a request by name for the pool symbol_info lists under it', async () => {
    for (const row of await symbols()) {
      const query = (symbol: string) =>
        `/api/v1/history?symbol=${encodeURIComponent(symbol)}&resolution=1d&from=${DAY}&to=${DAY + 86_400}`;
      const byName = await service.getJson(query(row.symbol));
      expect(byName, row.symbol).toEqual(await service.getJson(query(row.ticker)));
      expect((byName as { c: number[] }).c.length).toBe(1);
    }
  });
});

describe('SymbolNames, on random adversarial markets', () => {
  /** Characters of look-alike tickers: letters, their full-width and Cyrillic twins, invisibles, bidi controls, separators. */
  const ALPHABET = [
    'S',
    'N',
    'E',
    'K',
    's',
    'Ｓ',
    'Ｎ',
    'Е',
    '\u200B',
    '\u2060',
    '\u202E',
    '\u2066',
    '\uFEFF',
    '\u00AD',
    '.',
    '_',
    ' ',
    '-',
    '\\',
    'u',
    '2',
    '0',
    'B',
  ];

  it('name every pool once and find each pool by its name, as 150 adversarial tokens arrive one by one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'symbol-names-random-'));
    const handle = await openMarket(dir, 'test');
    try {
      const { ingestor } = handle;
      const ada = ingestor.addToken({ unit: '', ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: LOGO_NONE });
      const names = new SymbolNames(handle.market);
      const random = new Random(29);
      const pick = (n: number) => random.int(n);
      for (let made = 0; made < 150; made++) {
        // Units share a prefix of 0 to 60 hex digits with one of a few others: suffixes must grow past it.
        const prefix = unitOf((made % 7) + 1).slice(0, pick(61));
        const unit = `${prefix}${(made + 0x10000).toString(16)}`.padEnd(64, '0');
        const ticker = Array.from({ length: 1 + pick(6) }, () => ALPHABET[pick(ALPHABET.length)] ?? '').join('');
        const token = ingestor.addToken({ unit, ticker, name: ticker, decimals: 0, logoKind: LOGO_NONE });
        ingestor.addPool(ingestor.ensurePair(ada, token), {
          poolId: (made + 0x1000).toString(16),
          group: 'MinswapV2',
          baseReserve: 1,
          quoteReserve: 1,
          feeBps: 30,
          simulated: false,
        });
        const pools = [...handle.market.pools.values()];
        expect(new Set(pools.map((pool) => names.name(pool))).size).toBe(pools.length);
        const tickers = [...handle.market.tokens.values()].map((t) => names.ticker(t));
        expect(new Set(tickers.map(lookAlikeKey)).size, tickers.join(' ')).toBe(tickers.length);
        for (const pool of pools) {
          const name = names.name(pool);
          expect(names.find(name), name).toBe(pool);
          expect(hasInvisible(name)).toBe(false);
          expect(parseSymbolName(name)?.quote).toBe(names.ticker(pool.pair.quote));
        }
      }
      expect(handle.market.tokens.size).toBe(151);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a look-alike that came first', () => {
  const REAL = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
  const FAKE = `${'7a'.repeat(28)}4d494e`;
  let market: TestService;
  beforeAll(async () => {
    market = await createTestService({ env: { SOURCE: 'none' }, startMs: 1_718_000_000_000 });
  });
  afterAll(async () => {
    await market.close();
  });

  it('gives up the plain ticker once the real token is vouched for by a source', async () => {
    const { ingestor } = runtimeInternals(market.runtime);
    // Both known by their asset name only: the look-alike, first, has the plain ticker.
    for (const [unit, byte] of [
      [FAKE, 'f1'],
      [REAL, 'f2'],
    ] as const)
      addUnknownTokenPool(ingestor, { unit, ticker: 'MIN', poolId: byte.repeat(28), lovelace: 1e12, tokens: 3e13 });
    await ingestor.commit();
    const names = async () => {
      const rows = symbolInfoRows(
        symbolInfoResponseSchema.parse(await market.getJson('/api/v1/symbol_info?group=MinswapV2')),
      );
      return Object.fromEntries(rows.map((r) => [r.currency, r.symbol]));
    };
    expect(await names()).toEqual({ [FAKE]: 'ADA.MIN_MinswapV2_Pool1', [REAL]: 'ADA.MIN-29d222_MinswapV2_Pool1' });
    // The registry names the real MIN: it takes the plain ticker, the look-alike is told apart by its policy.
    ingestor.setIdentity({ unit: REAL, source: 'registry', name: 'Minswap', ticker: 'MIN', decimals: 6, at: 1 });
    await ingestor.commit();
    expect(await names()).toEqual({ [REAL]: 'ADA.MIN_MinswapV2_Pool1', [FAKE]: 'ADA.MIN-7a7a7a_MinswapV2_Pool1' });
  });
});
