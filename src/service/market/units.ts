/** What the conversions read of a pair (market/model.ts `Pair`): its tokens' decimals. */
interface Pair {
  readonly base: { readonly decimals: number };
  readonly quote: { readonly decimals: number };
}

/**
 * Units: the store and every trade record hold **raw units** (docs/decisions.md "Raw units in the store, decimals at
 * the edge"): a price is raw quote units per raw base... precisely, raw base units per raw quote unit (the ratio of
 * the raw reserves), a TVL twice the raw base reserve, a volume raw base units. A token's decimals only say how a raw
 * amount is shown, so they are applied where values leave the service (the answers, the stream), with the decimals
 * known then: a token whose decimals arrive or change late never leaves a wrong number behind, and every answer equals
 * the one a store that had known them from the start would give, to the bit (the same raw values scaled by the same
 * operation).
 */

/** `10 ** k` for the exponents decimals make (|k| <= 19, exact doubles), computed once. */
const POWERS = Array.from({ length: 20 }, (_, k) => 10 ** k);

/** `value * 10 ** k`, as a multiplication by an exact power for k >= 0 and a division by one for k < 0. */
export function shift(value: number, k: number): number {
  if (k === 0) return value;
  return k > 0 ? value * (POWERS[k] ?? 10 ** k) : value / (POWERS[-k] ?? 10 ** -k);
}

/** A raw price (raw base per raw quote unit) in whole base units per whole quote unit. */
export function wholePrice(pair: Pair, raw: number): number {
  return shift(raw, pair.quote.decimals - pair.base.decimals);
}

/** A raw base amount (a TVL, a volume) in whole base units. */
export function wholeBase(pair: Pair, raw: number): number {
  return shift(raw, -pair.base.decimals);
}

/** A whole price (whole base per whole quote unit) in raw units: how an imported trade's price is stored. */
export function rawPrice(pair: Pair, whole: number): number {
  return shift(whole, pair.base.decimals - pair.quote.decimals);
}

/** A whole base amount in raw base units. */
export function rawBase(pair: Pair, whole: number): number {
  return shift(whole, pair.base.decimals);
}
