import { queryOptions } from '@tanstack/react-query';
import type { ResolutionString, SearchRow, UdfDatafeed } from '@/datafeed';
import { pairPoolRows, poolSeries, type PoolSeries } from '@/app/api/pair-series';

/** Pools compared at most (Aggregate and the deepest DEX pools). */
const MAX_COMPARED = 8;

type ComparedPool = PoolSeries;

/** The recent bars of every pool of the pair at a resolution (a pool that fails carries its error). */
export function compareSeriesQueryOptions(datafeed: UdfDatafeed, row: SearchRow, resolution: ResolutionString) {
  return queryOptions({
    queryKey: ['compare', row.baseUnit, row.quoteUnit, resolution],
    queryFn: async (): Promise<ComparedPool[]> =>
      poolSeries(datafeed, await pairPoolRows(datafeed, row, MAX_COMPARED), resolution),
    refetchInterval: 60_000,
    staleTime: 30_000,
  });
}
