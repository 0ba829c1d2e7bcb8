import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyResponseSchema } from '../../src/shared/api/history';
import { tokenStatsSchema, type TokenStats } from '../../src/shared/api/tokens';
import { RESOLUTIONS } from '../../src/shared/resolutions';
import type { Pool } from '../../src/service/market/model';
import { barsOf, historyPath, tokensCurrentPath } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { expectClose } from '../support/expect-close';
import { pairWithPools, storedReserves, type WireBar } from '../support/market';
import { createTestService, type TestService } from '../support/service';

let service: TestService;
let aggregate: Pool;
let from: number;
let to: number;

beforeAll(async () => {
  service = await createTestService();
  aggregate = await pairWithPools(service.runtime, 3);
  to = service.clock.seconds() + 1;
  from = to - 4 * 86_400;
});
afterAll(async () => service.close());

async function bars(pool: Pool, resolution: string): Promise<WireBar[]> {
  return barsOf(
    historyResponseSchema.parse(
      await service.getJson(historyPath({ symbol: pool.poolId, resolution, from, to, include_tvl: true })),
    ),
  );
}

async function stats(pool: Pool): Promise<TokenStats> {
  return tokenStatsSchema.parse(await service.getJson(tokensCurrentPath({ pool: pool.poolId })));
}

describe('the Aggregate pool of a pair', () => {
  it('is used for a pair with several pools on several DEX groups', async () => {
    expect(aggregate.group).toBe('Aggregate');
    expect(aggregate.pair.pools.length).toBeGreaterThanOrEqual(3);
    expect(new Set(aggregate.pair.pools.map((p) => p.group)).size).toBeGreaterThan(1);
  });

  it.each(RESOLUTIONS)("has, in every %s bucket, the sum of the volumes of the pair's pools", async (resolution) => {
    const own = await bars(aggregate, resolution);
    const sums = new Map<number, number>();
    for (const pool of aggregate.pair.pools)
      for (const bar of await bars(pool, resolution)) sums.set(bar.t, (sums.get(bar.t) ?? 0) + bar.v);
    expect(own.map((b) => b.t)).toEqual([...sums.keys()].sort((a, b) => a - b));
    for (const bar of own) expectClose(bar.v, ensureDefined(sums.get(bar.t)), 1e-12, `volume at ${bar.t}`);
  });

  it('has the sum of the pool TVLs as current TVL, and as tvl of its last bar', async () => {
    const own = await stats(aggregate);
    let sum = 0;
    for (const pool of aggregate.pair.pools) sum += (await stats(pool)).current_tvl;
    expectClose(own.current_tvl, sum);
    expectClose(ensureDefined((await bars(aggregate, '1min')).at(-1)?.tvl), sum);
  });

  it('prices the pair as sum(base reserves) / sum(quote reserves), decimal-adjusted, from the stored reserves', async () => {
    const stored = new Map((await storedReserves(service.runtime)).map((r) => [r.id, r]));
    const { base, quote } = aggregate.pair;
    let baseSum = 0;
    let quoteSum = 0;
    for (const pool of aggregate.pair.pools) {
      const row = ensureDefined(stored.get(pool.id));
      baseSum += row.base_reserve;
      quoteSum += row.quote_reserve;
    }
    const expected = baseSum / 10 ** base.decimals / (quoteSum / 10 ** quote.decimals);
    const own = await stats(aggregate);
    expectClose(own.current_price, expected);
    expectClose(ensureDefined((await bars(aggregate, '1min')).at(-1)?.c), expected);
    // A reserve-weighted mean: between the cheapest and the dearest pool.
    const prices = await Promise.all(aggregate.pair.pools.map(async (p) => (await stats(p)).current_price));
    expect(own.current_price).toBeGreaterThanOrEqual(Math.min(...prices));
    expect(own.current_price).toBeLessThanOrEqual(Math.max(...prices));
  });

  it("has the sum of the pools' hourly and daily volumes", async () => {
    const own = await stats(aggregate);
    let hourly = 0;
    let daily = 0;
    for (const pool of aggregate.pair.pools) {
      const s = await stats(pool);
      hourly += s.hourly_volume;
      daily += s.daily_volume;
    }
    expectClose(own.hourly_volume, hourly, 1e-12);
    expectClose(own.daily_volume, daily, 1e-12);
    expect(own.daily_volume).toBeGreaterThan(0);
  });

  it('keeps a stable pool ID derived from the pair', async () => {
    const again = await createTestService({ days: 0.1 });
    try {
      const pool = ensureDefined(
        again.runtime.market.pairs.get(`${aggregate.pair.base.unit}|${aggregate.pair.quote.unit}`),
      );
      expect(pool.aggregate.poolId).toBe(aggregate.poolId);
    } finally {
      await again.close();
    }
  });
});
