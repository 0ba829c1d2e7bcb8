import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { historyResponseSchema } from '../../src/shared/api/history';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { udfQuotesResponseSchema } from '../../src/shared/api/udf';
import { ensureDefined } from '../support/ensure';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';

/**
 * /udf speaks TradingView's UDF protocol as its documentation describes it (the stock
 * UDFCompatibleDatafeed's requests and the answers it reads), over the same market as /api/v1.
 */
let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

const json = async (path: string) => {
  const response = await service.request(path);
  return { status: response.status, body: (await response.json()) as unknown };
};

const configSchema = z.object({
  supported_resolutions: z.array(z.string()).min(1),
  supports_group_request: z.boolean(),
  supports_marks: z.boolean(),
  supports_search: z.boolean(),
  supports_timescale_marks: z.boolean(),
  supports_time: z.boolean(),
  exchanges: z.array(z.object({ value: z.string(), name: z.string(), desc: z.string() })),
  symbols_types: z.array(z.object({ name: z.string(), value: z.string() })),
});

const symbolSchema = z.object({
  name: z.string(),
  ticker: z.string(),
  description: z.string(),
  type: z.string(),
  session: z.string(),
  exchange: z.string(),
  listed_exchange: z.string(),
  timezone: z.string(),
  minmov: z.number(),
  pricescale: z.number().int().positive(),
  has_intraday: z.boolean(),
  supported_resolutions: z.array(z.string()),
});

describe('TradingView UDF routes', () => {
  it('/config describes resolutions in TradingView’s names, search, time and the DEXs as exchanges', async () => {
    const { status, body } = await json('/udf/config');
    expect(status).toBe(200);
    const config = configSchema.parse(body);
    expect(config.supported_resolutions).toEqual(['1', '5', '15', '60', '1D']);
    expect(config.supports_search && config.supports_time).toBe(true);
    expect(config.exchanges.map((e) => e.value)).toContain('MinswapV2');
  });

  it('/time is the server clock in Unix seconds, as plain text', async () => {
    const response = await service.request('/udf/time');
    expect(await response.text()).toBe(String(service.clock.seconds()));
  });

  it('/symbols resolves a name, an EXCHANGE:name and a ticker to the same symbol; unknown is an error object', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const byTicker = symbolSchema.parse((await json(`/udf/symbols?symbol=${aggregate.poolId}`)).body);
    expect(byTicker.ticker).toBe(aggregate.poolId);
    expect(byTicker.exchange).toBe('Aggregate');
    expect(symbolSchema.parse((await json(`/udf/symbols?symbol=${encodeURIComponent(byTicker.name)}`)).body)).toEqual(
      byTicker,
    );
    expect(
      symbolSchema.parse((await json(`/udf/symbols?symbol=${encodeURIComponent(`Aggregate:${byTicker.name}`)}`)).body),
    ).toEqual(byTicker);
    const unknown = await json('/udf/symbols?symbol=NOPE.NOPE_Minswap_Pool1');
    expect(unknown.status).toBe(404);
    expect(priceErrorSchema.parse(unknown.body).errmsg).toBe('unknown_symbol');
  });

  it('/search finds symbols by part of the name, filtered by exchange, within the limit', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const quote = aggregate.pair.quote.ticker;
    const found = z
      .array(
        z.object({
          symbol: z.string(),
          full_name: z.string(),
          description: z.string(),
          exchange: z.string(),
          ticker: z.string(),
          type: z.string(),
        }),
      )
      .parse((await json(`/udf/search?query=${quote.toLowerCase()}&type=&exchange=Aggregate&limit=5`)).body);
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThanOrEqual(5);
    expect(found.every((s) => s.exchange === 'Aggregate' && s.symbol.toLowerCase().includes(quote.toLowerCase()))).toBe(
      true,
    );
    expect(found[0]?.full_name).toBe(`Aggregate:${found[0]?.symbol}`);
  });

  it('/history answers the same bars as /api/v1/history, in TradingView’s resolution names', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const to = service.clock.seconds();
    const from = to - 86_400;
    for (const [udf, ours] of [
      ['1', '1min'],
      ['60', '60min'],
      ['1D', '1d'],
    ] as const) {
      const mine = historyResponseSchema.parse(
        (await json(`/udf/history?symbol=${aggregate.poolId}&resolution=${udf}&from=${from}&to=${to}`)).body,
      );
      const spec = historyResponseSchema.parse(
        await service.getJson(`${API}/history?symbol=${aggregate.poolId}&resolution=${ours}&from=${from}&to=${to}`),
      );
      expect(mine).toEqual(spec);
      expect(mine.t.length).toBeGreaterThan(0);
    }
  });

  it('/history gives countback bars before `to`, and no_data with nextTime for an empty range', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const to = service.clock.seconds();
    const last = historyResponseSchema.parse(
      (await json(`/udf/history?symbol=${aggregate.poolId}&resolution=60&from=${to - 60}&to=${to}&countback=5`)).body,
    );
    expect(last.t.length).toBe(5);
    const lastBar = ensureDefined(last.t.at(-1));
    const empty = (
      await json(`/udf/history?symbol=${aggregate.poolId}&resolution=60&from=${to + 3600}&to=${to + 7200}`)
    ).body;
    expect(empty).toEqual({ s: 'no_data', nextTime: lastBar });
    const before = (await json(`/udf/history?symbol=${aggregate.poolId}&resolution=1D&from=0&to=86400`)).body;
    expect(before).toEqual({ s: 'no_data' });
  });

  it('/symbol_info answers a group request as /api/v1/symbol_info does; a group is required and must exist', async () => {
    const udf = await json('/udf/symbol_info?group=minswapv2');
    expect(udf.status).toBe(200);
    expect(udf.body).toEqual((await json(`${API}/symbol_info?group=MinswapV2`)).body);
    // UDF's group answer: a symbol array and the columns TradingView reads from it.
    expect(Array.isArray((udf.body as { symbol: unknown }).symbol)).toBe(true);
    expect((await json('/udf/symbol_info')).status).toBe(400);
    const unknown = await json('/udf/symbol_info?group=NYSE');
    expect(unknown.status).toBe(404);
    expect(priceErrorSchema.parse(unknown.body).errmsg).toMatch(/unknown group NYSE/);
  });

  it('/quotes answers each symbol as sent, in order: the price now and its last 24 hours, as /tokens/current and the minute bars give them', async () => {
    const { aggregate, dexPool } = await busiestPools(service.runtime);
    const dexName = symbolSchema.parse((await json(`/udf/symbols?symbol=${dexPool.poolId}`)).body).name;
    const asked = [aggregate.poolId, `${dexPool.group}:${dexName}`, 'NOPE:NOPE.NOPE_Minswap_Pool1', aggregate.poolId];
    const { status, body } = await json(`/udf/quotes?symbols=${asked.map(encodeURIComponent).join(',')}`);
    expect(status).toBe(200);
    const quotes = udfQuotesResponseSchema.parse(body);
    expect(quotes.d.map((q) => [q.s, q.n])).toEqual([
      ['ok', asked[0]],
      ['ok', asked[1]],
      ['error', asked[2]],
      ['ok', asked[3]],
    ]);
    const now = service.clock.seconds();
    for (const [i, pool] of [
      [0, aggregate],
      [1, dexPool],
    ] as const) {
      const quote = ensureDefined(quotes.d[i]);
      if (quote.s !== 'ok') throw new Error('expected a quote');
      const stats = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool.poolId}`));
      expect(quote.v.lp).toBe(stats.current_price);
      expect(quote.v.volume).toBeCloseTo(stats.daily_volume, 9);
      expect(quote.v.chp).toBeCloseTo(stats.daily_price_change, 9);
      expect(quote.v.ch).toBeCloseTo(quote.v.lp - quote.v.open_price, 12);
      expect(quote.v.prev_close_price).toBe(quote.v.open_price);
      expect(quote.v.exchange).toBe(pool.group);
      // High and low over the window: every minute bar in it, the opening price and the price now.
      const start = Math.ceil((now - 86_400) / 60) * 60;
      const minutes = historyResponseSchema.parse(
        await service.getJson(`${API}/history?symbol=${pool.poolId}&resolution=1min&from=${start}&to=${now + 1}`),
      );
      expect(minutes.t.length).toBeGreaterThan(0);
      const highs = [...minutes.h.map(Number), quote.v.open_price, quote.v.lp];
      const lows = [...minutes.l.map(Number), quote.v.open_price, quote.v.lp];
      expect(quote.v.high_price).toBeCloseTo(Math.max(...highs), 12);
      expect(quote.v.low_price).toBeCloseTo(Math.min(...lows), 12);
      expect(quote.v.high_price).toBeGreaterThan(quote.v.low_price);
    }
    expect(quotes.d[3]).toEqual(quotes.d[0]);
  });

  it('/quotes refuses a request without symbols, with an empty name or with more than 100, naming why', async () => {
    for (const [path, message] of [
      ['/udf/quotes', /symbols is required/],
      ['/udf/quotes?symbols=', /symbols is required/],
      ['/udf/quotes?symbols=a,,b', /empty name/],
      [`/udf/quotes?symbols=${Array.from({ length: 101 }, (_, i) => `S${i}`).join(',')}`, /at most 100 symbols .*101/],
    ] as const) {
      const { status, body } = await json(path);
      expect(status, path).toBe(400);
      expect(priceErrorSchema.parse(body).errmsg).toMatch(message);
    }
    const hundred = await json(`/udf/quotes?symbols=${Array.from({ length: 100 }, (_, i) => `S${i}`).join(',')}`);
    expect(hundred.status).toBe(200);
    expect(udfQuotesResponseSchema.parse(hundred.body).d.every((q) => q.s === 'error')).toBe(true);
  });

  it('answers bad requests with s: "error" and errmsg, and needs the same key as /api/v1', async () => {
    const bad = await json('/udf/history?symbol=x&resolution=7&from=0&to=1');
    expect(bad.status).toBe(400);
    expect(priceErrorSchema.parse(bad.body).errmsg).toMatch(/resolution must be one of 1, 5, 15, 60, 1D/);
    const anonymous = await service.request('/udf/config', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('WWW-Authenticate')).toBe('Bearer');
    expect((await service.request('/udf/config')).headers.get('RateLimit-Limit')).not.toBeNull();
  });
});
