import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient } from '@/datafeed';
import { UDF_QUOTES_MAX, udfQuotesResponseSchema, type UdfQuoteValues } from '@/shared/api/udf';
import { AGGREGATE_GROUP } from '@/shared/groups';

/** A pair on the watchlist: its symbol name and group. */
export interface WatchedSymbol {
  readonly symbol: string;
  readonly group: string;
}

/** A watched pair as /udf/quotes takes it (and names it back): `GROUP:name`. */
export function quoteName(item: WatchedSymbol): string {
  return `${item.group}:${item.symbol}`;
}

/**
 * What the watchlist shows of each pair: its quote (`undefined`: the server does not know it), or `'unsupported'`
 * when the upstream has no /udf (the hosted API): the rows then ask /tokens/current one by one.
 */
export type WatchlistQuotes = Readonly<Record<string, UdfQuoteValues | undefined>> | 'unsupported';

/**
 * GET /gw/v1/udf/quotes?symbols=…: every watched pair's price and 24 hours in one request (at most 100 a request,
 * so a longer list is asked in parts at once). Refreshed every 30 s while a DEX pool (no live updates) is watched,
 * else every 2 min: Aggregate rows follow live trades between refreshes.
 */
export function watchlistQuotesQueryOptions(api: GatewayClient, items: readonly WatchedSymbol[]) {
  const names = [...new Set(items.map(quoteName))];
  return queryOptions({
    queryKey: ['watchlist-quotes', ...names],
    queryFn: async ({ signal }): Promise<WatchlistQuotes> => {
      const parts: string[][] = [];
      for (let i = 0; i < names.length; i += UDF_QUOTES_MAX) parts.push(names.slice(i, i + UDF_QUOTES_MAX));
      try {
        const answers = await Promise.all(
          parts.map((part) =>
            api.getOrThrow('/udf/quotes', { symbols: part.join(',') }, udfQuotesResponseSchema, signal),
          ),
        );
        const quotes: Record<string, UdfQuoteValues | undefined> = {};
        for (const quote of answers.flatMap((a) => a.d)) quotes[quote.n] = quote.s === 'ok' ? quote.v : undefined;
        return quotes;
      } catch (error) {
        if (error instanceof GatewayError && error.status === 404) return 'unsupported';
        throw error;
      }
    },
    enabled: names.length > 0,
    refetchInterval: items.some((i) => i.group !== AGGREGATE_GROUP) ? 30_000 : 120_000,
    staleTime: 15_000,
  });
}

/** The price to show and its change in percent over 24 h: a live trade newer than the quote moves the price. */
export function shownQuote(
  quote: UdfQuoteValues,
  fetchedAt: number,
  live: { readonly price?: number | undefined; readonly at?: number | undefined },
): { readonly price: number; readonly change: number } {
  const price = live.at !== undefined && live.at > fetchedAt && live.price !== undefined ? live.price : quote.lp;
  return { price, change: quote.open_price > 0 ? (price / quote.open_price - 1) * 100 : 0 };
}
