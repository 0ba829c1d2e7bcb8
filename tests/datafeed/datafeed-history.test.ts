import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toLibraryResolution, toWireResolution } from '../../src/datafeed/resolution-map';
import { UdfDatafeed } from '../../src/datafeed/udf-datafeed';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import { groupsResponseSchema } from '../../src/shared/api/groups';
import { historyResponseSchema, type HistoryResponse } from '../../src/shared/api/history';
import type { Pool } from '../../src/service/market/model';
import { RESOLUTION_SECONDS, RESOLUTIONS } from '../../src/shared/resolutions';
import { asSeconds } from '../../src/shared/time';
import { ensureDefined } from '../support/ensure';
import { createTestPlatform } from '../support/platform';
import { aggregatesByActivity, busiestPools } from '../support/market';
import { createHarness, getBars, onReady, resolveSymbol, type Harness } from './harness';

let h: Harness;
let aggregate: Pool;
let aggregateInfo: LibrarySymbolInfo;
/** One past now: every bar of the market starts before it. */
let to: number;

beforeAll(async () => {
  h = await createHarness();
  aggregate = ensureDefined((await aggregatesByActivity(h.tp.runtime))[0], 'an Aggregate pool');
  aggregateInfo = await resolveSymbol(h.datafeed, aggregate.poolId);
  to = Math.floor(Date.now() / 1000) + 1;
});
afterAll(async () => h.close());

async function gatewayHistory(query: Record<string, string | number>): Promise<HistoryResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const response = await h.tp.fetch(`/gw/v1/history?${search}`);
  return historyResponseSchema.parse(await response.json());
}

const historyFetches = () => h.fetched.filter((url) => url.includes('/history?'));

describe('onReady', () => {
  it('answers asynchronously with the resolutions, the groups as exchanges and the symbol types', async () => {
    let called = false;
    const config = new Promise((resolve) => {
      h.datafeed.onReady((c) => {
        called = true;
        resolve(c);
      });
    });
    expect(called).toBe(false);
    await config;
    const configuration = await onReady(h.datafeed);
    expect(configuration.supported_resolutions).toEqual(['1', '5', '15', '60', '1D']);
    const groups = groupsResponseSchema
      .parse(await (await h.tp.fetch('/gw/v1/groups')).json())
      .d.groups.map((g) => g.id);
    const exchanges = ensureDefined(configuration.exchanges).map((e) => e.value);
    expect(exchanges).toEqual(['', ...groups]);
    expect(exchanges).toContain('Aggregate');
    expect(configuration.symbols_types?.map((t) => t.value)).toEqual(['', 'spot']);
    expect(configuration.supports_time).toBe(true);
  });

  it('gives the server time in Unix seconds from /gw/v1/info', async () => {
    const time = await new Promise<number>((resolve) => h.datafeed.getServerTime(resolve));
    expect(Number.isInteger(time)).toBe(true);
    expect(Math.abs(time - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('resolution mapping', () => {
  it('maps the library resolutions to the wire ones and back', async () => {
    expect(['1', '5', '15', '60', '1D'].map(toWireResolution)).toEqual(['1min', '5min', '15min', '60min', '1d']);
    expect(toWireResolution('D')).toBe('1d');
    expect(toWireResolution('240')).toBeUndefined();
    expect(toWireResolution('1W')).toBeUndefined();
    expect(RESOLUTIONS.map(toLibraryResolution)).toEqual(['1', '5', '15', '60', '1D']);
  });

  it.each(['1', '5', '15', '60', '1D'])(
    'asks /history for resolution %s and gets bars on its buckets, in ms',
    async (resolution) => {
      const wire = ensureDefined(toWireResolution(resolution));
      const from = to - 2 * 86_400;
      const { bars } = await getBars(h.datafeed, aggregateInfo, resolution, { from, to, countBack: 1 });
      expect(historyFetches().at(-1)).toContain(`resolution=${wire}`);
      expect(bars.length).toBeGreaterThan(0);
      for (const bar of bars) expect(bar.time % (RESOLUTION_SECONDS[wire] * 1000)).toBe(0);
    },
  );

  it('reports an unsupported resolution to onError', async () => {
    await expect(getBars(h.datafeed, aggregateInfo, '240', { from: to - 86_400, to })).rejects.toThrow(
      /Unsupported resolution "240".*1, 5, 15, 60, 1D/,
    );
  });
});

describe('resolveSymbol', () => {
  it('resolves a symbol name to a LibrarySymbolInfo from symbol_info', async () => {
    const info = await resolveSymbol(h.datafeed, aggregateInfo.name);
    expect(info).toMatchObject({
      name: aggregateInfo.name,
      ticker: aggregate.poolId,
      exchange: 'Aggregate',
      listed_exchange: 'Aggregate',
      type: 'spot',
      session: '24x7',
      timezone: 'Etc/UTC',
      format: 'price',
      minmov: 1,
      has_intraday: true,
      has_daily: true,
      supported_resolutions: ['1', '5', '15', '60', '1D'],
      data_status: 'streaming',
    });
    expect(info.name).toMatch(/^.+\..+_Aggregate_Pool1$/);
    expect(info.description).toMatch(/ on Aggregate$/);
    expect(info.currency_code).toBe(info.name.split('.')[0]);
    expect(Math.log10(info.pricescale) % 1).toBe(0);
    expect(info.volume_precision).toBe(6);
  });

  it('resolves GROUP:NAME and a bare ticker of any group to the same symbol', async () => {
    const byGroup = await resolveSymbol(h.datafeed, `Aggregate:${aggregateInfo.name}`);
    expect(byGroup.ticker).toBe(aggregate.poolId);
    const dex = (await busiestPools(h.tp.runtime)).dexPool;
    const fresh = new UdfDatafeed({ fetch: h.tp.fetch, baseUrl: '/gw/v1' });
    const byTicker = await resolveSymbol(fresh, dex.poolId.toUpperCase());
    expect(byTicker.ticker).toBe(dex.poolId);
    expect(byTicker.exchange).toBe(dex.group);
    expect(byTicker.data_status).toBeUndefined();
    expect(await resolveSymbol(fresh, `${dex.group}:${byTicker.name}`)).toEqual(byTicker);
  });

  it('reports an unknown symbol to onError with a clear message', async () => {
    await expect(resolveSymbol(h.datafeed, 'NOPE.NADA_Aggregate_Pool1')).rejects.toThrow(
      'Unknown symbol: NOPE.NADA_Aggregate_Pool1',
    );
    await expect(resolveSymbol(h.datafeed, 'abcdef01')).rejects.toThrow('Unknown symbol: abcdef01');
    await expect(resolveSymbol(h.datafeed, 'Nowhere:ADA.X_Nowhere_Pool1')).rejects.toThrow(/Unknown/);
    await expect(resolveSymbol(h.datafeed, '')).rejects.toThrow(/Unknown symbol/);
  });
});

describe('getBars', () => {
  it('returns the bars of [from, to) as /history has them, times in milliseconds, with tvl', async () => {
    const from = to - 6 * 3600;
    const { bars, meta } = await getBars(h.datafeed, aggregateInfo, '5', { from, to, countBack: 1 });
    const body = await gatewayHistory({ symbol: aggregate.poolId, resolution: '5min', from, to, include_tvl: 'true' });
    expect(bars.length).toBeGreaterThan(1);
    expect(bars).toEqual(
      body.t.map((t, i) => ({
        time: t * 1000,
        open: body.o[i],
        high: body.h[i],
        low: body.l[i],
        close: body.c[i],
        volume: body.v[i],
        tvl: body.tvl?.[i],
      })),
    );
    expect(meta?.noData).toBe(false);
  });

  it('never returns fewer than countBack bars while older history exists', async () => {
    const from = to - 10 * 60;
    const { bars } = await getBars(h.datafeed, aggregateInfo, '1', {
      from,
      to,
      countBack: 300,
      firstDataRequest: true,
    });
    expect(bars).toHaveLength(300);
    const last300 = await gatewayHistory({ symbol: aggregate.poolId, resolution: '1min', to, countback: 300 });
    expect(bars.map((b) => b.time / 1000)).toEqual(last300.t);
    expect(ensureDefined(bars.at(-1)).time).toBeLessThan(to * 1000);
  });

  it('returns the whole range when it holds more than countBack bars', async () => {
    const from = to - 2 * 86_400 - 3600;
    const { bars } = await getBars(h.datafeed, aggregateInfo, '15', { from, to, countBack: 5 });
    const all = await gatewayHistory({ symbol: aggregate.poolId, resolution: '15min', from, to });
    expect(all.t.length).toBeGreaterThan(5);
    expect(bars.map((b) => b.time / 1000)).toEqual(all.t);
  });

  it('returns all that exists, then noData once nothing earlier exists', async () => {
    const { bars, meta } = await getBars(h.datafeed, aggregateInfo, '60', { from: to - 3600, to, countBack: 100_000 });
    const first = ensureDefined(bars[0]).time / 1000;
    expect(meta?.noData).toBe(false);
    const older = await getBars(h.datafeed, aggregateInfo, '60', {
      from: first - 30 * 86_400,
      to: first,
      countBack: 300,
    });
    expect(older).toEqual({ bars: [], meta: { noData: true } });
    const empty = await getBars(h.datafeed, aggregateInfo, '60', { from: first - 86_400, to: first, countBack: 0 });
    expect(empty.meta?.noData).toBe(true);
  });

  it('shares one fetch between identical concurrent requests', async () => {
    const before = historyFetches().length;
    const params = { from: to - 3 * 3600, to: to - 7, countBack: 2 };
    const [a, b, c] = await Promise.all([
      getBars(h.datafeed, aggregateInfo, '1', params),
      getBars(h.datafeed, aggregateInfo, '1', params),
      getBars(h.datafeed, aggregateInfo, '1', params),
    ]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    // Countback first, then (the range holds more than 2 bars) the range: each fetched once for all three.
    const urls = historyFetches().slice(before);
    expect(urls).toHaveLength(2);
    expect(urls[0]).toContain('countback=2');
    expect(urls[1]).toContain(`from=${params.from}`);
  });

  it('serves DEX (non-Aggregate) symbols the same way', async () => {
    const dex = (await busiestPools(h.tp.runtime)).dexPool;
    const info = await resolveSymbol(h.datafeed, `${dex.group}:${dex.poolId}`);
    const from = to - 86_400;
    const { bars } = await getBars(h.datafeed, info, '60', { from, to, countBack: 1 });
    const body = await gatewayHistory({ symbol: dex.poolId, resolution: '60min', from, to });
    expect(bars.length).toBeGreaterThan(0);
    expect(bars.map((b) => [b.time / 1000, b.close])).toEqual(body.t.map((t, i) => [t, body.c[i]]));
  });

  it("passes the server's errmsg to onError", async () => {
    const bogus: LibrarySymbolInfo = { ...aggregateInfo, ticker: 'deadbeef', name: 'X.Y_Aggregate_Pool9' };
    await expect(getBars(h.datafeed, bogus, '1', { from: to - 3600, to, countBack: 10 })).rejects.toThrow(
      'Unknown symbol: deadbeef',
    );
  });

  it('reports a malformed answer to onError instead of throwing', async () => {
    const broken = new UdfDatafeed({
      fetch: async (input) =>
        input.includes('/history')
          ? new Response(JSON.stringify({ s: 'ok', t: [1], o: [] }), { status: 200 })
          : h.tp.fetch(input),
    });
    await expect(getBars(broken, aggregateInfo, '1', { from: to - 3600, to, countBack: 10 })).rejects.toThrow(
      /^Malformed answer from \/history: /,
    );
    const notJson = new UdfDatafeed({ fetch: async () => new Response('<html>', { status: 200 }) });
    await expect(getBars(notJson, aggregateInfo, '1', { from: to - 3600, to, countBack: 10 })).rejects.toThrow(
      /not JSON/,
    );
    const down = new UdfDatafeed({ fetch: () => Promise.reject(new TypeError('fetch failed')) });
    await expect(getBars(down, aggregateInfo, '1', { from: to - 3600, to, countBack: 10 })).rejects.toThrow(
      /unreachable.*fetch failed/,
    );
  });

  it('keeps a chart callback that throws from reaching the caller', async () => {
    const warnings: string[] = [];
    const datafeed = new UdfDatafeed({ fetch: h.tp.fetch, onWarning: (m) => warnings.push(m) });
    datafeed.getBars(
      aggregateInfo,
      '1',
      { from: asSeconds(to - 3600), to: asSeconds(to), countBack: 1, firstDataRequest: true },
      () => {
        throw new Error('chart bug');
      },
      (reason) => warnings.push(`onError: ${reason}`),
    );
    await vi.waitFor(() => expect(warnings).toEqual(['A chart callback threw: chart bug']));
  });
});

describe('refreshing symbol lists', () => {
  it('asks the gateway again after refreshSymbols (a retry after an unknown symbol)', async () => {
    const tp = await createTestPlatform({ pools: 60, days: 1 });
    const requests: string[] = [];
    const datafeed = new UdfDatafeed({
      fetch: (input, init) => {
        requests.push(String(input));
        return tp.fetch(String(input), init);
      },
      onWarning: () => {},
    });
    try {
      const resolve = (name: string) =>
        new Promise<string>((done) =>
          datafeed.resolveSymbol(
            name,
            (info) => done(info.name),
            (reason) => done(reason),
          ),
        );
      expect(await resolve('ADA.NOPE_Aggregate_Pool1')).toMatch(/^Unknown symbol/);
      const loads = () => requests.filter((u) => u.includes('/symbol_info?group=Aggregate')).length;
      const before = loads();
      await resolve('ADA.NOPE_Aggregate_Pool1');
      expect(loads()).toBe(before);
      datafeed.refreshSymbols();
      expect(await resolve('ADA.NOPE_Aggregate_Pool1')).toMatch(/^Unknown symbol/);
      expect(loads()).toBe(before + 1);
    } finally {
      datafeed.close();
      await tp.close();
    }
  });
});
