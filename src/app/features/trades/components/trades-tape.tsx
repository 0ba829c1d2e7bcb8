import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useReducer, useRef, useState, useSyncExternalStore } from 'react';
import type { LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { GatewayError } from '@/datafeed';
import { tradesResponseSchema, type TapeTrade, type TradesResponse } from '@/shared/api/extensions';
import type { TradeEvent } from '@/shared/api/stream';
import { tokenStatsSchema } from '@/shared/api/tokens';
import { isLiveSymbol, useLiveTrades } from '@/app/hooks/use-live-trades';
import { formatAmount, formatPrice } from '@/app/lib/format';
import { invertPrice, pairLabel, priceUnit } from '@/app/lib/orientation';
import { usdPairLabel, type Currency } from '@/app/lib/usd';
import { formatDateTime, formatTimeOfDay } from '@/app/lib/time-format';
import { useApi, usePreferences, useUsdRates } from '@/app/providers/app-providers';

/** A row of the tape: a stored trade, or one the live stream brought (no id, no DEX). */
interface TapeRow extends Omit<TapeTrade, 'id' | 'pool_id' | 'group'> {
  readonly key: string;
  readonly id?: string;
  readonly group?: string;
}

const PAGE = 100;
const ROW_HEIGHT = 28;
/** Live rows kept when the source has no trade history (bounded memory). */
const LIVE_ROWS = 2_000;
/** A trade of the Cardano chain (its event id is the transaction's hash and output), whatever the upstream: linked to an explorer. */
const CHAIN_ID = /^([0-9a-f]{64})#\d+$/i;
/** The rates the tape values trades at: ADA/USD of the trade's hour (lib/usd). */
const RATE_RESOLUTION = '60' as ResolutionString;
const HOUR = 3600;
const NO_SUBSCRIPTION = () => () => undefined;

function fromEvent(event: TradeEvent, n: number): TapeRow {
  const mean = (event.current_price + event.previous_price) / 2;
  return {
    key: `live-${n}`,
    time: event.block_time,
    side: event.current_price >= event.previous_price ? 'buy' : 'sell',
    price: event.current_price,
    previous_price: event.previous_price,
    base_amount: event.volume,
    quote_amount: mean > 0 ? event.volume / mean : 0,
    tvl: event.current_tvl,
  };
}


/**
 * The latest trades of the pair on screen, newest first: filled from the service's stored trades
 * (`/gw/v1/trades`, our extension) and kept live from the stream; paged backwards as the list
 * scrolls, virtualised. Against an upstream without the route it shows what the stream brought since
 * the page opened, and says so.
 */
export interface TradesTapeProps {
  readonly info: LibrarySymbolInfo | undefined;
  readonly base: string;
  readonly quote: string;
  /** The base token's unit ('' for ADA): a token/token pair's trades are valued at its ADA price. */
  readonly baseUnit?: string;
  /** Prices inverted (lib/orientation). */
  readonly inverted?: boolean;
  /** Prices and values in USD (lib/usd; an ADA pair, not inverted). */
  readonly currency?: Currency;
}

export function TradesTape({ info, base, quote, baseUnit = '', inverted = false, currency = 'ada' }: TradesTapeProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const pool = info?.ticker;
  const zone = usePreferences((p) => p.timeZone);
  const [live, setLive] = useState<TapeRow[]>([]);
  const counter = useRef(0);
  const key = useMemo(() => ['trades-tape', pool] as const, [pool]);

  const stored = useInfiniteQuery({
    queryKey: key,
    enabled: pool !== undefined,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }): Promise<TradesResponse> =>
      api.getOrThrow('/trades', { pool: pool ?? '', limit: PAGE, ...(pageParam ? { before: pageParam } : {}) }, tradesResponseSchema, signal),
    getNextPageParam: (last) => last.next ?? undefined,
    retry: (count, error) => !(error instanceof GatewayError && error.status === 404) && count < 2,
    // DEX pools do not stream: their tape refreshes on its own.
    refetchInterval: isLiveSymbol(info) ? false : 15_000,
  });
  const noHistory = stored.error instanceof GatewayError && stored.error.status === 404;

  useEffect(() => {
    setLive([]);
  }, [pool]);

  // Live: a new trade shows at once; the stored page (with its DEX and transaction) replaces it soon after.
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);
  useLiveTrades(
    info,
    (event) => {
      counter.current++;
      setLive((rows) => [fromEvent(event, counter.current), ...rows].slice(0, LIVE_ROWS));
      if (noHistory) return;
      clearTimeout(refresh.current);
      refresh.current = setTimeout(() => {
        void queryClient.resetQueries({ queryKey: key, exact: true }).then(() => setLive([]));
      }, 400);
    },
    (resync) => {
      if (resync && !noHistory) void queryClient.resetQueries({ queryKey: key, exact: true }).then(() => setLive([]));
    },
  );

  const rows: TapeRow[] = useMemo(() => {
    const pages = stored.data?.pages.flatMap((p) => p.trades) ?? [];
    return [...live, ...pages.map((t) => ({ ...t, key: t.id }))];
  }, [live, stored.data]);

  // A trade's value in ADA: its base amount (ADA pairs), or that amount at the base token's ADA price now.
  const baseInAda = useQuery({
    queryKey: ['token-stats-policy', baseUnit],
    queryFn: ({ signal }) => api.getOrThrow('/tokens/current', { policy: baseUnit }, tokenStatsSchema, signal),
    enabled: baseUnit !== '',
    staleTime: 60_000,
  });
  const adaPerBase = baseUnit === '' ? 1 : baseInAda.data?.current_price;

  // In USD: ADA/USD of each trade's hour, loaded over the rows' span (and moved live by stablecoin trades).
  const usd = currency === 'usd';
  const rates = useUsdRates();
  // Rendered again as the book's rates change: a stablecoin traded, a span loaded.
  useSyncExternalStore(usd ? rates.subscribe : NO_SUBSCRIPTION, rates.liveQuotes, rates.liveQuotes);
  const [, ratesLoaded] = useReducer((n: number) => n + 1, 0);
  const oldest = rows.at(-1)?.time;
  const newest = rows[0]?.time;
  useEffect(() => {
    if (!usd || oldest === undefined || newest === undefined) return undefined;
    let current = true;
    rates.ensure(RATE_RESOLUTION, oldest - (oldest % HOUR), newest + HOUR).then(
      () => current && ratesLoaded(),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [usd, rates, oldest, newest]);
  const rateAt = (time: number) => (usd ? rates.rateAt(RATE_RESOLUTION, time) : 1);

  const scroller = useRef<HTMLDivElement>(null);
  // The virtualizer's functions are only used inside this component (nothing memoized depends on them).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - 20 && stored.hasNextPage && !stored.isFetchingNextPage) void stored.fetchNextPage();
  }, [lastIndex, rows.length, stored]);

  if (pool === undefined) return null;
  const unit = usd ? 'USD' : priceUnit({ base, quote }, inverted);
  const valueUnit = usd ? 'USD' : 'ADA';
  return (
    <section className="tape" aria-label="Trades" data-testid="trades-tape">
      <header className="tape__head">
        <h2 className="tape__title">Trades</h2>
        {noHistory ? (
          <span className="tape__note" data-testid="tape-note">
            Since this page opened: this data source has no trade history
          </span>
        ) : null}
      </header>
      <div className="tape__row tape__row--labels" aria-hidden="true">
        <span>Time</span>
        <span>Side</span>
        <span>Price ({unit})</span>
        <span>Value ({valueUnit})</span>
        <span>{base}</span>
        <span>{quote}</span>
        <span>DEX</span>
        <span />
      </div>
      {/* Focusable, so the list scrolls from the keyboard too (arrows, Page Up/Down). */}
      <div ref={scroller} className="tape__scroll" role="list" aria-label={`Trades of ${usd ? usdPairLabel({ quote }) : pairLabel({ base, quote }, inverted)}, newest first`} tabIndex={0} data-testid="tape-rows" data-count={rows.length}>
        {rows.length === 0 ? (
          <p className="tape__empty">{stored.isPending && !noHistory ? 'Loading trades…' : 'No trades yet'}</p>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const row = rows[item.index] as TapeRow;
              const tx = row.id ? CHAIN_ID.exec(row.id)?.[1]?.toLowerCase() : undefined;
              const rate = rateAt(row.time);
              const price = usd ? (rate === undefined ? Number.NaN : row.price * rate) : inverted ? invertPrice(row.price) : row.price;
              const value = adaPerBase === undefined || rate === undefined ? Number.NaN : row.base_amount * adaPerBase * rate;
              return (
                <div
                  key={row.key}
                  role="listitem"
                  className={`tape__row tape__row--${row.side}`}
                  data-testid="tape-row"
                  data-side={row.side}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                >
                  <span title={formatDateTime(row.time, zone, true)}>{formatTimeOfDay(row.time, zone)}</span>
                  <span className="tape__side">{row.side === 'buy' ? 'Buy' : 'Sell'}</span>
                  <span data-testid="tape-price" data-value={Number.isFinite(price) ? price : undefined}>
                    {formatPrice(price)}
                  </span>
                  <span data-testid="tape-value" data-value={Number.isFinite(value) ? value : undefined}>
                    {formatAmount(value)}
                  </span>
                  <span>{formatAmount(row.base_amount)}</span>
                  <span>{formatAmount(row.quote_amount)}</span>
                  <span data-testid="tape-dex">{row.group ?? ''}</span>
                  <span>
                    {tx ? (
                      <a href={`https://cexplorer.io/tx/${tx}`} target="_blank" rel="noreferrer noopener" title="The transaction on a Cardano explorer" data-testid="tape-tx">
                        tx ↗
                      </a>
                    ) : null}
                  </span>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </section>
  );
}
