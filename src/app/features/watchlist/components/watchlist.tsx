import { useQuery } from '@tanstack/react-query';
import { resolvedSymbolQueryOptions } from '@/app/api/resolve-symbol';
import { tokenStatsQueryOptions } from '@/app/api/token-stats';
import { TokenLogo } from '@/app/components/token-logo';
import { useLiveOverlay } from '@/app/hooks/use-live-overlay';
import { isLiveSymbol } from '@/app/hooks/use-live-trades';
import { formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import { liveStats } from '@/app/lib/live-stats';
import { useApi, useDatafeed } from '@/app/providers/app-providers';
import { pairLabel } from '@/app/lib/orientation';

export interface WatchedSymbol {
  readonly symbol: string;
  readonly group: string;
}

export interface WatchlistProps {
  readonly items: readonly WatchedSymbol[];
  /** The symbol on the chart (highlighted). */
  readonly current?: string;
  readonly onSelect: (item: WatchedSymbol) => void;
  readonly onRemove: (item: WatchedSymbol) => void;
}

/** Watched pairs with their price (live for Aggregate pools) and 24 h change; a click shows one. */
export function Watchlist({ items, current, onSelect, onRemove }: WatchlistProps) {
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
  onSelect,
  onRemove,
}: {
  item: WatchedSymbol;
  current: boolean;
  onSelect: (item: WatchedSymbol) => void;
  onRemove: (item: WatchedSymbol) => void;
}) {
  const datafeed = useDatafeed();
  const api = useApi();
  const resolved = useQuery(resolvedSymbolQueryOptions(datafeed, item.symbol, item.group));
  const info = resolved.data?.info;
  const row = resolved.data?.row;
  const stats = useQuery({
    ...tokenStatsQueryOptions(api, row?.ticker ?? '', isLiveSymbol(info)),
    enabled: row !== undefined,
  });
  const overlay = useLiveOverlay(info, () => void stats.refetch());
  const shown = stats.data ? liveStats(stats.data, overlay, stats.dataUpdatedAt) : undefined;
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
            <span data-testid="watchlist-price" data-value={shown.current_price}>
              {formatPrice(shown.current_price, info.pricescale)}
            </span>
            <span className={`trend trend--${percentTrend(shown.daily_price_change)}`}>
              {formatPercent(shown.daily_price_change)}
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
