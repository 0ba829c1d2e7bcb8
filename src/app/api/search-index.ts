import { queryOptions } from '@tanstack/react-query';
import type { UdfDatafeed } from '@/datafeed';

/** The key every search index shares (invalidating it asks every one again: an unknown symbol may exist by now). */
export const SEARCH_INDEX_KEY = ['search-index'] as const;

/**
 * The symbols the datafeed knows (symbol_info and liquidity of every group, or of `group` alone: the
 * market overview's), indexed for search: the top bar's search and the overview's filter.
 */
export function searchIndexQueryOptions(datafeed: UdfDatafeed, group?: string) {
  return queryOptions({
    queryKey: [...SEARCH_INDEX_KEY, group ?? 'every group'] as const,
    queryFn: () => datafeed.searchIndex(group),
    staleTime: 10 * 60_000,
    retry: false,
  });
}
