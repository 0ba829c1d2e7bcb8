import { queryOptions } from '@tanstack/react-query';
import type { ResolutionString, SearchRow, UdfDatafeed } from '@/datafeed';
import { pairPoolRows, poolSeries, type PoolSeries } from '@/app/api/pair-series';

/** Every pool of the pair (each group's, and the Aggregate first) with its recent bars at a resolution. */
export function spreadSeriesQueryOptions(datafeed: UdfDatafeed, row: SearchRow, resolution: ResolutionString) {
  return queryOptions({
    queryKey: ['spread-series', row.baseUnit, row.quoteUnit, resolution],
    queryFn: async (): Promise<PoolSeries[]> => poolSeries(datafeed, await pairPoolRows(datafeed, row), resolution),
    refetchInterval: 60_000,
    staleTime: 30_000,
  });
}
