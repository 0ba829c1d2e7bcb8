import type { ForcedTrades } from '../service/market/simulator';

/** Most trades one forced block may hold (POST /__test__/block?trades=). */
export const MAX_FORCED_TRADES = 1000;

/**
 * Reads the query of the test-only `POST /__test__/block`: none (a block as the schedule would make
 * it, at least one trade), or `pool` (a DEX or Aggregate pool ID) with an optional `trades` (1 to
 * 1,000, default 1): a block of exactly that many trades on the pool's pair. An error names the bad parameter.
 */
export function parseBlockQuery(pool: string | undefined, trades: string | undefined): { target: ForcedTrades | undefined } | { errmsg: string } {
  if (pool === undefined) return trades === undefined ? { target: undefined } : { errmsg: 'trades needs a pool: the pool whose pair the block trades' };
  const id = pool.trim().toLowerCase();
  if (id === '') return { errmsg: 'pool must be a pool ID' };
  if (trades === undefined) return { target: { pool: id, trades: 1 } };
  const count = /^\d{1,4}$/.test(trades) ? Number(trades) : Number.NaN;
  if (!(count >= 1 && count <= MAX_FORCED_TRADES)) return { errmsg: `trades must be a whole number from 1 to ${MAX_FORCED_TRADES} (got "${trades}")` };
  return { target: { pool: id, trades: count } };
}
