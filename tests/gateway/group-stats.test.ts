import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { groupStatsSchema, type GroupStats } from '../../src/shared/api/extensions';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { createTestService, type TestService } from '../support/service';
import { serveLoopback, type Loopback } from './support/loopback';

/**
 * GET /gw/v1/group-stats: the service's /api/x/group-stats forwarded (embedded, or a remote service
 * with our routes), or derived from spec endpoints over a service without them: the rows from
 * symbol_info, the numbers of the rows a browser shows from /tokens/current, paced.
 */

const parse = async (response: Response): Promise<GroupStats> => {
  expect(response.status).toBe(200);
  return groupStatsSchema.parse(await response.json());
};

describe('over the embedded service', () => {
  let tp: TestPlatform;
  beforeAll(async () => {
    tp = await createTestPlatform({ pools: 120, days: 0.5 });
  });
  afterAll(async () => tp.close());

  it('forwards the service’s answer, the named pools too, and refuses bad input itself', async () => {
    const body = await parse(await tp.fetch('/gw/v1/group-stats?group=Aggregate'));
    const info = symbolInfoResponseSchema.parse(await (await tp.fetch('/gw/v1/symbol_info?group=Aggregate')).json());
    expect(body.complete).toBe(true);
    expect([...body.ticker].sort()).toEqual([...info.ticker].sort());
    const stats = tokenStatsSchema.parse(await (await tp.fetch(`/gw/v1/tokens/current?pool=${body.ticker[2]}`)).json());
    expect([body.price[2], body.tvl[2], body.change_24h[2], body.volume_24h[2]]).toEqual([
      stats.current_price,
      stats.current_tvl,
      stats.daily_price_change,
      stats.daily_volume,
    ]);
    const two = await parse(
      await tp.fetch(
        `/gw/v1/group-stats?group=aggregate&pools=${body.ticker[5]},${String(body.ticker[1]).toUpperCase()}`,
      ),
    );
    expect(two.ticker).toEqual([body.ticker[1], body.ticker[5]]);
    for (const [query, status] of [
      ['', 400],
      ['group=Aggregate&pools=xyz', 400],
      ['group=Nowhere', 404],
    ] as const) {
      const response = await tp.fetch(`/gw/v1/group-stats?${query}`);
      expect(response.status, query).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).s).toBe('error');
    }
    expect((await tp.fetch('/gw/v1/group-stats?group=Aggregate', { method: 'POST' })).status).toBe(405);
  });

  it('shares the whole list for a few seconds, but answers named rows fresh (a browser asks them after trades it missed)', async () => {
    const [target] = await aggregatesByActivity(tp.runtime);
    const pool = ensureDefined(target).poolId;
    const list = await tp.fetch('/gw/v1/group-stats?group=Aggregate');
    expect(list.headers.get('cache-control')).toBe('private, max-age=5');
    const listed = await parse(list);
    const named = await tp.fetch(`/gw/v1/group-stats?group=Aggregate&pools=${pool}`);
    expect(named.headers.get('cache-control')).toBe('no-store');
    const before = await parse(named);
    await forceTradesOn(tp.runtime, [pool], tp.nowSeconds() + 1);
    const now = tokenStatsSchema.parse(await (await tp.fetch(`/gw/v1/tokens/current?pool=${pool}`)).json());
    expect(now.current_price).not.toBe(before.price[0]);
    // Named again at once: the trade is in it. The whole list is the gateway's copy of a moment ago.
    const after = await parse(await tp.fetch(`/gw/v1/group-stats?group=Aggregate&pools=${pool}`));
    expect([after.price[0], after.tvl[0]]).toEqual([now.current_price, now.current_tvl]);
    const again = await parse(await tp.fetch('/gw/v1/group-stats?group=Aggregate'));
    expect(again.price).toEqual(listed.price);
  });
});

describe('over a remote service with our routes', () => {
  let service: TestService;
  let loopback: Loopback;
  let gateway: Gateway;
  beforeAll(async () => {
    service = await createTestService({ pools: 120, days: 0.5 });
    loopback = await serveLoopback(service.app.fetch);
    gateway = createGateway({ config: DEFAULT_GATEWAY_CONFIG, upstream: remoteUpstream(loopback.origin, service.key) });
  });
  afterAll(async () => {
    gateway.close();
    await loopback.close();
    await service.close();
  });

  it('answers what the service answers, in one upstream request', async () => {
    const body = await parse(await gateway.app.request('/gw/v1/group-stats?group=MinswapV2'));
    expect(body).toEqual(await service.getJson('/api/x/group-stats?group=MinswapV2'));
  });
});

describe('over a service without our routes (the hosted API)', () => {
  const PER_MINUTE = 1200;
  let service: TestService;
  let proxy: Loopback;
  let gateway: Gateway;
  const seen: { readonly path: string; readonly at: number }[] = [];
  beforeAll(async () => {
    // The spec's /api/v1 alone, as `--spec-only` serves it; its clock stands still, so its numbers do too.
    service = await createTestService({ pools: 150, days: 0.5, config: { extensions: false } });
    proxy = await serveLoopback(async (request) => {
      const url = new URL(request.url);
      seen.push({ path: `${url.pathname}${url.search}`, at: Date.now() });
      return service.app.fetch(new Request(request.url, { headers: request.headers }));
    });
    // No TVL round: every /tokens/current?pool= the gateway asks is one a browser showed.
    gateway = createGateway({
      config: { ...DEFAULT_GATEWAY_CONFIG, fallbackRequestsPerMinute: PER_MINUTE, fallbackCandidatesPerGroup: 0 },
      upstream: remoteUpstream(proxy.origin, service.key),
    });
  });
  afterAll(async () => {
    gateway.close();
    await proxy.close();
    await service.close();
  });

  const get = (query: string) => gateway.app.request(`/gw/v1/group-stats?${query}`);

  it('the service really lacks the route', async () => {
    expect((await service.request('/api/x/group-stats?group=Aggregate')).status).toBe(404);
  });

  it('lists the group’s rows from symbol_info, without numbers nobody asked for', async () => {
    const response = await get('group=Aggregate');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const body = await parse(response);
    const info = symbolInfoResponseSchema.parse(await service.getJson('/api/v1/symbol_info?group=Aggregate'));
    expect(body).toMatchObject({
      group: 'Aggregate',
      complete: false,
      ticker: info.ticker,
      symbol: info.symbol,
      base: info['base-currency'],
      quote: info.currency,
    });
    expect(body.price.every((p) => p === null)).toBe(true);
    expect(seen.filter((s) => s.path.startsWith('/api/v1/tokens/current'))).toEqual([]);
  });

  it('fetches the numbers of the rows shown, paced, until they are complete: those of /tokens/current, TVL valued in ADA', async () => {
    const all = await parse(await get('group=Aggregate'));
    const tokenPair = all.base.findIndex((unit) => unit !== '');
    expect(tokenPair).toBeGreaterThanOrEqual(0);
    const shown = [...all.ticker.slice(0, 12), all.ticker[tokenPair] ?? ''];
    const first = await parse(await get(`group=Aggregate&pools=${shown.join(',')}`));
    expect(first.complete).toBe(false);
    expect([...first.ticker].sort()).toEqual([...shown].sort());
    let body = first;
    await vi.waitUntil(
      async () => {
        body = await parse(await get(`group=Aggregate&pools=${shown.join(',')}`));
        return body.complete;
      },
      { timeout: 15_000, interval: 100 },
    );
    for (const [i, pool] of body.ticker.entries()) {
      const stats = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool}`));
      expect([body.price[i], body.change_24h[i], body.volume_24h[i], body.tvl[i]]).toEqual([
        stats.current_price,
        stats.daily_price_change,
        stats.daily_volume,
        stats.current_tvl,
      ]);
      const base = body.base[i] ?? '';
      const adaPrice =
        base === ''
          ? 1
          : tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?policy=${base}`)).current_price;
      expect(body.tvl_ada[i]).toBe(stats.current_tvl * adaPrice);
    }
    // Only the rows shown were asked for, each once, spaced at the configured rate.
    const pools = seen
      .filter((s) => s.path.startsWith('/api/v1/tokens/current?pool='))
      .map((s) => s.path.split('=')[1]);
    expect([...pools].sort()).toEqual([...shown].sort());
    const starts = seen.filter((s) => s.path.startsWith('/api/v1/')).map((s) => s.at);
    // One start a window of 60,000 / PER_MINUTE ms (p-queue's fixed windows: two may fall either side of
    // a window's edge), so n starts span at least n - 2 windows. Measured where the upstream receives
    // them: the first arrival may lag its start by a connection's setup on a loaded machine (a window
    // allowed for it), any other by the machine's scheduling (25 ms). Unpaced, they would all arrive at once.
    expect(starts.length).toBeGreaterThan(5);
    const span = (starts.at(-1) as number) - (starts[0] as number);
    expect(span).toBeGreaterThanOrEqual((starts.length - 3) * (60_000 / PER_MINUTE) - 25);
    // The whole list now carries what was learnt.
    const again = await parse(await get('group=Aggregate'));
    const row = again.ticker.indexOf(shown[0] ?? '');
    expect(again.price[row]).toBe(body.price[body.ticker.indexOf(shown[0] ?? '')]);
  });

  it('answers an unknown group with a 404 and bad input with a 400, in the price shape', async () => {
    for (const [query, status] of [
      ['group=Nowhere', 404],
      ['group=Aggregate&pools=nothex', 400],
    ] as const) {
      const response = await get(query);
      expect(response.status, query).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).s).toBe('error');
    }
  });
});
