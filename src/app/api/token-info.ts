import { queryOptions } from '@tanstack/react-query';
import { gatewayTokenInfoSchema, type GatewayTokenInfo } from '@/shared/api/gateway';
import type { GatewayClient } from '@/datafeed';

/**
 * GET /gw/v1/token-info/<unit>: the token's registry name, ticker and decimals, from our service's
 * /api/x; over an upstream without it the gateway answers 404: callers fall back to the decoded asset name.
 */
export function tokenInfoQueryOptions(api: GatewayClient, unit: string) {
  return queryOptions({
    queryKey: ['token-info', unit],
    queryFn: ({ signal }): Promise<GatewayTokenInfo> =>
      api.getOrThrow(`/token-info/${encodeURIComponent(unit)}`, {}, gatewayTokenInfoSchema, signal),
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: false,
  });
}
