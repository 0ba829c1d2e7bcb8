import { useEffect, useEffectEvent } from 'react';
import type { LibrarySymbolInfo } from '@/datafeed';
import type { TradeEvent } from '@/shared/api/stream';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { useDatafeed } from '@/app/providers/app-providers';

/** Whether the datafeed streams this symbol (Aggregate pools only). */
export function isLiveSymbol(info: LibrarySymbolInfo | undefined): info is LibrarySymbolInfo & { ticker: string } {
  return info !== undefined && info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/**
 * The trade events of an Aggregate symbol through the app's one datafeed (one live connection for
 * everything on screen): `onTrade` for each as it arrives, `onLive` when the pool is live and again
 * when events may have been missed (`resync`). Nothing happens for other symbols (DEX pools do not stream).
 */
export function useLiveTrades(info: LibrarySymbolInfo | undefined, onTrade: (event: TradeEvent) => void, onLive?: (resync: boolean) => void): void {
  const datafeed = useDatafeed();
  const trade = useEffectEvent(onTrade);
  const live = useEffectEvent((resync: boolean) => onLive?.(resync));
  useEffect(() => {
    if (!isLiveSymbol(info)) return undefined;
    return datafeed.onTrades(info, { onTrade: (event) => trade(event), onLive: ({ resync }) => live(resync) });
  }, [datafeed, info]);
}
