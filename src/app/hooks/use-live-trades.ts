import { useEffect, useEffectEvent } from 'react';
import type { LibrarySymbolInfo, LiveRollback } from '@/datafeed';
import type { TradeEvent } from '@/shared/api/stream';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { FrameQueue } from '@/app/lib/frame-queue';
import { useDatafeed } from '@/app/providers/app-providers';

/**
 * Trades reach components once per frame, every component's in the same frame: their state changes
 * make one React render with all the trades since the last, not one render per trade (a busy pair
 * brings one every few milliseconds).
 */
const tradeFrames = new FrameQueue();

/** Whether the datafeed streams this symbol (Aggregate pools only). */
export function isLiveSymbol(info: LibrarySymbolInfo | undefined): info is LibrarySymbolInfo & { ticker: string } {
  return info !== undefined && info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/** What a component does with an Aggregate symbol's live trades. */
export interface LiveTradeHandlers {
  /** Each trade event, in the stream's order, on the frame after it arrived (all of a frame's in one React render). */
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
    let waiting: TradeEvent[] = [];
    const deliver = () => {
      const events = waiting;
      waiting = [];
      for (const event of events) trade(event);
    };
    const stop = datafeed.onTrades(info, {
      onTrade: (event) => {
        waiting.push(event);
        tradeFrames.request(deliver);
      },
      // In the stream's order: the trades before it first.
      onLive: ({ resync }) => {
        deliver();
        live(resync);
      },
      onRollback: (rollback) => {
        deliver();
        rolledBack(rollback);
      },
    });
    return () => {
      tradeFrames.cancel(deliver);
      stop();
    };
  }, [datafeed, info]);
}
