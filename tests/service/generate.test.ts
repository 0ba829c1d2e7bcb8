import { describe, expect, it } from 'vitest';
import { generateMarket } from '../../src/service/market/generate';

describe("the simulated market's plan", () => {
  // Seed 7 with 2,000 pools drew the same token/token pair twice: two pairs, and their pools one pool id
  // (the store refused the market: UNIQUE constraint failed: pools.pool_id).
  it.each([
    [7, 2_000],
    [7, 120],
    [1, 17_600],
    [42, 5_000],
  ])('seed %i, %i pools: every pool id and every pair once', (seed, poolCount) => {
    const { pools } = generateMarket(seed, poolCount);
    expect(pools).toHaveLength(poolCount);
    expect(new Set(pools.map((p) => p.poolId)).size).toBe(pools.length);
  });
});
