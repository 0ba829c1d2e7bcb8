import { queryOptions } from '@tanstack/react-query';
import { gatewayInfoSchema } from '@/shared/api/gateway';
import type { GatewayClient } from '@/datafeed';

/**
 * GET /gw/v1/info: where the data come from (the source badge), each group's deepest pool. The page
 * carries a copy (src/app/first-paint.ts): the app's services put it in the cache (app-services.ts).
 */
export function gatewayInfoQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['gateway-info'],
    queryFn: ({ signal }) => api.getOrThrow('/info', {}, gatewayInfoSchema, signal),
    staleTime: Infinity,
  });
}
