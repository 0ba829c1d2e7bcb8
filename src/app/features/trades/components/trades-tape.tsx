import { useCallback, useRef } from 'react';
import type { LibrarySymbolInfo } from '@/datafeed';
import { pairLabel, priceUnit } from '@/app/lib/orientation';
import { usdPairLabel, type Currency } from '@/app/lib/usd';
import { useTraderSettings } from '@/app/hooks/use-trader-settings';
import { usePreferences } from '@/app/providers/app-providers';
import { useTapeRows } from '../hooks/use-tape-rows';
import { useTradeValues } from '../hooks/use-trade-values';
import { TapeFrame } from './tape-frame';
import { TapeRows } from './tape-rows';

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
  /** The pointer is over a trade (its time) or left the list: the chart marks that trade's candle. */
  readonly onHoverTrade?: (time: number | undefined) => void;
}

/**
 * The latest trades of the pair on screen, newest first: filled from the service's stored trades
 * (`/gw/v1/trades`, our extension) and kept live from the stream; paged backwards as the list scrolls,
 * virtualised. Against an upstream without the route it shows what the stream brought since the page
 * opened, and says so.
 */
export function TradesTape({
  info,
  base,
  quote,
  baseUnit = '',
  inverted = false,
  currency = 'ada',
  onHoverTrade,
}: TradesTapeProps) {
  const zone = usePreferences((p) => p.timeZone);
  const { explorer } = useTraderSettings();
  const { rows, stored, noHistory } = useTapeRows(info);
  const { priceOf, valueOf } = useTradeValues(rows, { baseUnit, inverted, currency });
  const scroller = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = stored;
  const more = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (info?.ticker === undefined) return null;
  const usd = currency === 'usd';
  return (
    <TapeFrame
      labels={{ price: usd ? 'USD' : priceUnit({ base, quote }, inverted), value: usd ? 'USD' : 'ADA', base, quote }}
      note={noHistory ? 'Since this page opened: this data source has no trade history' : undefined}
      listLabel={`Trades of ${usd ? usdPairLabel({ quote }) : pairLabel({ base, quote }, inverted)}, newest first`}
      count={rows.length}
      scrollRef={scroller}
    >
      {rows.length === 0 ? (
        <p className="tape__empty">{stored.isPending && !noHistory ? 'Loading trades…' : 'No trades yet'}</p>
      ) : (
        <TapeRows
          rows={rows}
          scroller={scroller}
          zone={zone}
          priceOf={priceOf}
          valueOf={valueOf}
          onNearEnd={more}
          explorer={explorer}
          onHoverTrade={onHoverTrade}
        />
      )}
    </TapeFrame>
  );
}
