import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient } from '@/datafeed';
import { tradesResponseSchema } from '@/shared/api/extensions';
import { tradesOfCandle, type CandleTrades } from '@/shared/candle-trades';
import type { Resolution } from '@/shared/resolutions';

/**
 * The trades inside one candle of a pool (`/gw/v1/trades`, our extension, paged back from the
 * candle's end: shared/candle-trades.ts). An upstream without the route answers 404, not asked again.
 */
export function candleTradesQueryOptions(api: GatewayClient, pool: string, time: number, resolution: Resolution) {
  return queryOptions({
    queryKey: ['candle-trades', pool, resolution, time] as const,
    queryFn: ({ signal }): Promise<CandleTrades> =>
      tradesOfCandle(
        (query) =>
          api.getOrThrow(
            '/trades',
            { pool: query.pool, before: query.before, limit: query.limit },
            tradesResponseSchema,
            signal,
          ),
        pool,
        time,
        resolution,
      ),
    retry: (count, error) => !(error instanceof GatewayError && error.status === 404) && count < 2,
    staleTime: 15_000,
  });
}
