import type { PairPool } from '@/shared/api/extensions';
import { spreadOf, type Spread } from '@/shared/spread';

/** A line of the spread view: one pool's closes, as prices or as percent from the Aggregate at the same time. */
export interface SpreadLine {
  readonly id: string;
  readonly points: { readonly time: number; readonly value: number }[];
}

export type SpreadMode = 'price' | 'percent';

/** What a line takes of a bar: its time (Unix seconds) and close. */
interface Close {
  readonly time: number;
  readonly close: number;
}

/**
 * The lines of the spread view: each pool's close at each of its bars (`price`), or its percent from
 * the Aggregate's close of the same bucket, or the Aggregate's last close before it (`percent`: the
 * Aggregate's own line is then 0). Inverted, prices are 1 / price and percents those of the inverse
 * price. A pool's bar before the Aggregate's first has no percent and is left out.
 */
export function spreadLines(
  aggregate: readonly Close[],
  pools: readonly { readonly id: string; readonly bars: readonly Close[] }[],
  mode: SpreadMode,
  inverted: boolean,
): SpreadLine[] {
  const turn = (price: number) => (inverted ? 1 / price : price);
  return pools.map((pool) => {
    if (mode === 'price')
      return {
        id: pool.id,
        points: pool.bars.filter((b) => b.close > 0).map((b) => ({ time: b.time, value: turn(b.close) })),
      };
    const points: { time: number; value: number }[] = [];
    let j = -1;
    for (const bar of pool.bars) {
      while (j + 1 < aggregate.length && (aggregate[j + 1]?.time ?? Infinity) <= bar.time) j++;
      const reference = aggregate[j]?.close;
      if (reference === undefined || !(reference > 0) || !(bar.close > 0)) continue;
      points.push({ time: bar.time, value: (turn(bar.close) / turn(reference) - 1) * 100 });
    }
    return { id: pool.id, points };
  });
}

/** A row of the live table: a pool with its difference from the best price. */
export interface SpreadRow extends PairPool {
  /** Percent above the best price as shown (the lowest among the pools that count: the best to buy at), or null. */
  readonly fromBest: number | null;
  /** Deep enough to count in the spread. */
  readonly counts: boolean;
}

/** TVL valued in ADA: the answer's, else the TVL itself for an ADA pair (a gateway deriving the answer leaves it out). */
function tvlInAda(pool: PairPool, baseIsAda: boolean): number | undefined {
  return pool.tvl_ada ?? (baseIsAda ? pool.tvl : undefined);
}

/**
 * The table's rows and the pair's spread, over the pools with at least `minTvlAda`. The best price is
 * the lowest as shown (inverted: of the turned prices), so the dearest pool that counts is the spread
 * above it.
 */
export function spreadTable(
  pools: readonly PairPool[],
  baseIsAda: boolean,
  minTvlAda: number,
  inverted: boolean,
): { rows: SpreadRow[]; spread: Spread } {
  const spread = spreadOf(
    pools.map((p) => ({ id: p.pool_id, price: p.price, tvlAda: tvlInAda(p, baseIsAda) })),
    minTvlAda,
  );
  const counting = pools.filter((p) => p.price > 0 && (tvlInAda(p, baseIsAda) ?? -1) >= minTvlAda);
  const turn = (price: number) => (inverted ? 1 / price : price);
  const best = counting.length > 0 ? Math.min(...counting.map((p) => turn(p.price))) : undefined;
  const rows = pools.map((p) => ({
    ...p,
    counts: counting.includes(p),
    fromBest: best === undefined || !(p.price > 0) ? null : (turn(p.price) / best - 1) * 100,
  }));
  return { rows, spread };
}
