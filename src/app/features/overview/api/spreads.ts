import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient } from '@/datafeed';
import { spreadsSchema } from '@/shared/api/extensions';
import { spreadsByPair } from '../lib/rows';

/**
 * GET /gw/v1/spreads?min_tvl=: every pair's spread across its DEX pools in one answer (our extension;
 * an upstream without it answers 404, not asked again: the column then says why it is empty).
 * Refreshed every minute, as the list.
 */
export function spreadsQueryOptions(api: GatewayClient, minTvl: number) {
  return queryOptions({
    queryKey: ['spreads', minTvl],
    queryFn: async ({ signal }) =>
      spreadsByPair(await api.getOrThrow('/spreads', { min_tvl: minTvl }, spreadsSchema, signal)),
    retry: (count, error) => !(error instanceof GatewayError && error.status === 404) && count < 2,
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
}
