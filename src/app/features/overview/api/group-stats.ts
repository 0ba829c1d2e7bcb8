import { queryOptions } from '@tanstack/react-query';
import type { GatewayClient } from '../../../../datafeed';
import { groupStatsSchema, type GroupStats } from '../../../../shared/api/extensions';
import { GROUP_STATS_PATH } from '../lib/group-stats-url';

/**
 * GET /gw/v1/group-stats?group=: every pair of the group with its numbers, one request. Refreshed
 * every minute (live trades move the rows shown in between).
 */
export function groupStatsQueryOptions(api: GatewayClient, group: string) {
  return queryOptions({
    queryKey: ['group-stats', group],
    queryFn: ({ signal }) => api.getOrThrow(GROUP_STATS_PATH, { group }, groupStatsSchema, signal),
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
}

/**
 * GET /gw/v1/group-stats?group=&pools=: the numbers of the rows shown, asked while the list's are
 * incomplete (a gateway deriving them from spec endpoints fetches them as they are asked for): every
 * 2 s while some are missing, then every 30 s. `onAnswer` gets each answer (to merge it into the list)
 * and when it was asked (what trades after that time change is not in it).
 */
export function shownStatsQueryOptions(api: GatewayClient, group: string, pools: readonly string[], onAnswer?: (body: GroupStats, askedAt: number) => void) {
  return queryOptions({
    queryKey: ['group-stats', group, 'shown', pools.join(',')],
    queryFn: async ({ signal }) => {
      const askedAt = Date.now();
      const body = await api.getOrThrow(GROUP_STATS_PATH, { group, pools: pools.join(',') }, groupStatsSchema, signal);
      onAnswer?.(body, askedAt);
      return body;
    },
    refetchInterval: (query) => (query.state.data?.complete === false || query.state.status === 'pending' ? 2000 : 30_000),
    staleTime: 1000,
  });
}

/** GET /gw/v1/group-stats?group=&pools=, once: the numbers of these rows now. */
export function fetchShownStats(api: GatewayClient, group: string, pools: readonly string[]): Promise<GroupStats> {
  return api.getOrThrow(GROUP_STATS_PATH, { group, pools: pools.join(',') }, groupStatsSchema);
}
