import { queryOptions } from '@tanstack/react-query';
import { gatewayInfoSchema } from '@/shared/api/gateway';
import type { GatewayClient } from '@/datafeed';

/** GET /gw/v1/info: where the data come from (the simulator badge), each group's deepest pool. */
export function gatewayInfoQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['gateway-info'],
    queryFn: ({ signal }) => api.getOrThrow('/info', {}, gatewayInfoSchema, signal),
    staleTime: Infinity,
  });
}

export { deepestOf } from '@/shared/first-chart';
