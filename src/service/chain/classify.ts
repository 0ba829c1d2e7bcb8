/** What a change of a pool's reserves is: a trade (with its volume in raw base units), liquidity, or nothing. */
export type Change =
  { readonly kind: 'trade'; readonly volume: bigint } | { readonly kind: 'liquidity' } | { readonly kind: 'none' };

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * Classifies a pool's change from (baseBefore, quoteBefore) to (base, quote), raw units, knowing
 * whether the pool's LP supply changed (undefined: not known — a pool of a store written before LP
 * supplies were kept, until its first change).
 *
 * - LP supply unchanged: swaps only (a swap never mints or burns shares): a trade whose volume is
 *   |Δbase|.
 * - LP supply changed and the change proportional to the reserves up to one raw unit of rounding
 *   (|Δbase·quote − Δquote·base| ≤ max(base, quote)): a deposit or withdrawal, no trade.
 * - LP supply changed otherwise: a deposit or withdrawal with a swap inside (a one-sided zap, or a
 *   batch holding both): a trade for the price move, whose volume is the swapped base amount,
 *   estimated as half the change's distance from a proportional one: |Δbase·quote − Δquote·base| / (2·quote).
 * - LP supply unknown: a change of both reserves in the same direction is taken as a deposit or
 *   withdrawal (with or without a swap, as above), one in opposite directions as a swap.
 */
export function classifyChange(
  before: { readonly base: bigint; readonly quote: bigint },
  after: { readonly base: bigint; readonly quote: bigint },
  lpChanged: boolean | undefined,
): Change {
  const dBase = after.base - before.base;
  const dQuote = after.quote - before.quote;
  if (dBase === 0n && dQuote === 0n) return { kind: 'none' };
  const liquidityMove = lpChanged ?? (dBase === 0n || dQuote === 0n || dBase > 0n === dQuote > 0n);
  if (!liquidityMove) return { kind: 'trade', volume: abs(dBase) };
  const skew = abs(dBase * before.quote - dQuote * before.base);
  if (skew <= (before.base > before.quote ? before.base : before.quote)) return { kind: 'liquidity' };
  return { kind: 'trade', volume: before.quote > 0n ? skew / (2n * before.quote) : abs(dBase) };
}
