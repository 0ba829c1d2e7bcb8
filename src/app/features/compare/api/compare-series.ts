import { queryOptions } from '@tanstack/react-query';
import type { Bar, LibrarySymbolInfo, ResolutionString, SearchRow, UdfDatafeed } from '@/datafeed';
import { toWireResolution } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { RESOLUTION_SECONDS } from '@/shared/resolutions';

/** Pools compared at most (Aggregate and the deepest DEX pools). */
export const MAX_COMPARED = 8;
const COMPARE_BARS = 200;

export interface ComparedPool {
  readonly row: SearchRow;
  readonly bars: readonly Bar[];
  readonly error?: string;
}

/** Every pool of the pair (same base and quote tokens): Aggregate first, then DEX pools by TVL. */
export async function pairPools(datafeed: UdfDatafeed, row: SearchRow): Promise<SearchRow[]> {
  const rows = await datafeed.search(row.quoteUnit || row.symbol, undefined, 1000);
  const same = rows.filter((r) => r.baseUnit === row.baseUnit && r.quoteUnit === row.quoteUnit);
  const aggregate = same.filter((r) => r.exchange === AGGREGATE_GROUP);
  const dex = same.filter((r) => r.exchange !== AGGREGATE_GROUP).sort((a, b) => (b.tvl ?? 0) - (a.tvl ?? 0));
  return [...aggregate, ...dex].slice(0, MAX_COMPARED);
}

function resolve(datafeed: UdfDatafeed, name: string): Promise<LibrarySymbolInfo> {
  return new Promise((ok, fail) => datafeed.resolveSymbol(name, ok, (reason) => fail(new Error(reason))));
}

async function recentBars(datafeed: UdfDatafeed, info: LibrarySymbolInfo, resolution: ResolutionString, nowSeconds: number): Promise<Bar[]> {
  const wire = toWireResolution(resolution) ?? '60min';
  const step = RESOLUTION_SECONDS[wire];
  const to = nowSeconds + step;
  return (await datafeed.bars(info, resolution, { from: to - COMPARE_BARS * step, to, countBack: COMPARE_BARS })).bars;
}

/** The recent bars of every pool of the pair at a resolution (a pool that fails carries its error). */
export function compareSeriesQueryOptions(datafeed: UdfDatafeed, row: SearchRow, resolution: ResolutionString) {
  return queryOptions({
    queryKey: ['compare', row.baseUnit, row.quoteUnit, resolution],
    queryFn: async (): Promise<ComparedPool[]> => {
      const pools = await pairPools(datafeed, row);
      const now = Math.floor(Date.now() / 1000);
      return Promise.all(
        pools.map(async (pool) => {
          try {
            const info = await resolve(datafeed, pool.symbol);
            return { row: pool, bars: await recentBars(datafeed, info, resolution, now) };
          } catch (error) {
            return { row: pool, bars: [], error: error instanceof Error ? error.message : String(error) };
          }
        }),
      );
    },
    refetchInterval: 60_000,
    staleTime: 30_000,
  });
}
