import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { historyResponseSchema } from '../../src/shared/api/history';
import { symbolInfoResponseSchema, symbolInfoRows, type SymbolInfoResponse } from '../../src/shared/api/symbol-info';
import { ALL_GROUPS, DEX_GROUPS } from '../../src/shared/groups';
import { isPoolId } from '../../src/shared/id-rules';
import { parseSymbolName } from '../../src/shared/symbols';
import { historyPath, symbolInfoPath } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

async function symbolInfo(group?: string): Promise<SymbolInfoResponse> {
  return symbolInfoResponseSchema.parse(await service.getJson(symbolInfoPath(group)));
}

describe('GET /symbol_info?group=Aggregate', () => {
  it('has one symbol per pair, named <BASE>.<QUOTE>_Aggregate_Pool1 with the Aggregate pool as ticker', async () => {
    const body = await symbolInfo('Aggregate');
    const { market } = service.runtime;
    expect(body.symbol.length).toBe(market.pairs.size);
    const rows = symbolInfoRows(body);
    const pairsSeen = new Set<string>();
    for (const row of rows) {
      const pool = ensureDefined(market.pools.get(row.ticker), `pool ${row.ticker}`);
      expect(pool.group).toBe('Aggregate');
      expect(pool.pair.aggregate).toBe(pool);
      pairsSeen.add(`${pool.pair.base.unit}|${pool.pair.quote.unit}`);
      const parsed = ensureDefined(parseSymbolName(row.symbol), row.symbol);
      expect(parsed.group).toBe('Aggregate');
      expect(parsed.poolNumber).toBe(1);
      expect(row.symbol).toBe(`${parsed.base}.${parsed.quote}_Aggregate_Pool1`);
      expect(row.description).toBe(`${parsed.base}/${parsed.quote} on Aggregate`);
      expect(row.currency).toBe(pool.pair.quote.unit);
      expect(row.baseCurrency).toBe(pool.pair.base.unit);
      expect(row.exchange).toBe('Aggregate');
      expect(body['exchange-traded']).toContain('Aggregate');
    }
    expect(pairsSeen.size).toBe(market.pairs.size);
  });

  it('names ADA pairs ADA.<QUOTE> with an empty base-currency', async () => {
    const rows = symbolInfoRows(await symbolInfo('Aggregate'));
    const snek = ensureDefined(
      rows.find((r) => r.symbol === 'ADA.SNEK_Aggregate_Pool1'),
      'ADA.SNEK',
    );
    expect(snek.description).toBe('ADA/SNEK on Aggregate');
    expect(snek.baseCurrency).toBe('');
    expect(snek.currency).toBe('279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b');
  });

  it('gives the constant columns their documented values', async () => {
    const body = await symbolInfo('Aggregate');
    expect(new Set(body.type)).toEqual(new Set(['spot']));
    expect(new Set(body.timezone)).toEqual(new Set(['Etc/UTC']));
    expect(new Set(body['session-regular'])).toEqual(new Set(['24x7']));
    expect(new Set(body['has-intraday'])).toEqual(new Set([true]));
    for (const scale of body.pricescale) expect(Math.log10(scale) % 1).toBe(0);
    for (const move of body.minmovement) expect(move).toBeGreaterThan(0);
  });

  it('answers tickers in lowercase hex, each usable as /history symbol', async () => {
    const body = await symbolInfo('Aggregate');
    const to = service.clock.seconds();
    for (const ticker of body.ticker.slice(0, 5)) {
      expect(isPoolId(ticker)).toBe(true);
      expect(ticker).toBe(ticker.toLowerCase());
      historyResponseSchema.parse(
        await service.getJson(historyPath({ symbol: ticker, resolution: '1d', from: to - 3 * 86_400, to })),
      );
    }
  });
});

describe('GET /symbol_info per DEX group', () => {
  it('numbers the pools of a pair within a group Pool1, Pool2, ... in order of creation', async () => {
    const { market } = service.runtime;
    let total = 0;
    for (const group of DEX_GROUPS) {
      const rows = symbolInfoRows(await symbolInfo(group));
      total += rows.length;
      const byPair = new Map<string, number[]>();
      for (const row of rows) {
        const pool = ensureDefined(market.pools.get(row.ticker));
        expect(pool.group).toBe(group);
        expect(row.exchange).toBe(group);
        const parsed = ensureDefined(parseSymbolName(row.symbol), row.symbol);
        expect(parsed.group).toBe(group);
        expect(parsed.poolNumber).toBe(pool.n);
        expect(row.description).toBe(`${parsed.base}/${parsed.quote} on ${group}`);
        const key = `${pool.pair.id}`;
        byPair.set(key, [...(byPair.get(key) ?? []), pool.n]);
        // Creation order: a pool numbered n was created after the pair's pools numbered below n in the group.
        const earlier = pool.pair.pools.filter((p) => p.group === group && p.n < pool.n);
        for (const p of earlier) expect(p.id).toBeLessThan(pool.id);
      }
      for (const numbers of byPair.values())
        expect([...numbers].sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
    }
    expect(total).toBe(market.pools.size - market.pairs.size);
  });

  it('gives the Aggregate pool of a pair the sum of its DEX pools', async () => {
    const rows = symbolInfoRows(await symbolInfo('Aggregate'));
    const { market } = service.runtime;
    for (const row of rows.slice(0, 10)) {
      const pool = ensureDefined(market.pools.get(row.ticker));
      const sumBase = pool.pair.pools.reduce((s, p) => s + p.baseReserve, 0);
      expect(pool.baseReserve).toBeCloseTo(sumBase, 0);
    }
  });
});

describe('GET /symbol_info without group', () => {
  it('covers every pool of every group, with unique symbols and tickers', async () => {
    const body = await symbolInfo();
    const { market } = service.runtime;
    expect(body.symbol.length).toBe(market.pools.size);
    expect(new Set(body.symbol).size).toBe(body.symbol.length);
    expect(new Set(body.ticker).size).toBe(body.ticker.length);
    const perGroup = new Set<string>();
    for (const group of ALL_GROUPS) for (const ticker of (await symbolInfo(group)).ticker) perGroup.add(ticker);
    expect(new Set(body.ticker)).toEqual(perGroup);
  });

  it('gives every symbol a name of the documented shape, a matching description and lowercase hex identifiers', async () => {
    const rows = symbolInfoRows(await symbolInfo());
    for (const row of rows) {
      const parsed = ensureDefined(parseSymbolName(row.symbol), row.symbol);
      expect(parsed.group).toBe(row.exchange);
      expect(row.description).toBe(`${parsed.base}/${parsed.quote} on ${row.exchange}`);
      for (const hex of [row.ticker, row.currency, row.baseCurrency]) expect(hex).toBe(hex.toLowerCase());
    }
  });

  it('lets /history find a pool by its symbol name as well as by its ticker', async () => {
    const body = await symbolInfo('Aggregate');
    const to = service.clock.seconds();
    const byName = await service.getJson(
      historyPath({ symbol: ensureDefined(body.symbol[0]), resolution: '60min', from: to - 86_400, to }),
    );
    const byTicker = await service.getJson(
      historyPath({ symbol: ensureDefined(body.ticker[0]), resolution: '60min', from: to - 86_400, to }),
    );
    expect(byName).toEqual(byTicker);
  });
});

describe('GET /symbol_info transfer', () => {
  it('gzips the body when the client accepts gzip', async () => {
    const plain = await service.request(symbolInfoPath());
    const plainText = await plain.text();
    const zipped = await service.request(symbolInfoPath(), { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('Content-Encoding')).toBe('gzip');
    expect(zipped.headers.get('Vary')).toMatch(/Accept-Encoding/);
    const bytes = Buffer.from(await zipped.arrayBuffer());
    expect(bytes.length).toBeLessThan(plainText.length / 3);
    expect(gunzipSync(bytes).toString('utf8')).toBe(plainText);
    expect(plain.headers.get('Content-Encoding')).toBeNull();
  });

  it('does not gzip when the client refuses gzip with q=0 or does not list it', async () => {
    for (const header of ['gzip;q=0', 'identity', 'br', 'gzipx']) {
      const response = await service.request(symbolInfoPath('VyFi'), { headers: { 'Accept-Encoding': header } });
      expect(response.headers.get('Content-Encoding'), header).toBeNull();
      symbolInfoResponseSchema.parse(await response.json());
    }
  });

  it('answers 304 with no body to a matching If-None-Match, and 200 to a stale one', async () => {
    const first = await service.request(symbolInfoPath('Minswap'));
    const etag = ensureDefined(first.headers.get('ETag'), 'ETag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await service.request(symbolInfoPath('Minswap'), { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('ETag')).toBe(etag);
    expect(await again.text()).toBe('');
    const stale = await service.request(symbolInfoPath('Minswap'), { headers: { 'If-None-Match': '"stale"' } });
    expect(stale.status).toBe(200);
    const other = await service.request(symbolInfoPath('VyFi'));
    expect(other.headers.get('ETag')).not.toBe(etag);
  });

  it('answers 304 to an If-None-Match list or weak form that holds the current ETag', async () => {
    const etag = ensureDefined((await service.request(symbolInfoPath('Splash'))).headers.get('ETag'));
    const listed = await service.request(symbolInfoPath('Splash'), {
      headers: { 'If-None-Match': `"other", ${etag}` },
    });
    expect(listed.status).toBe(304);
    const weak = await service.request(symbolInfoPath('Splash'), { headers: { 'If-None-Match': `W/${etag}` } });
    expect(weak.status).toBe(304);
    const star = await service.request(symbolInfoPath('Splash'), { headers: { 'If-None-Match': '*' } });
    expect(star.status).toBe(304);
  });
});

describe('GET /symbol_info group names', () => {
  it('matches the group name without regard to case, answering the canonical name', async () => {
    expect(await symbolInfo('aggregate')).toEqual(await symbolInfo('Aggregate'));
    expect(new Set((await symbolInfo('MINSWAPV2'))['exchange-listed'])).toEqual(new Set(['MinswapV2']));
  });
});

describe('GET /symbol_info on a market that changes', () => {
  it("lists a new pool at once, numbered after the pair's pools in its group, under a new ETag", async () => {
    const { market } = service.runtime;
    const { ingestor } = runtimeInternals(service.runtime);
    const before = await service.request(symbolInfoPath('Minswap'));
    const etag = ensureDefined(before.headers.get('ETag'));
    const known = symbolInfoResponseSchema.parse(await before.json());
    const existing = ensureDefined(market.pools.get(ensureDefined(known.ticker[0])));
    const pair = existing.pair;
    const inGroup = pair.pools.filter((p) => p.group === 'Minswap').length;
    const poolId = 'ab'.repeat(28);
    ingestor.addPool(pair, {
      poolId,
      group: 'Minswap',
      baseReserve: existing.baseReserve,
      quoteReserve: existing.quoteReserve,
      feeBps: 30,
      simulated: false,
    });
    await ingestor.commit();

    const after = await service.request(symbolInfoPath('Minswap'), { headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('ETag')).not.toBe(etag);
    const rows = symbolInfoRows(symbolInfoResponseSchema.parse(await after.json()));
    const row = ensureDefined(rows.find((r) => r.ticker === poolId));
    expect(parseSymbolName(row.symbol)?.poolNumber).toBe(inGroup + 1);
    expect(row.symbol.endsWith(`_Minswap_Pool${inGroup + 1}`)).toBe(true);
  });
});

describe('GET /symbol_info errors', () => {
  it('answers 404 {"s":"error"} to an unknown group', async () => {
    const response = await service.request(symbolInfoPath('NoSuchDex'));
    expect(response.status).toBe(404);
    const body = priceErrorSchema.parse(await response.json());
    expect(body.errmsg).toContain('NoSuchDex');
  });

  it('answers 400 {"s":"error"} to an empty group', async () => {
    const response = await service.request(symbolInfoPath(''));
    expect(response.status).toBe(400);
    priceErrorSchema.parse(await response.json());
  });
});
