import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairPoolsResponseSchema } from '../../src/shared/api/extensions';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { poolPrice, poolTvl } from '../../src/service/market/model';
import { baseUnit, busiestPools } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** GET /api/x/pair-pools: an Aggregate's pools with TVL share, price deviation and 24 h volume. */
let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 120, days: 1.5 });
});
afterAll(async () => service.close());

describe('GET /api/x/pair-pools', () => {
  it('lists the pair’s pools deepest first, with shares summing to one and volumes from the stored trades', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const body = pairPoolsResponseSchema.parse(await service.getJson(`/api/x/pair-pools?pool=${aggregate.poolId}`));
    expect(body.aggregate).toMatchObject({
      pool_id: aggregate.poolId,
      price: poolPrice(aggregate),
      tvl: poolTvl(aggregate),
    });
    expect(body.pools.map((p) => p.pool_id).sort()).toEqual(aggregate.pair.pools.map((p) => p.poolId).sort());
    expect(body.pools.map((p) => p.tvl)).toEqual([...body.pools.map((p) => p.tvl)].sort((a, b) => b - a));
    expect(body.pools.reduce((sum, p) => sum + p.share, 0)).toBeCloseTo(1, 9);
    const since = service.clock.seconds() - 86_400;
    for (const row of body.pools) {
      const pool = service.runtime.market.pools.get(row.pool_id);
      if (!pool) throw new Error('unknown pool');
      expect(row.deviation_percent).toBeCloseTo((poolPrice(pool) / poolPrice(aggregate) - 1) * 100, 9);
      expect(row.volume_24h).toBeCloseTo(
        (await runtimeInternals(service.runtime).store.trades.volumeSince(pool.id, false, since)) / baseUnit(pool),
        6,
      );
      expect(row.symbol).toMatch(new RegExp(`_${pool.group}_Pool\\d+$`));
    }
    // Any pool of the pair names the same Aggregate.
    const again = pairPoolsResponseSchema.parse(
      await service.getJson(`/api/x/pair-pools?pool=${body.pools[0]?.pool_id}`),
    );
    expect(again.aggregate.pool_id).toBe(aggregate.poolId);
  });

  it('refuses bad input in the price family’s shape', async () => {
    for (const [query, status] of [
      ['', 400],
      ['pool=zz', 400],
      ['pool=abcd', 404],
    ] as const) {
      const response = await service.request(`/api/x/pair-pools?${query}`);
      expect(response.status, query).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).s).toBe('error');
    }
  });
});
