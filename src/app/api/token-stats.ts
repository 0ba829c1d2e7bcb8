import { queryOptions } from '@tanstack/react-query';
import { tokenStatsSchema } from '@/shared/api/tokens';
import type { GatewayClient } from '@/datafeed';

/**
 * GET /gw/v1/tokens/current?pool=<pool ID>: the pool's statistics. Aggregate pools also follow live
 * events between refreshes; DEX pools have no live updates, so they are refreshed more often.
 */
export function tokenStatsQueryOptions(api: GatewayClient, pool: string, live: boolean) {
  return queryOptions({
    queryKey: ['token-stats', pool.toLowerCase()],
    queryFn: ({ signal }) => api.getOrThrow('/tokens/current', { pool }, tokenStatsSchema, signal),
    refetchInterval: live ? 120_000 : 30_000,
    staleTime: 15_000,
  });
}

/**
 * GET /gw/v1/tokens/current?policy=<token unit>: a token's statistics (its deepest Aggregate pool's):
 * its price in ADA values a token/token pair's trades.
 */
export function tokenStatsByUnitQueryOptions(api: GatewayClient, unit: string) {
  return queryOptions({
    queryKey: ['token-stats-policy', unit],
    queryFn: ({ signal }) => api.getOrThrow('/tokens/current', { policy: unit }, tokenStatsSchema, signal),
    enabled: unit !== '',
    staleTime: 60_000,
  });
}
