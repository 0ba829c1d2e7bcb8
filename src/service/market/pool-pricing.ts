/**
 * How a simulated pool prices and swaps: the one place the simulator asks. Every simulated pool is a
 * constant-product pool today (x·y = k, the fee taken from the input, as Minswap, SundaeSwap and
 * WingRiders price); another curve (stableswap, weighted, bonding curve) is another `PoolCurve`.
 * Reserves are raw units; prices are raw base units per raw quote unit (the caller scales).
 */
export interface PoolCurve {
  /** The marginal price: raw base per raw quote, before the fee. */
  price(base: number, quote: number): number;
  /** The reserves after `amountIn` of the base (or the quote) goes in, `fee` (0.003 = 0.3 %) taken from it. */
  swap(base: number, quote: number, amountIn: number, baseIn: boolean, fee: number): [number, number];
  /**
   * What goes in so that the marginal price becomes `target` (raw base per raw quote): the base when
   * the price must rise, else the quote; 0 when it is there already.
   */
  inputToPrice(base: number, quote: number, target: number, fee: number): { amountIn: number; baseIn: boolean };
  /**
   * How far (log) beyond its fee a pool whose base reserve is worth `baseAda` must be from the outside
   * price before taking it back to the edge of its fee band pays `costAda`: the value the pool gives up
   * on the way is what the arbitrageur makes.
   */
  arbitrageGap(baseAda: number, costAda: number): number;
}

/**
 * The input d of one side (reserve r) after which (r + d)·(r + d·(1 − fee)) = `product`: a swap's
 * input side ends at r + d and the other at k / (r + d·(1 − fee)), so the price ends at product / k
 * (the base side) or k / product (the quote side). 0 when the price is there already.
 */
function inputFor(reserve: number, product: number, fee: number): number {
  if (!(product > reserve * reserve)) return 0;
  const a = 1 - fee;
  const b = reserve * (2 - fee);
  return (-b + Math.sqrt(b * b - 4 * a * (reserve * reserve - product))) / (2 * a);
}

/** x·y = k, the fee kept in the pool. */
export const constantProduct: PoolCurve = {
  price: (base, quote) => base / quote,
  swap(base, quote, amountIn, baseIn, fee) {
    const net = amountIn * (1 - fee);
    if (baseIn) return [base + amountIn, quote - (quote * net) / (base + net)];
    return [base - (base * net) / (quote + net), quote + amountIn];
  },
  inputToPrice(base, quote, target, fee) {
    const k = base * quote;
    if (target > base / quote) return { amountIn: inputFor(base, k * target, fee), baseIn: true };
    return { amountIn: inputFor(quote, k / target, fee), baseIn: false };
  },
  arbitrageGap(baseAda, costAda) {
    // Moving a constant-product pool's price by a factor r gives up x·(1 − √r)² of value (x its base
    // reserve): about x·g²/4 for a gap g (exactly this g for r = e^−g, a hair less for r = e^g).
    if (!(baseAda > costAda)) return Number.POSITIVE_INFINITY;
    return -2 * Math.log(1 - Math.sqrt(costAda / baseAda));
  },
};
