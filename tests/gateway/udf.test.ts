import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { udfQuotesResponseSchema } from '../../src/shared/api/udf';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * TradingView's stock UDF adapter in a browser, pointed at the gateway's `/gw/v1/udf`: it sends no
 * header at all (its Requester has none; `credentials: 'same-origin'`), builds each URL as
 * `<datafeedURL>/<route>?<key>=<value>&...` in its own parameter order, and reads every answer with
 * `JSON.parse(await response.text())`. This replays its requests (UDFCompatibleDatafeedBase: config,
 * time, search, symbols, history with countback, an empty range) exactly so, and reads the answers as
 * it does: the key stays in the gateway.
 */
let tp: TestPlatform;
beforeAll(async () => {
  tp = await createTestPlatform();
});
afterAll(async () => tp?.close());

const DATAFEED_URL = '/gw/v1/udf';

/** The stock Requester's sendRequest: no headers, its own query encoding, JSON.parse of the text. */
async function sendRequest(
  fetchImpl: (input: string, init?: RequestInit) => Promise<Response>,
  urlPath: string,
  params?: Record<string, string | number>,
) {
  let path = urlPath;
  if (params !== undefined) {
    const keys = Object.keys(params);
    if (keys.length !== 0) path += '?';
    path += keys.map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(String(params[key]))}`).join('&');
  }
  const response = await fetchImpl(`${DATAFEED_URL}/${path}`, { credentials: 'same-origin' });
  return { status: response.status, body: JSON.parse(await response.text()) as Record<string, unknown> & unknown[] };
}

describe("TradingView's stock UDF adapter against the gateway", () => {
  it('gets the configuration, the time, a search, a symbol and its bars without sending any key', async () => {
    const fetchImpl = (input: string, init?: RequestInit) => tp.fetch(input, init);
    const config = await sendRequest(fetchImpl, 'config');
    expect(config.status).toBe(200);
    // Search, not group requests: the adapter's group mode asks fixed exchange names (NYSE, FOREX, AMEX).
    expect(config.body).toMatchObject({ supports_search: true, supports_group_request: false, supports_time: true });
    const time = await fetchImpl(`${DATAFEED_URL}/time`);
    expect(Math.abs(Number.parseInt(await time.text(), 10) - Date.now() / 1000)).toBeLessThan(60);

    // searchSymbols: limit, query upper-cased, type, exchange.
    const search = await sendRequest(fetchImpl, 'search', {
      limit: 30,
      query: 'ADA.',
      type: '',
      exchange: 'Aggregate',
    });
    expect(search.status).toBe(200);
    expect(search.body.length).toBeGreaterThan(0);
    const first = search.body[0] as { symbol: string; full_name: string; ticker: string; exchange: string };
    expect(first.exchange).toBe('Aggregate');

    // resolveSymbol without group requests: symbols?symbol=<the name the chart asks for>.
    const resolved = await sendRequest(fetchImpl, 'symbols', { symbol: first.full_name });
    expect(resolved.status).toBe(200);
    expect(resolved.body.s).toBeUndefined();
    const info = resolved.body as unknown as {
      ticker: string;
      name: string;
      pricescale: number;
      supported_resolutions: string[];
    };
    expect(info.ticker).toBe(first.ticker);
    expect(info.supported_resolutions).toContain('60');

    // getBars: symbol = the ticker, resolution, from, to, countback (its order).
    const to = Math.floor(Date.now() / 1000);
    const history = await sendRequest(fetchImpl, 'history', {
      symbol: info.ticker,
      resolution: '60',
      from: to - 86_400,
      to,
      countback: 48,
    });
    expect(history.status).toBe(200);
    expect(history.body.s).toBe('ok');
    const bars = history.body as unknown as {
      t: number[];
      o: string[];
      h: string[];
      l: string[];
      c: string[];
      v: string[];
    };
    expect(bars.t.length).toBeGreaterThanOrEqual(24);
    // As the adapter reads them: time in ms, prices by parseFloat.
    for (let i = 0; i < bars.t.length; i++) {
      const bar = {
        time: (bars.t[i] ?? 0) * 1000,
        open: Number.parseFloat(String(bars.o[i])),
        high: Number.parseFloat(String(bars.h[i])),
        low: Number.parseFloat(String(bars.l[i])),
        close: Number.parseFloat(String(bars.c[i])),
      };
      expect(bar.high).toBeGreaterThanOrEqual(Math.max(bar.open, bar.close));
      expect(bar.low).toBeLessThanOrEqual(Math.min(bar.open, bar.close));
    }

    // An empty range before the market existed: no_data, with nextTime where the data before it ends (none here).
    // The adapter sends countback=0 for a range without countback (running it found that).
    const empty = await sendRequest(fetchImpl, 'history', {
      symbol: info.ticker,
      resolution: '1D',
      from: 1_000_000,
      to: 2_000_000,
      countback: 0,
    });
    expect(empty.body).toEqual({ s: 'no_data' });
    const range = await sendRequest(fetchImpl, 'history', {
      symbol: info.ticker,
      resolution: '60',
      from: to - 6 * 3600,
      to,
      countback: 0,
    });
    expect((range.body as unknown as { t: number[] }).t.length).toBeGreaterThanOrEqual(5);
    expect((range.body as unknown as { t: number[] }).t.length).toBeLessThanOrEqual(7);
    const unknown = await sendRequest(fetchImpl, 'symbols', { symbol: 'NOPE:NOPE' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.s).toBe('error');
  });

  it("gets a watchlist's quotes in one request, as the adapter's getQuotes sends the symbols (an array, comma-joined)", async () => {
    const fetchImpl = (input: string, init?: RequestInit) => tp.fetch(input, init);
    const found = await sendRequest(fetchImpl, 'search', { query: '', type: '', exchange: 'Aggregate', limit: 3 });
    const symbols = (found.body as unknown as { full_name: string }[]).map((s) => s.full_name);
    expect(symbols).toHaveLength(3);
    const quotes = await sendRequest(fetchImpl, 'quotes', { symbols: String([...symbols, 'NOPE:NOPE']) });
    expect(quotes.status).toBe(200);
    const body = udfQuotesResponseSchema.parse(quotes.body);
    expect(body.d.map((q) => q.n)).toEqual([...symbols, 'NOPE:NOPE']);
    expect(body.d.map((q) => q.s)).toEqual(['ok', 'ok', 'ok', 'error']);
    for (const q of body.d.slice(0, 3)) if (q.s === 'ok') expect(q.v.lp).toBeGreaterThan(0);
  });

  it("passes the upstream's own 404 on when the upstream has no /udf (the hosted API), in the UDF error shape", async () => {
    let server: ServerProcess | undefined;
    let gateway: Gateway | undefined;
    try {
      server = await startServerProcess({
        args: ['--pools', '60', '--days', '0.2', '--spec-only'],
        env: { TOKEN_API_KEYS: 'udf-spec-only-key-01:pro' },
      });
      gateway = createGateway({
        config: DEFAULT_GATEWAY_CONFIG,
        upstream: remoteUpstream(server.origin, 'udf-spec-only-key-01'),
      });
      const g = gateway;
      const config = await sendRequest((input, init) => Promise.resolve(g.app.request(input, init)), 'config');
      expect(config.status).toBe(404);
      expect(priceErrorSchema.parse(config.body).errmsg).toMatch(/Unknown endpoint/);
    } finally {
      gateway?.close();
      await server?.stop();
    }
  }, 60_000);
});
