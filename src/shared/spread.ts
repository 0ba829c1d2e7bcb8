/**
 * The spread of a pair across its DEX pools: the largest price gap between two of
 * its pools deep enough to trade against, `(highest / lowest − 1) × 100`. Shared by the service's
 * `/api/x/spreads` and the app's spread view, so the overview's column and the view agree.
 */

/**
 * The TVL (valued in ADA) a pool needs to count, unless the user sets another: 10,000 ADA. A shallower
 * pool's price moves a few percent with a trade of a few hundred ADA (constant product: a trade of x
 * against a base reserve R moves the price by about 2x/R, and R is half the TVL), so its gap to the
 * others is not one a trader could take.
 */
export const DEFAULT_SPREAD_MIN_TVL_ADA = 10_000;

export interface SpreadPool {
  readonly id: string;
  /** Whole base units per whole quote unit; 0 or less: not priced (an empty pool). */
  readonly price: number;
  /** TVL valued in ADA (undefined: not known, the pool does not count). */
  readonly tvlAda: number | undefined;
}

export interface Spread {
  /** (highest / lowest − 1) × 100 over the pools that count; null with fewer than two. */
  readonly percent: number | null;
  /** The pools that count. */
  readonly pools: number;
  /** The cheapest and the dearest of them (null with fewer than two). */
  readonly low: string | null;
  readonly high: string | null;
}

/** The spread of `pools` (one pair's DEX pools) over those with at least `minTvlAda` TVL and a price. */
export function spreadOf(pools: readonly SpreadPool[], minTvlAda: number): Spread {
  let low: SpreadPool | undefined;
  let high: SpreadPool | undefined;
  let count = 0;
  for (const pool of pools) {
    if (!(pool.price > 0) || pool.tvlAda === undefined || !(pool.tvlAda >= minTvlAda)) continue;
    count++;
    if (!low || pool.price < low.price) low = pool;
    if (!high || pool.price > high.price) high = pool;
  }
  if (count < 2 || !low || !high) return { percent: null, pools: count, low: null, high: null };
  return { percent: (high.price / low.price - 1) * 100, pools: count, low: low.id, high: high.id };
}
