import { queryOptions } from '@tanstack/react-query';
import { groupsResponseSchema } from '@/shared/api/groups';
import type { GatewayClient } from '@/datafeed';

/** GET /gw/v1/groups: the DEX groups and Aggregate. */
export function groupsQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['groups'],
    queryFn: async ({ signal }) =>
      (await api.getOrThrow('/groups', {}, groupsResponseSchema, signal)).d.groups.map((g) => g.id),
    staleTime: 5 * 60_000,
  });
}
