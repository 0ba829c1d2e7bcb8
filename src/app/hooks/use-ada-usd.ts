import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { STABLECOINS } from '@/app/lib/stablecoins';
import { stablecoinStatsQueryOptions } from '@/app/api/ada-usd';
import { liveStats } from '@/app/lib/live-stats';
import { adaUsdOfStats, type AdaUsdNow } from '@/app/lib/usd';
import { useApi, useUsdRates } from '@/app/providers/app-providers';

/** ADA/USD now: being looked for, known (with the stablecoins it comes from), or not available and why. */
export type AdaUsdState =
  | { readonly status: 'loading'; readonly reason: string }
  | { readonly status: 'ready'; readonly now: AdaUsdNow; readonly coins: readonly string[] }
  | { readonly status: 'none' | 'error'; readonly reason: string };

const NO_SUBSCRIPTION = () => () => undefined;

/** Why there is no USD price on a market without any stablecoin pool. */
export const NO_STABLECOIN_REASON = `No USD stablecoin pool (${STABLECOINS.map((c) => c.ticker).join(', ')}) on this market`;

/**
 * ADA/USD now, from the stablecoins' statistics (`/tokens/current?policy=`, spec endpoints), asked for
 * once something `enabled` it (shared by every caller); with `live`, moved by their trades as they
 * happen (the same live connection as everything else).
 */
export function useAdaUsd({
  live = false,
  enabled = true,
}: { readonly live?: boolean; readonly enabled?: boolean } = {}): AdaUsdState {
  const api = useApi();
  const rates = useUsdRates();
  const query = useQuery({ ...stablecoinStatsQueryOptions(api), enabled: enabled || live });
  const quotes = useSyncExternalStore(live ? rates.subscribe : NO_SUBSCRIPTION, rates.liveQuotes, rates.liveQuotes);
  const epoch = useSyncExternalStore(live ? rates.subscribe : NO_SUBSCRIPTION, rates.liveEpoch, rates.liveEpoch);
  const { data, dataUpdatedAt, error, refetch } = query;
  // The stablecoins went live (or may have missed trades): their statistics again, with what live could not bring.
  useEffect(() => {
    if (live && epoch > 0) void refetch();
  }, [live, epoch, refetch]);
  return useMemo((): AdaUsdState => {
    if (!data)
      return error
        ? { status: 'error', reason: `ADA/USD is unavailable: ${error.message}` }
        : { status: 'loading', reason: 'Looking for USD stablecoin pools…' };
    // A stablecoin's trade seen after the fetch moves its price and TVL (lib/live-stats), as for the header.
    const stats = data.map(({ coin, stats: fetched }) => {
      const quote = live ? quotes.get(coin.unit) : undefined;
      return quote
        ? liveStats(fetched, { price: quote.price, tvl: quote.tvl, at: quote.at, volumes: [] }, dataUpdatedAt)
        : fetched;
    });
    const now = adaUsdOfStats(stats);
    if (!now) return { status: 'none', reason: NO_STABLECOIN_REASON };
    return {
      status: 'ready',
      now,
      coins: data.filter((s) => s.stats.current_tvl > 0 && s.stats.current_price > 0).map((s) => s.coin.ticker),
    };
  }, [data, dataUpdatedAt, error, live, quotes]);
}
