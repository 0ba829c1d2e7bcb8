import { queryOptions } from '@tanstack/react-query';
import { gatewayLiquiditySchema } from '../../../../shared/api/gateway';
import type { ApiClient } from '../../../lib/api-client';

/**
 * GET /gw/v1/liquidity?group=: TVL of every symbol of a group. The shell uses it to find a group's
 * deepest pool (the default symbol) without waiting for the group's whole symbol list.
 */
export function liquidityQueryOptions(api: ApiClient, group: string) {
  return queryOptions({
    queryKey: ['liquidity', group],
    queryFn: ({ signal }) => api.get('/liquidity', { group }, gatewayLiquiditySchema, signal),
    staleTime: 60_000,
  });
}

/** The pool ID with the most TVL (valued in ADA), or undefined for an empty group. */
export function deepestPool(body: { ticker: readonly string[]; tvl_ada: readonly number[] }): string | undefined {
  let best: string | undefined;
  let bestTvl = -Infinity;
  body.ticker.forEach((ticker, i) => {
    const tvl = body.tvl_ada[i] ?? 0;
    if (tvl > bestTvl) {
      bestTvl = tvl;
      best = ticker;
    }
  });
  return best;
}
