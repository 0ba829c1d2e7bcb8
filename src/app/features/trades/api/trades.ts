import { infiniteQueryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient } from '@/datafeed';
import { tradesResponseSchema, type TradesResponse } from '@/shared/api/extensions';

/** Trades per page of the tape. */
export const TRADES_PAGE = 100;

/**
 * GET /gw/v1/trades?pool=&before=&limit=: a pool's stored trades, newest first, paged backwards
 * (our extension route; an upstream without it answers 404, which is not asked again). `live`: an
 * Aggregate pool, followed live (otherwise the tape refreshes on its own).
 */
export function tradesQueryOptions(api: GatewayClient, pool: string | undefined, live: boolean) {
  return infiniteQueryOptions({
    queryKey: ['trades-tape', pool] as const,
    enabled: pool !== undefined,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }): Promise<TradesResponse> =>
      api.getOrThrow(
        '/trades',
        { pool: pool ?? '', limit: TRADES_PAGE, ...(pageParam ? { before: pageParam } : {}) },
        tradesResponseSchema,
        signal,
      ),
    getNextPageParam: (last) => last.next ?? undefined,
    retry: (count, error) => !(error instanceof GatewayError && error.status === 404) && count < 2,
    // DEX pools do not stream: their tape refreshes on its own.
    refetchInterval: live ? false : 15_000,
  });
}
