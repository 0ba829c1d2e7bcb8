import { describe, expect, it } from 'vitest';
import { ARBITRAGE_COST_ADA, arbitrageBand } from '../../src/service/market/arbitrage';
import { constantProduct } from '../../src/service/market/pool-pricing';

describe('constant-product pricing', () => {
  const [x, y] = [2_000_000e6, 500_000_000e6];

  it.each([
    ['up 3 %', 1.03, 0.003],
    ['down 3 %', 1 / 1.03, 0.003],
    ['up 0.1 % through a 1 % fee', 1.001, 0.01],
  ])('swaps to a target price exactly, the fee kept in the pool (%s)', (_name, factor, fee) => {
    const target = (x / y) * factor;
    const { amountIn, baseIn } = constantProduct.inputToPrice(x, y, target, fee);
    expect(baseIn).toBe(factor > 1);
    const [nx, ny] = constantProduct.swap(x, y, amountIn, baseIn, fee);
    expect(constantProduct.price(nx, ny) / target - 1).toBeCloseTo(0, 12);
    // The fee stays in the pool: k grows.
    expect(nx * ny).toBeGreaterThan(x * y);
  });

  it('asks for nothing when the price is there', () => {
    expect(constantProduct.inputToPrice(x, y, x / y, 0.003).amountIn).toBe(0);
  });

  it('gives an arbitrageur the value the pool gives up: the gap beyond the fee that pays the cost', () => {
    const baseAda = 50_000;
    const gap = constantProduct.arbitrageGap(baseAda, ARBITRAGE_COST_ADA);
    // Without a fee, taking the pool from its price to the outside price gives up this much of its value
    // (valued at the outside price): the cost, exactly for a pool above it, a hair more for one below.
    const given = (outside: number) => {
      const [bx, by] = [baseAda * 1e6, baseAda * 1e6];
      const { amountIn, baseIn } = constantProduct.inputToPrice(bx, by, outside, 0);
      const [nx, ny] = constantProduct.swap(bx, by, amountIn, baseIn, 0);
      return (bx + by * outside - (nx + ny * outside)) / 1e6;
    };
    expect(given(Math.exp(-gap))).toBeCloseTo(ARBITRAGE_COST_ADA, 6);
    expect(given(Math.exp(gap)) / ARBITRAGE_COST_ADA).toBeGreaterThan(1);
    expect(given(Math.exp(gap)) / ARBITRAGE_COST_ADA).toBeLessThan(1.01);
    expect(arbitrageBand(constantProduct, baseAda, 0.003)).toBeCloseTo(0.003 + gap, 12);
    // A dust pool is never worth it.
    expect(constantProduct.arbitrageGap(ARBITRAGE_COST_ADA / 2, ARBITRAGE_COST_ADA)).toBe(Number.POSITIVE_INFINITY);
  });
});
