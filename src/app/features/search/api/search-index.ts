import { queryOptions } from '@tanstack/react-query';
import type { UdfDatafeed } from '../../../../datafeed';
import { PairSearchIndex } from '../lib/pair-search-index';

/** Every symbol the datafeed knows (symbol_info + liquidity of every group), indexed for the search list. */
export function searchIndexQueryOptions(datafeed: UdfDatafeed) {
  return queryOptions({
    queryKey: ['search-index'],
    queryFn: async () => new PairSearchIndex(await datafeed.search('', undefined, Number.MAX_SAFE_INTEGER)),
    staleTime: 10 * 60_000,
    retry: false,
  });
}
