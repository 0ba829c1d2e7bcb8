import type { TokenStats } from '../../shared/api/tokens';

/** What live bars add to the last statistics fetched. */
export interface LiveOverlay {
  /** Price and TVL after the newest trade seen live. */
  readonly price?: number;
  readonly tvl?: number;
  /** Volume of trades seen live, with when they were seen (ms). */
  readonly volumes: readonly { readonly at: number; readonly volume: number }[];
  /** The newest live bar (1-minute) and its volume, to turn bar updates into volume increments. */
  readonly bar?: { readonly time: number; readonly volume: number };
}

export const EMPTY_OVERLAY: LiveOverlay = { volumes: [] };

/**
 * Folds a live 1-minute bar into the overlay. The first bar of a subscription is the server's newest
 * bar (already in the statistics): it sets price and TVL but adds no volume; later updates of a bar add
 * their volume increase, a new bar its whole volume.
 */
export function applyLiveBar(overlay: LiveOverlay, bar: { time: number; close: number; tvl: number; volume: number }, at: number): LiveOverlay {
  const previous = overlay.bar;
  let added = 0;
  if (previous === undefined) {
    // The server's newest bar: already counted in the statistics.
  } else if (bar.time === previous.time) added = Math.max(0, bar.volume - previous.volume);
  else if (bar.time > previous.time) added = bar.volume;
  else return overlay;
  return {
    price: bar.close,
    tvl: bar.tvl,
    volumes: added > 0 ? [...overlay.volumes.filter((v) => v.at > at - 86_400_000), { at, volume: added }] : overlay.volumes,
    bar: { time: bar.time, volume: bar.volume },
  };
}

/**
 * The statistics to show: the last fetched ones with the live price, TVL and volume on top. Changes are
 * recomputed against the same reference (the price 1 h / 24 h ago implied by the fetched change);
 * volume seen live after the fetch (`fetchedAt`, ms) is added to both windows.
 */
export function liveStats(stats: TokenStats, overlay: LiveOverlay, fetchedAt: number): TokenStats {
  const price = overlay.price ?? stats.current_price;
  const tvl = overlay.tvl ?? stats.current_tvl;
  const changeFrom = (change: number) => {
    const factor = 1 + change / 100;
    if (overlay.price === undefined || factor <= 0 || stats.current_price === 0) return change;
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
