import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient, type SearchRow, type UdfDatafeed } from '@/datafeed';
import { pairPoolsResponseSchema, type PairPool, type PairPoolsResponse } from '@/shared/api/extensions';
import { tokenStatsSchema } from '@/shared/api/tokens';
import { AGGREGATE_GROUP, DEX_GROUPS } from '@/shared/groups';

/**
 * Over an upstream without our `/pair-pools` route: the pair's pools from the groups' symbol lists,
 * then each pool's statistics from the spec's `/tokens/current` (a few requests, one per pool).
 */
async function derivePairPools(
  datafeed: UdfDatafeed,
  api: GatewayClient,
  row: SearchRow,
  signal: AbortSignal,
): Promise<PairPoolsResponse> {
  const lists = await Promise.all(
    DEX_GROUPS.map((group) => datafeed.search(row.quoteUnit || row.symbol, group, 200).catch(() => [] as SearchRow[])),
  );
  const pools = lists
    .flat()
    .filter((r) => r.baseUnit === row.baseUnit && r.quoteUnit === row.quoteUnit && r.exchange !== AGGREGATE_GROUP);
  const [aggregate, ...stats] = await Promise.all(
    [row, ...pools].map((r) => api.getOrThrow('/tokens/current', { pool: r.ticker }, tokenStatsSchema, signal)),
  );
  const aggPrice = aggregate?.current_price ?? 0;
  const aggTvl = aggregate?.current_tvl ?? 0;
  const rows: PairPool[] = pools.map((r, i) => {
    const s = stats[i];
    const price = s?.current_price ?? 0;
    const tvl = s?.current_tvl ?? 0;
    return {
      pool_id: r.ticker,
      symbol: r.symbol,
      group: r.exchange,
      tvl,
      share: aggTvl > 0 ? tvl / aggTvl : 0,
      price,
      deviation_percent: aggPrice > 0 && price > 0 ? (price / aggPrice - 1) * 100 : 0,
      volume_24h: s?.daily_volume ?? 0,
    };
  });
  return {
    s: 'ok',
    aggregate: {
      pool_id: row.ticker,
      symbol: row.symbol,
      price: aggPrice,
      tvl: aggTvl,
      volume_24h: aggregate?.daily_volume ?? 0,
    },
    pools: rows.sort((a, b) => b.tvl - a.tvl),
  };
}

/**
 * GET /gw/v1/pair-pools?pool=<Aggregate pool>: the pools an Aggregate comes from (our extension route),
 * or, over an upstream without it, the same derived from spec endpoints. Refreshed every 15 s.
 */
export function pairPoolsQueryOptions(api: GatewayClient, datafeed: UdfDatafeed, row: SearchRow) {
  return queryOptions({
    queryKey: ['pair-pools', row.ticker],
    queryFn: async ({ signal }): Promise<PairPoolsResponse> => {
      try {
        return await api.getOrThrow('/pair-pools', { pool: row.ticker }, pairPoolsResponseSchema, signal);
      } catch (error) {
        if (error instanceof GatewayError && error.status === 404) return derivePairPools(datafeed, api, row, signal);
        throw error;
      }
    },
    refetchInterval: 15_000,
  });
}
