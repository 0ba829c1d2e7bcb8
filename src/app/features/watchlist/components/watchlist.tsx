import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { resolvedSymbolQueryOptions } from '@/app/api/resolve-symbol';
import { tokenStatsQueryOptions } from '@/app/api/token-stats';
import { TokenLogo } from '@/app/components/token-logo';
import { useLiveOverlay } from '@/app/hooks/use-live-overlay';
import { isLiveSymbol } from '@/app/hooks/use-live-trades';
import { formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import { liveStats } from '@/app/lib/live-stats';
import { useApi, useDatafeed } from '@/app/providers/app-providers';
import { pairLabel } from '@/app/lib/orientation';
import {
  quoteName,
  shownQuote,
  watchlistQuotesQueryOptions,
  type WatchedSymbol,
  type WatchlistQuotes,
} from '../api/quotes';

export interface WatchlistProps {
  readonly items: readonly WatchedSymbol[];
  /** The symbol on the chart (highlighted). */
  readonly current?: string;
  readonly onSelect: (item: WatchedSymbol) => void;
  readonly onRemove: (item: WatchedSymbol) => void;
}

/**
 * Watched pairs with their price (live for Aggregate pools) and 24 h change, all from one quotes request; a click
 * shows one.
 */
export function Watchlist({ items, current, onSelect, onRemove }: WatchlistProps) {
  const api = useApi();
  const quotes = useQuery(watchlistQuotesQueryOptions(api, items));
  return (
    <section className="watchlist" aria-labelledby="watchlist-title" data-testid="watchlist">
      <h2 id="watchlist-title" className="panel-title">
        Watchlist
      </h2>
      {items.length === 0 ? (
        <p className="watchlist__empty" data-testid="watchlist-empty">
          Add pairs with the ☆ button next to a pair’s name.
        </p>
      ) : (
        <ul className="watchlist__list">
          {items.map((item) => (
            <WatchRow
              key={`${item.group}:${item.symbol}`}
              item={item}
              current={item.symbol === current}
              quotes={quotes}
              onSelect={onSelect}
              onRemove={onRemove}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function WatchRow({
  item,
  current,
  quotes,
  onSelect,
  onRemove,
}: {
  item: WatchedSymbol;
  current: boolean;
  quotes: UseQueryResult<WatchlistQuotes>;
  onSelect: (item: WatchedSymbol) => void;
  onRemove: (item: WatchedSymbol) => void;
}) {
  const datafeed = useDatafeed();
  const api = useApi();
  const resolved = useQuery(resolvedSymbolQueryOptions(datafeed, item.symbol, item.group));
  const info = resolved.data?.info;
  const row = resolved.data?.row;
  // An upstream without /udf (the hosted API): this row's statistics from /tokens/current, as before quotes.
  const perRow = quotes.data === 'unsupported';
  const stats = useQuery({
    ...tokenStatsQueryOptions(api, row?.ticker ?? '', isLiveSymbol(info)),
    enabled: perRow && row !== undefined,
  });
  const overlay = useLiveOverlay(
    info,
    () => void (perRow ? stats.refetch() : quotes.refetch({ cancelRefetch: false })),
  );
  let shown: { readonly price: number; readonly change: number } | undefined;
  if (perRow) {
    const live = stats.data ? liveStats(stats.data, overlay, stats.dataUpdatedAt) : undefined;
    shown = live && { price: live.current_price, change: live.daily_price_change };
  } else if (quotes.data !== undefined && quotes.data !== 'unsupported') {
    const quote = quotes.data[quoteName(item)];
    shown = quote && shownQuote(quote, quotes.dataUpdatedAt, overlay);
  }
  const label = row ? pairLabel(row) : item.symbol;
  return (
    <li
      className={`watchlist__row${current ? ' watchlist__row--current' : ''}`}
      data-testid="watchlist-item"
      data-symbol={item.symbol}
    >
      <button
        type="button"
        className="watchlist__pick"
        onClick={() => onSelect(item)}
        aria-current={current ? 'true' : undefined}
        aria-label={`Show ${label} on ${item.group}`}
      >
        {row ? <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={20} /> : null}
        <span className="watchlist__pair">
          {label}
          <span className="watchlist__group">{item.group}</span>
        </span>
        {resolved.isError ? (
          <span className="watchlist__error">{resolved.error.message}</span>
        ) : shown && info ? (
          <span className="watchlist__price">
            <span data-testid="watchlist-price" data-value={shown.price}>
              {formatPrice(shown.price, info.pricescale)}
            </span>
            <span className={`trend trend--${percentTrend(shown.change)}`} data-testid="watchlist-change">
              {formatPercent(shown.change)}
            </span>
          </span>
        ) : (
          <span className="watchlist__price watchlist__muted">…</span>
        )}
      </button>
      <button
        type="button"
        className="button button--small button--ghost"
        onClick={() => onRemove(item)}
        aria-label={`Remove ${label} from the watchlist`}
        data-testid="watchlist-remove"
      >
        ✕
      </button>
    </li>
  );
}
