import type { TokenStats } from '../../shared/api/tokens';
import { wholeBase, wholePrice } from './units';
import type { TradeStore } from '../store/ports';
import { isAggregate, poolPrice, poolTvl, type Pool } from './model';

const HOUR = 3600;
/** The window of the daily statistics, seconds. */
export const DAY = 86_400;

/**
 * Statistics of a pool (or Aggregate pool) at `now` (decisions "Units and denominations"): price and
 * TVL now; price change in percent and TVL change in base units against the state 1 h and 24 h ago;
 * volume over the last 1 h and 24 h.
 */
export async function poolStats(pool: Pool, trades: TradeStore, now: number): Promise<TokenStats> {
  const aggregate = isAggregate(pool);
  const price = poolPrice(pool);
  const tvl = poolTvl(pool);
  // The stored states are raw (market/units.ts): in whole units of the decimals known now.
  const then = async (seconds: number) => {
    const state = await trades.stateAt(pool.id, aggregate, now - seconds);
    return state ? { price: wholePrice(pool.pair, state.price), tvl: wholeBase(pool.pair, state.tvl) } : { price, tvl };
  };
  const [hourAgo, dayAgo, hourVolume, dayVolume] = await Promise.all([
    then(HOUR),
    then(DAY),
    trades.volumeSince(pool.id, aggregate, now - HOUR),
    trades.volumeSince(pool.id, aggregate, now - DAY),
  ]);
  const change = (from: number) => priceChange(price, from);
  return {
    current_price: price,
    current_tvl: tvl,
    hourly_price_change: change(hourAgo.price),
    hourly_tvl_change: tvl - hourAgo.tvl,
    hourly_volume: wholeBase(pool.pair, hourVolume),
    daily_price_change: change(dayAgo.price),
    daily_tvl_change: tvl - dayAgo.tvl,
    daily_volume: wholeBase(pool.pair, dayVolume),
  };
}

/** Percent change of a price from an earlier one (0 when the earlier one is not positive). */
export function priceChange(price: number, from: number): number {
  return from > 0 ? (price / from - 1) * 100 : 0;
}
