import { useEffect, useEffectEvent } from 'react';
import type { LibrarySymbolInfo, LiveRollback } from '@/datafeed';
import type { TradeEvent } from '@/shared/api/stream';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { useDatafeed } from '@/app/providers/app-providers';

/** Whether the datafeed streams this symbol (Aggregate pools only). */
export function isLiveSymbol(info: LibrarySymbolInfo | undefined): info is LibrarySymbolInfo & { ticker: string } {
  return info !== undefined && info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/** What a component does with an Aggregate symbol's live trades. */
export interface LiveTradeHandlers {
  /** Each trade event as it arrives. */
  readonly onTrade: (event: TradeEvent) => void;
  /** The pool is live, and again when events may have been missed (`resync`). */
  readonly onLive?: (resync: boolean) => void;
  /** The market rolled back on the chain: trades after `rollback.time` were undone (fetch again what was built from them). */
  readonly onRollback?: (rollback: LiveRollback) => void;
}

/**
 * The trade events of an Aggregate symbol through the app's one datafeed (one live connection for
 * everything on screen). Nothing happens for other symbols (DEX pools do not stream).
 */
export function useLiveTrades(info: LibrarySymbolInfo | undefined, handlers: LiveTradeHandlers): void {
  const datafeed = useDatafeed();
  const trade = useEffectEvent(handlers.onTrade);
  const live = useEffectEvent((resync: boolean) => handlers.onLive?.(resync));
  const rolledBack = useEffectEvent((rollback: LiveRollback) => handlers.onRollback?.(rollback));
  useEffect(() => {
    if (!isLiveSymbol(info)) return undefined;
    return datafeed.onTrades(info, { onTrade: (event) => trade(event), onLive: ({ resync }) => live(resync), onRollback: (rollback) => rolledBack(rollback) });
  }, [datafeed, info]);
}
