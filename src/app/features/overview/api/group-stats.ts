import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { GatewayClient } from '@/datafeed';
import { groupStatsSchema, type GroupStats } from '@/shared/api/extensions';
import { GROUP_STATS_PATH } from '../lib/group-stats-url';
import { mergeAnswers } from '../lib/rows';

/**
 * GET /gw/v1/group-stats?group=: every pair of the group with its numbers, one request. Refreshed
 * every minute (live trades move the rows shown in between).
 */
export function groupStatsQueryOptions(api: GatewayClient, group: string) {
  return queryOptions({
    queryKey: ['group-stats', group],
    queryFn: async ({ signal }) => {
      const at = Date.now();
      const body = await api.getOrThrow(GROUP_STATS_PATH, { group }, groupStatsSchema, signal);
      ASKED_AT.set(body, at);
      return body;
    },
    staleTime: 30_000,
    refetchInterval: 60_000,
    // Each answer is a new object (its ask time is filed under it); 6,000 rows are not compared deeply.
    structuralSharing: false,
  });
}

/** Longest the app's first render of the overview waits for the list (prefetchList). */
const FIRST_LIST_WAIT_MS = 250;

/**
 * The list of `group` asked into the query cache before the app's first render of a page opened on
 * the overview (src/app/start.tsx), as its table's own query (which takes it): that render shows the
 * rows, not the list loading and then a second render. The list is usually in already (the page
 * preloads it: src/server/first-paint.ts); one that takes longer than FIRST_LIST_WAIT_MS does not hold
 * the app back (its rows come when it does).
 */
export function prefetchList(
  { queryClient, api }: { readonly queryClient: QueryClient; readonly api: GatewayClient },
  group: string,
): Promise<void> {
  return Promise.race([
    queryClient.prefetchQuery(groupStatsQueryOptions(api, group)),
    new Promise<void>((resolve) => setTimeout(resolve, FIRST_LIST_WAIT_MS)),
  ]);
}

/**
 * When each list answer was asked (ms, the page's clock). A trade seen live after that time may be
 * missing from the answer; one seen before is in it. (The query's own `dataUpdatedAt` is when the
 * answer arrived: a trade seen while the request was on its way would be taken as already in it.)
 */
const ASKED_AT = new WeakMap<GroupStats, number>();

/** When `body` (a list answer, or one merged from it) was asked; undefined for another object. */
export function listAskedAt(body: GroupStats): number | undefined {
  return ASKED_AT.get(body);
}

/** `into` with the numbers `from` has merged in (rows answered apart), keeping `into`'s ask time. */
export function mergeIntoList(into: GroupStats, from: GroupStats): GroupStats {
  const merged = mergeAnswers(into, from);
  const at = ASKED_AT.get(into);
  if (at !== undefined) ASKED_AT.set(merged, at);
  return merged;
}

/**
 * GET /gw/v1/group-stats?group=&pools=: the numbers of the rows shown, asked while the list's are
 * incomplete (a gateway deriving them from spec endpoints fetches them as they are asked for): every
 * 2 s while some are missing, then every 30 s. `onAnswer` gets each answer (to merge it into the list)
 * and when it was asked (what trades after that time change is not in it).
 */
export function shownStatsQueryOptions(
  api: GatewayClient,
  group: string,
  pools: readonly string[],
  onAnswer?: (body: GroupStats, askedAt: number) => void,
) {
  return queryOptions({
    queryKey: ['group-stats', group, 'shown', pools.join(',')],
    queryFn: async ({ signal }) => {
      const askedAt = Date.now();
      const body = await api.getOrThrow(GROUP_STATS_PATH, { group, pools: pools.join(',') }, groupStatsSchema, signal);
      onAnswer?.(body, askedAt);
      return body;
    },
    refetchInterval: (query) =>
      query.state.data?.complete === false || query.state.status === 'pending' ? 2000 : 30_000,
    staleTime: 1000,
  });
}

/** GET /gw/v1/group-stats?group=&pools=, once: the numbers of these rows now. */
export function fetchShownStats(api: GatewayClient, group: string, pools: readonly string[]): Promise<GroupStats> {
  return api.getOrThrow(GROUP_STATS_PATH, { group, pools: pools.join(',') }, groupStatsSchema);
}
