import type { PoolCurve } from './pool-pricing';

/**
 * Arbitrage as on the real chain: after a block, a pool whose price is further from the pair's fair
 * price than its fee is swapped back to the edge of its fee band, when the gap pays what an
 * arbitrage costs (a transaction's and a batcher's fees). A deep pool is kept within its fee plus a
 * few hundredths of a percent; a pool of a few hundred ADA is left to wander, as real dust pools are.
 */

/** What one arbitrage costs its maker, in ADA: a gap that pays less is left alone. */
export const ARBITRAGE_COST_ADA = 0.1;

/** Spread (log) of where an arbitrage leaves a pool, around the edge of its fee band. */
export const ARBITRAGE_NOISE = 0.0005;

/**
 * The band (log, either side of the fair price) arbitrage keeps a pool's price in: its fee, plus the
 * gap an arbitrage needs to pay for itself on a pool whose base reserve is worth `baseAda`.
 */
export function arbitrageBand(curve: PoolCurve, baseAda: number, fee: number): number {
  return fee + curve.arbitrageGap(baseAda, ARBITRAGE_COST_ADA);
}
