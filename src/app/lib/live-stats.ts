import type { TradeEvent } from '@/shared/api/stream';
import type { TokenStats } from '@/shared/api/tokens';

/** What live trades add to the last statistics fetched. */
export interface LiveOverlay {
  /** Price and TVL after the newest trade seen live, and when it was seen (ms, the page's clock like the statistics' fetch time). */
  readonly price?: number;
  readonly tvl?: number;
  readonly at?: number;
  /** Volume of trades seen live, with when they were seen (ms, the page's clock like the statistics' fetch time). */
  readonly volumes: readonly { readonly at: number; readonly volume: number }[];
}

export const EMPTY_OVERLAY: LiveOverlay = { volumes: [] };

const DAY_MS = 86_400_000;

/** Folds a trade event seen at `at` (ms) into the overlay: its price and TVL, and its volume (kept for 24 h). */
export function applyTrade(
  overlay: LiveOverlay,
  trade: Pick<TradeEvent, 'current_price' | 'current_tvl' | 'volume'>,
  at: number,
): LiveOverlay {
  return {
    price: trade.current_price,
    tvl: trade.current_tvl,
    at,
    volumes:
      trade.volume > 0
        ? [...overlay.volumes.filter((v) => v.at > at - DAY_MS), { at, volume: trade.volume }]
        : overlay.volumes,
  };
}

/**
 * The statistics to show: the last fetched ones with what trades seen after the fetch (`fetchedAt`, ms)
 * changed on top: the newest trade's price and TVL, and their volume added to both windows. Changes
 * are recomputed against the same reference (the price 1 h / 24 h ago implied by the fetched change).
 * Statistics fetched after the newest trade win (they have it, and whatever the page missed), unless
 * `lastTradeWins`: the overlay's pool has been followed without a break since its newest trade, so
 * that trade is the pool's state now, whatever an answer (perhaps from a cache) says.
 */
export function liveStats(
  stats: TokenStats,
  overlay: LiveOverlay,
  fetchedAt: number,
  options: { readonly lastTradeWins?: boolean } = {},
): TokenStats {
  const newer = overlay.at !== undefined && (options.lastTradeWins === true || overlay.at > fetchedAt);
  const price = newer && overlay.price !== undefined ? overlay.price : stats.current_price;
  const tvl = newer && overlay.tvl !== undefined ? overlay.tvl : stats.current_tvl;
  const changeFrom = (change: number) => {
    const factor = 1 + change / 100;
    if (price === stats.current_price || factor <= 0 || stats.current_price === 0) return change;
    const reference = stats.current_price / factor;
    return (price / reference - 1) * 100;
  };
  const extra = overlay.volumes.reduce((sum, v) => (v.at > fetchedAt ? sum + v.volume : sum), 0);
  return {
    current_price: price,
    current_tvl: tvl,
    hourly_price_change: changeFrom(stats.hourly_price_change),
    daily_price_change: changeFrom(stats.daily_price_change),
    hourly_tvl_change: stats.hourly_tvl_change + (tvl - stats.current_tvl),
    daily_tvl_change: stats.daily_tvl_change + (tvl - stats.current_tvl),
    hourly_volume: stats.hourly_volume + extra,
    daily_volume: stats.daily_volume + extra,
  };
}
