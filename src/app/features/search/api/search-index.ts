import { queryOptions } from '@tanstack/react-query';
import type { UdfDatafeed } from '@/datafeed';

/** Every symbol the datafeed knows (symbol_info + liquidity of every group), indexed for the search list. */
export function searchIndexQueryOptions(datafeed: UdfDatafeed) {
  return queryOptions({
    queryKey: ['search-index'],
    queryFn: () => datafeed.searchIndex(),
    staleTime: 10 * 60_000,
    retry: false,
  });
}
