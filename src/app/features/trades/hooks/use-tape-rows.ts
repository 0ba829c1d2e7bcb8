import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { GatewayError, type LibrarySymbolInfo } from '@/datafeed';
import type { TapeTrade } from '@/shared/api/extensions';
import type { TradeEvent } from '@/shared/api/stream';
import { isLiveSymbol, useLiveTrades } from '@/app/hooks/use-live-trades';
import { useApi } from '@/app/providers/app-providers';
import { tradesQueryOptions } from '../api/trades';

/** A row of the tape: a stored trade, or one the live stream brought (no id, no DEX). */
export interface TapeRow extends Omit<TapeTrade, 'id' | 'pool_id' | 'group'> {
  readonly key: string;
  readonly id?: string;
  readonly group?: string;
}

/** Live rows kept when the source has no trade history (bounded memory). */
const LIVE_ROWS = 2_000;
/** How long after the last live trade the stored page (with its DEX and transaction) replaces the live rows. */
const STORED_AFTER_MS = 400;

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
 * The tape's rows, newest first: the pool's stored trades (/gw/v1/trades, paged backwards on demand),
 * and the live stream's trades on top of them as they come; the stored page replaces those shortly
 * after the stream pauses. Without a trade history upstream (`noHistory`), what the stream brought.
 */
export function useTapeRows(info: LibrarySymbolInfo | undefined) {
  const api = useApi();
  const queryClient = useQueryClient();
  const options = tradesQueryOptions(api, info?.ticker, isLiveSymbol(info));
  const stored = useInfiniteQuery(options);
  const noHistory = stored.error instanceof GatewayError && stored.error.status === 404;
  const pool = info?.ticker;
  // The live rows of the pool they came for: another pool starts with none.
  const [live, setLive] = useState<{ readonly pool: string | undefined; readonly rows: readonly TapeRow[] }>({
    pool,
    rows: [],
  });
  const counter = useRef(0);
  const key = options.queryKey;

  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);
  const storedAgain = () =>
    void queryClient.resetQueries({ queryKey: key, exact: true }).then(() => setLive({ pool, rows: [] }));
  useLiveTrades(info, {
    onTrade: (event) => {
      counter.current++;
      const row = fromEvent(event, counter.current);
      setLive((state) => ({ pool, rows: [row, ...(state.pool === pool ? state.rows : [])].slice(0, LIVE_ROWS) }));
      if (noHistory) return;
      clearTimeout(refresh.current);
      refresh.current = setTimeout(storedAgain, STORED_AFTER_MS);
    },
    onLive: (resync) => {
      if (resync && !noHistory) storedAgain();
    },
    // A chain rollback undid the trades after its time: the stored page again, or (no history) the live rows before it.
    onRollback: (rollback) => {
      if (!noHistory) {
        clearTimeout(refresh.current);
        storedAgain();
        return;
      }
      setLive((state) => ({
        pool,
        rows: state.pool === pool ? state.rows.filter((row) => row.time <= rollback.time) : [],
      }));
    },
  });

  const rows: TapeRow[] = useMemo(() => {
    const pages = stored.data?.pages.flatMap((p) => p.trades) ?? [];
    return [...(live.pool === pool ? live.rows : []), ...pages.map((t) => ({ ...t, key: t.id }))];
  }, [live, pool, stored.data]);

  return { rows, stored, noHistory };
}
