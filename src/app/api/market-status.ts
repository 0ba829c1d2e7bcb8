import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient } from '@/datafeed';
import { marketStatusSchema, type MarketStatus } from '@/shared/api/extensions';

/**
 * GET /gw/v1/status: how fresh the market is and what its source decodes per group (docs/chain.md "Freshness");
 * null over an upstream without it (the hosted API). Asked again every 30 s.
 */
export function marketStatusQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['market-status'],
    queryFn: async ({ signal }): Promise<MarketStatus | null> => {
      try {
        return await api.getOrThrow('/status', {}, marketStatusSchema, signal);
      } catch (error) {
        if (error instanceof GatewayError && error.status === 404) return null;
        throw error;
      }
    },
    refetchInterval: 30_000,
    staleTime: 15_000,
  });
}
