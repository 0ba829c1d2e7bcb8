import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairPoolsResponseSchema, spreadsSchema } from '../../src/shared/api/extensions';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { DEFAULT_SPREAD_MIN_TVL_ADA, spreadOf } from '../../src/shared/spread';
import { createTestService, type TestService } from '../support/service';

/** GET /api/x/spreads: every pair's spread across its DEX pools, the market overview's column. */
let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 120, days: 0.5 });
});
afterAll(async () => service.close());

describe('spreadOf', () => {
  const pool = (id: string, price: number, tvlAda: number | undefined) => ({ id, price, tvlAda });
  it('is the gap between the cheapest and the dearest pool deep enough, with those two', () => {
    expect(
      spreadOf(
        [pool('a', 1, 20_000), pool('b', 1.05, 50_000), pool('c', 0.98, 10_000), pool('thin', 2, 9_999)],
        10_000,
      ),
    ).toEqual({
      percent: (1.05 / 0.98 - 1) * 100,
      pools: 3,
      low: 'c',
      high: 'b',
    });
  });
  it('is null with fewer than two pools that count (too thin, unpriced, TVL unknown)', () => {
    expect(
      spreadOf([pool('a', 1, 20_000), pool('b', 0, 50_000), pool('c', 3, undefined), pool('d', 2, 5)], 10),
    ).toEqual({ percent: null, pools: 1, low: null, high: null });
    expect(spreadOf([], 0)).toEqual({ percent: null, pools: 0, low: null, high: null });
  });
});

describe('GET /api/x/spreads', () => {
  it('gives every pair, with the spread its pair-pools answer makes, at the default and at a chosen TVL', async () => {
    const body = spreadsSchema.parse(await service.getJson('/api/x/spreads'));
    expect(body.min_tvl).toBe(DEFAULT_SPREAD_MIN_TVL_ADA);
    expect(body.base).toHaveLength(service.runtime.market.pairs.size);
    expect(body.spread_percent.some((s) => s !== null && s > 0)).toBe(true);
    for (const minTvl of [DEFAULT_SPREAD_MIN_TVL_ADA, 0, 250_000]) {
      const answer =
        minTvl === DEFAULT_SPREAD_MIN_TVL_ADA
          ? body
          : spreadsSchema.parse(await service.getJson(`/api/x/spreads?min_tvl=${minTvl}`));
      expect(answer.min_tvl).toBe(minTvl);
      for (const [i, aggregate] of answer.aggregate.entries()) {
        if (i % 5 !== 0) continue;
        const pools = pairPoolsResponseSchema.parse(await service.getJson(`/api/x/pair-pools?pool=${aggregate}`));
        const expected = spreadOf(
          pools.pools.map((p) => ({ id: p.pool_id, price: p.price, tvlAda: p.tvl_ada })),
          minTvl,
        );
        expect(
          { percent: answer.spread_percent[i], pools: answer.pools[i], low: answer.low[i], high: answer.high[i] },
          aggregate,
        ).toEqual(expected);
      }
    }
    const none = spreadsSchema.parse(await service.getJson('/api/x/spreads?min_tvl=1e15'));
    expect(none.spread_percent.every((s) => s === null)).toBe(true);
  });

  it('refuses bad input in the price family’s shape', async () => {
    for (const query of ['min_tvl=abc', 'min_tvl=-1', 'min_tvl=1e16']) {
      const response = await service.request(`/api/x/spreads?${query}`);
      expect(response.status, query).toBe(400);
      expect(priceErrorSchema.parse(await response.json()).errmsg).toMatch(/min_tvl/);
    }
  });
});
