import { queryOptions } from '@tanstack/react-query';
import { gatewayInfoSchema, type GatewayInfo } from '../../../../shared/api/gateway';
import type { GatewayClient } from '../../../../datafeed';

/** GET /gw/v1/info: where the data come from (the simulator badge), each group's deepest pool. */
export function gatewayInfoQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['gateway-info'],
    queryFn: ({ signal }) => api.getOrThrow('/info', {}, gatewayInfoSchema, signal),
    staleTime: Infinity,
  });
}

/** The pool ID of a group's deepest pool, when the gateway names it (group names match in any case). */
export function deepestOf(info: GatewayInfo | undefined, group: string): string | undefined {
  const deepest = info?.deepest;
  if (!deepest) return undefined;
  const key = Object.keys(deepest).find((g) => g.toLowerCase() === group.toLowerCase());
  return key === undefined ? undefined : deepest[key];
}

