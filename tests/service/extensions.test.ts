import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema } from '../../src/shared/api/errors';
import {
  marketStatusSchema,
  deepestSchema,
  extensionIndexSchema,
  marketSourceResponseSchema,
  liquiditySchema,
  tokenInfoSchema,
  tokenNamesSchema,
} from '../../src/shared/api/extensions';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { ALL_GROUPS } from '../../src/shared/groups';
import { symbolInfoPath, tokensCurrentPath } from '../support/builders';
import { createTestService, type TestService } from '../support/service';
import { LOGO_NONE } from '../../src/service/market/model';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** Our extension routes under /api/x: answers from the market, behind the same auth and limits. */

const WMT = '1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e776f726c646d6f62696c65746f6b656e';
const USDM = 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad0014df105553444d';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

describe('/api/x', () => {
  it('lists its routes', async () => {
    expect(extensionIndexSchema.parse(await service.getJson('/api/x'))).toEqual({
      s: 'ok',
      routes: [
        'liquidity',
        'token-info',
        'deepest',
        'trades',
        'pair-pools',
        'market',
        'group-stats',
        'spreads',
        'status',
      ],
    });
  });

  it('says where its trades come from (the simulator here), uncached', async () => {
    const response = await service.request('/api/x/market');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(marketSourceResponseSchema.parse(await response.json())).toEqual({ s: 'ok', source: 'simulated' });
  });

  it('says how fresh the market is without a key: the simulated market live at its last block, each group’s pools', async () => {
    const response = await service.request('/api/x/status', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const status = marketStatusSchema.parse(await response.json());
    const health = (await (await service.request('/healthz', { key: null })).json()) as {
      blockHeight: number;
      lastBlockTime: number;
    };
    expect(status).toMatchObject({
      source: 'simulated',
      state: 'live',
      now: service.clock.seconds(),
      tip: { slot: null, height: health.blockHeight, time: health.lastBlockTime },
      node_tip_slot: null,
      behind: null,
    });
    expect(status.tip?.age_seconds).toBe(Math.max(0, Math.round(service.clock.seconds() - health.lastBlockTime)));
    const symbols = await Promise.all(
      status.groups.map(async (g) => symbolInfoResponseSchema.parse(await service.getJson(symbolInfoPath(g.group)))),
    );
    expect(status.groups.map((g) => g.pools)).toEqual(symbols.map((s) => s.ticker.length));
    expect(status.groups.map((g) => g.group)).toEqual(ALL_GROUPS.filter((g) => g !== 'Aggregate'));
    // Decode counts are the chain source's: none here.
    expect(status.groups.every((g) => g.decoded_1h === null && g.undecodable_24h === null)).toBe(true);
  });

  it('gives the TVL of every symbol of a group, as /tokens/current gives each', async () => {
    const liquidity = liquiditySchema.parse(await service.getJson('/api/x/liquidity?group=aggregate'));
    const symbols = symbolInfoResponseSchema.parse(await service.getJson(symbolInfoPath('Aggregate')));
    expect(liquidity.ticker).toEqual(symbols.ticker);
    for (const i of [0, 5, 17]) {
      const stats = tokenStatsSchema.parse(
        await service.getJson(tokensCurrentPath({ pool: liquidity.ticker[i] ?? '' })),
      );
      expect(liquidity.tvl[i]).toBeCloseTo(stats.current_tvl, 6);
    }
  });

  it("names each group's deepest pool, as the liquidity route ranks them", async () => {
    const { deepest } = deepestSchema.parse(await service.getJson('/api/x/deepest'));
    for (const group of ALL_GROUPS) {
      const liquidity = liquiditySchema.parse(await service.getJson(`/api/x/liquidity?group=${group}`));
      if (liquidity.ticker.length === 0) continue;
      expect(deepest[group], group).toBe(liquidity.ticker[liquidity.tvl_ada.indexOf(Math.max(...liquidity.tvl_ada))]);
    }
  });

  it("gives token metadata, one token or every token's name at once", async () => {
    expect(tokenInfoSchema.parse(await service.getJson(`/api/x/token-info/${WMT.toUpperCase()}`))).toEqual({
      unit: WMT,
      ticker: 'WMT',
      name: 'World Mobile Token',
      decimals: 6,
      source: 'registry',
    });
    const names = tokenNamesSchema.parse(await service.getJson('/api/x/token-info'));
    expect(names.name[names.unit.indexOf(WMT)]).toBe('World Mobile Token');
    expect(names.unit).not.toContain('');
  });

  it("says where the simulated market's tokens come from: the catalogue's real sources, generated ones unverified", async () => {
    const source = async (unit: string) =>
      tokenInfoSchema.parse(await service.getJson(`/api/x/token-info/${unit}`)).source;
    expect(await source(USDM)).toBe('cip68');
    expect(await source(WMT)).toBe('registry');
    const { market } = service.runtime;
    const generated = [...market.tokens.values()].find((t) => t.unit !== '' && t.id > 40);
    expect(await source(generated?.unit ?? '')).toBe('asset-name');
  });

  it('answers bad input and unknown things in the price error shape', async () => {
    const cases: [string, number, RegExp][] = [
      ['/api/x/liquidity', 400, /group is required/],
      ['/api/x/liquidity?group=Nope', 404, /Unknown group: Nope/],
      ['/api/x/token-info/xyz', 400, /Invalid token xyz/],
      [`/api/x/token-info/${'ab'.repeat(30)}`, 404, /Unknown token/],
      ['/api/x/nothing', 404, /Unknown endpoint: GET \/api\/x\/nothing/],
    ];
    for (const [path, status, message] of cases) {
      const response = await service.request(path);
      expect(response.status, path).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).errmsg, path).toMatch(message);
    }
    const post = await service.request('/api/x/liquidity?group=Aggregate', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('needs a key and counts against its plan like /api/v1', async () => {
    const anonymous = await service.request('/api/x/deepest', { key: null });
    expect(anonymous.status).toBe(401);
    expect(priceErrorSchema.parse(await anonymous.json()).errmsg).toMatch(/Not authenticated/);
    const key = await service.newKey('free');
    const first = await service.request('/api/x/deepest', { key });
    expect(first.headers.get('RateLimit-Limit')).toBe('60');
    expect(first.headers.get('RateLimit-Remaining')).toBe('59');
    const spec = await service.request('/api/v1/groups', { key });
    expect(spec.headers.get('RateLimit-Remaining')).toBe('58');
  });
});

describe('/api/x with --spec-only', () => {
  it('is not there: a 404 like any unknown path, as on the hosted API', async () => {
    const specOnly = await createTestService({ pools: 60, days: 0.2, config: { extensions: false } });
    try {
      for (const path of ['/api/x', '/api/x/liquidity?group=Aggregate', '/api/x/token-info']) {
        const response = await specOnly.request(path);
        expect(response.status, path).toBe(404);
        expect(priceErrorSchema.parse(await response.json()).errmsg).toMatch(/Unknown endpoint/);
      }
      expect((await specOnly.request('/api/x/deepest', { method: 'POST' })).status).toBe(404);
    } finally {
      await specOnly.close();
    }
  });
});

describe('/api/x/token-info on a market whose tokens were named by their sources', () => {
  it('says which source named each token, with the description and site it gave, and marks a look-alike unverified', async () => {
    const named = await createTestService({ startMs: 1_718_000_000_000, config: { source: 'none' } });
    try {
      const { ingestor } = runtimeInternals(named.runtime);
      const lookAlike = `${'ef'.repeat(28)}5553444d`;
      for (const unit of [USDM, WMT, lookAlike])
        ingestor.addToken({ unit, ticker: 'USDM', name: 'USDM', decimals: 0, logoKind: LOGO_NONE });
      // What USDM's real reference datum says (tests/fixtures/identity), and WMT's real registry entry.
      ingestor.setIdentity({
        unit: USDM,
        source: 'cip68',
        name: 'USDM',
        ticker: 'USDM',
        decimals: 6,
        description: 'Fiat-backed stablecoin native to the Cardano blockchain',
        url: 'https://moneta.global',
        at: 1_718_000_000,
      });
      ingestor.setIdentity({ unit: USDM, source: 'registry', name: 'Not first', decimals: 2, at: 1_718_000_000 });
      ingestor.setIdentity({ unit: WMT, source: 'registry', name: 'World Mobile Token', decimals: 6, at: 1 });
      await ingestor.commit();
      const info = async (unit: string) =>
        tokenInfoSchema.parse(await (await named.request(`/api/x/token-info/${unit}`)).json());
      expect(await info(USDM)).toMatchObject({
        source: 'cip68',
        description: 'Fiat-backed stablecoin native to the Cardano blockchain',
        url: 'https://moneta.global',
      });
      expect(await info(WMT)).toMatchObject({ source: 'registry' });
      expect(await info(WMT)).not.toHaveProperty('description');
      const unverified = await info(lookAlike);
      expect(unverified).toMatchObject({ source: 'asset-name', name: 'USDM' });
      expect(unverified).not.toHaveProperty('url');
    } finally {
      await named.close();
    }
  });
});
