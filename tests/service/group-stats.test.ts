import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupStatsSchema, liquiditySchema, type GroupStats } from '../../src/shared/api/extensions';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { busiestPools } from '../support/market';
import { createTestService, type TestService } from '../support/service';

/** GET /api/x/group-stats: a group's rows in one request, each equal to /api/v1/tokens/current for its pool. */
let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 200, days: 1.5 });
});
afterAll(async () => service.close());

async function groupStats(query: string): Promise<GroupStats> {
  return groupStatsSchema.parse(await service.getJson(`/api/x/group-stats?${query}`));
}

/** Each row against /tokens/current?pool= for the same pool: the same numbers, to the bit. */
async function expectAgreement(body: GroupStats): Promise<void> {
  for (const [i, pool] of body.ticker.entries()) {
    const stats = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool}`));
    expect(
      { price: body.price[i], change: body.change_24h[i], volume: body.volume_24h[i], tvl: body.tvl[i] },
      body.symbol[i],
    ).toEqual({
      price: stats.current_price,
      change: stats.daily_price_change,
      volume: stats.daily_volume,
      tvl: stats.current_tvl,
    });
  }
}

describe('GET /api/x/group-stats', () => {
  it('lists every symbol of the group with the numbers /tokens/current gives for the same pool', async () => {
    const body = await groupStats('group=Aggregate');
    const info = symbolInfoResponseSchema.parse(await service.getJson('/api/v1/symbol_info?group=Aggregate'));
    expect(body).toMatchObject({ group: 'Aggregate', complete: true });
    expect([...body.ticker].sort()).toEqual([...info.ticker].sort());
    for (const [i, ticker] of body.ticker.entries()) {
      const j = info.ticker.indexOf(ticker);
      expect([body.symbol[i], body.base[i], body.quote[i]]).toEqual([
        info.symbol[j],
        info['base-currency'][j],
        info.currency[j],
      ]);
    }
    // Some pairs traded within the last day, and some moved.
    expect(body.volume_24h.some((v) => (v ?? 0) > 0)).toBe(true);
    expect(body.change_24h.some((v) => v !== 0)).toBe(true);
    await expectAgreement(body);
  });

  it('values TVL in ADA as /api/x/liquidity does, for a DEX group too (any case)', async () => {
    const body = await groupStats('group=minswapv2');
    expect(body.group).toBe('MinswapV2');
    const liquidity = liquiditySchema.parse(await service.getJson('/api/x/liquidity?group=MinswapV2'));
    expect(body.ticker).toEqual(liquidity.ticker);
    expect(body.tvl_ada).toEqual(liquidity.tvl_ada);
    expect(body.tvl).toEqual(liquidity.tvl);
    await expectAgreement(body);
  });

  it('answers only the pools named, leaving out those of other groups and unknown ones', async () => {
    const all = await groupStats('group=Aggregate');
    const { dexPool } = await busiestPools(service.runtime);
    const named = [all.ticker[3], all.ticker[0], all.ticker[7]].map(String);
    const body = await groupStats(
      `group=Aggregate&pools=${[...named, dexPool.poolId, 'abcd'].join(',').toUpperCase()}`,
    );
    expect(body.ticker).toEqual([all.ticker[0], all.ticker[3], all.ticker[7]]);
    await expectAgreement(body);
  });

  it('moves price and TVL with every trade at once, and the 24 h numbers within ten seconds, agreeing with /tokens/current again', async () => {
    const before = await groupStats('group=Aggregate');
    service.clock.advanceSeconds(1);
    await service.trade();
    // The pairs the block traded.
    const moved: number[] = [];
    for (const [i, pool] of before.ticker.entries()) {
      const stats = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool}`));
      if (stats.daily_volume !== before.volume_24h[i]) moved.push(i);
    }
    expect(moved.length).toBeGreaterThan(0);
    const soon = await groupStats('group=Aggregate');
    for (const i of moved) {
      const stats = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${before.ticker[i]}`));
      expect([soon.price[i], soon.tvl[i]]).toEqual([stats.current_price, stats.current_tvl]);
      // The group's 24 h window is the one of a second ago.
      expect(soon.volume_24h[i]).toBe(before.volume_24h[i]);
    }
    service.clock.advanceSeconds(10);
    const later = await groupStats('group=Aggregate');
    for (const i of moved) expect(later.volume_24h[i]).not.toBe(before.volume_24h[i]);
    await expectAgreement(later);
  });

  it('refuses bad input in the price family’s shape', async () => {
    const many = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(4, '0')).join(',');
    for (const [query, status, message] of [
      ['', 400, /group is required/],
      ['group=', 400, /group is required/],
      ['group=Nowhere', 404, /Unknown group: Nowhere/],
      ['group=Aggregate&pools=zz', 400, /pools must be/],
      ['group=Aggregate&pools=ab,,cd', 400, /pools must be/],
      [`group=Aggregate&pools=${many}`, 400, /up to 100/],
    ] as const) {
      const response = await service.request(`/api/x/group-stats?${query}`);
      expect(response.status, query).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).errmsg, query).toMatch(message);
    }
  });

  it('is listed by GET /api/x and needs a key like every route', async () => {
    expect(((await service.getJson('/api/x')) as { routes: string[] }).routes).toContain('group-stats');
    expect((await service.request('/api/x/group-stats?group=Aggregate', { key: null })).status).toBe(401);
  });
});
