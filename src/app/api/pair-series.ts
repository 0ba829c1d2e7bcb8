import type { Bar, LibrarySymbolInfo, ResolutionString, SearchRow, UdfDatafeed } from '@/datafeed';
import { toWireResolution } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { RESOLUTION_SECONDS } from '@/shared/resolutions';

/** Bars of each pool asked (the newest, at the chosen resolution). */
const PAIR_BARS = 200;

/** A pool of a pair with its recent bars (a pool that failed carries its error instead). */
export interface PoolSeries {
  readonly row: SearchRow;
  readonly bars: readonly Bar[];
  readonly error?: string;
}

/** Every pool of the pair (same base and quote tokens): Aggregate first, then DEX pools by TVL; at most `max`. */
export async function pairPoolRows(
  datafeed: UdfDatafeed,
  row: SearchRow,
  max = Number.POSITIVE_INFINITY,
): Promise<SearchRow[]> {
  const rows = await datafeed.search(row.quoteUnit || row.symbol, undefined, 1000);
  const same = rows.filter((r) => r.baseUnit === row.baseUnit && r.quoteUnit === row.quoteUnit);
  const aggregate = same.filter((r) => r.exchange === AGGREGATE_GROUP);
  const dex = same.filter((r) => r.exchange !== AGGREGATE_GROUP).sort((a, b) => (b.tvl ?? 0) - (a.tvl ?? 0));
  return [...aggregate, ...dex].slice(0, max);
}

function resolve(datafeed: UdfDatafeed, name: string): Promise<LibrarySymbolInfo> {
  return new Promise((ok, fail) => datafeed.resolveSymbol(name, ok, (reason) => fail(new Error(reason))));
}

async function recentBars(
  datafeed: UdfDatafeed,
  info: LibrarySymbolInfo,
  resolution: ResolutionString,
  nowSeconds: number,
): Promise<Bar[]> {
  const wire = toWireResolution(resolution) ?? '60min';
  const step = RESOLUTION_SECONDS[wire];
  const to = nowSeconds + step;
  return (await datafeed.bars(info, resolution, { from: to - PAIR_BARS * step, to, countBack: PAIR_BARS })).bars;
}

/** The recent bars of each of `pools` at a resolution, through the datafeed (a pool that fails carries its error). */
export function poolSeries(
  datafeed: UdfDatafeed,
  pools: readonly SearchRow[],
  resolution: ResolutionString,
): Promise<PoolSeries[]> {
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
}
