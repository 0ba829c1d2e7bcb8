import { useEffect, useEffectEvent } from 'react';
import type { LibrarySymbolInfo, LiveRollback } from '@/datafeed';
import type { TradeEvent } from '@/shared/api/stream';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { FrameQueue } from '@/app/lib/frame-queue';
import { useDatafeed } from '@/app/providers/app-providers';

/**
 * At least this long between two deliveries of trades to components: ten a second. What they show
 * is text (the tape's rows, the header's price and volume), which no one reads faster; the chart's
 * candles follow every trade on their own (features/chart, each frame). Delivered every frame, a busy
 * pair made React render and the page lay out and paint the tape and header 50 times a second: with
 * four charts drawing too, frames of 50-60 ms (bench: "four charts", "tape").
 */
const TRADE_DELIVERY_MS = 100;

/**
 * Trades reach components in one frame, every component's in the same frame, at most every
 * TRADE_DELIVERY_MS: their state changes make one React render with all the trades since the last,
 * not one render per trade (a busy pair brings one every few milliseconds).
 */
const tradeFrames = new FrameQueue(Number.POSITIVE_INFINITY, TRADE_DELIVERY_MS);

/** Whether the datafeed streams this symbol (Aggregate pools only). */
export function isLiveSymbol(info: LibrarySymbolInfo | undefined): info is LibrarySymbolInfo & { ticker: string } {
  return info !== undefined && info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/** What a component does with an Aggregate symbol's live trades. */
export interface LiveTradeHandlers {
  /** Each trade event, in the stream's order, within TRADE_DELIVERY_MS and a frame of its arrival (all of them in one React render). */
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
