import type { TapeTrade, TradesResponse } from './api/extensions';
import { barsFromEvents, type Bar, type BarEvent } from './bars';
import { RESOLUTION_SECONDS, type Resolution } from './resolutions';

/**
 * Every candle traced to its trades: the trades inside one bar, read from the
 * extension trades route, and the candle they make by the bar rule (shared/bars.ts), so what the
 * list shows can be checked against the bar the chart drew.
 */

/** Volumes travel as whole base units from millionths (the store's VOLUME_SCALE): summed back in millionths, exactly. */
const VOLUME_SCALE = 1_000_000;

/** Most trades read for one candle (pages of the route's maximum, 500): a busier candle says it is cut. */
const CANDLE_TRADES_MAX = 5_000;
const PAGE = 500;

/** One page of `GET …/trades?pool=&before=&limit=`, newest first. */
export type TradesPage = (query: {
  readonly pool: string;
  readonly before: string;
  readonly limit: number;
}) => Promise<TradesResponse>;

export interface CandleTrades {
  /** The candle's trades, oldest first (the order the bar folds them). */
  readonly trades: readonly TapeTrade[];
  /** More than CANDLE_TRADES_MAX trades: the list holds the newest of them only. */
  readonly cut: boolean;
}

/** The bucket `[start, end)` of a bar at a resolution. */
function candleSpan(time: number, resolution: Resolution): { readonly start: number; readonly end: number } {
  return { start: time, end: time + RESOLUTION_SECONDS[resolution] };
}

/**
 * The trades of `pool` inside the bar that starts at `time`: pages backwards from the bucket's end
 * (the cursor `<end>.0` is before every trade of that second: sequence numbers start at 1) until a
 * trade older than the bucket, or CANDLE_TRADES_MAX.
 */
export async function tradesOfCandle(
  page: TradesPage,
  pool: string,
  time: number,
  resolution: Resolution,
): Promise<CandleTrades> {
  const { start, end } = candleSpan(time, resolution);
  const newestFirst: TapeTrade[] = [];
  let before: string | null = `${end}.0`;
  while (before !== null) {
    const answer = await page({ pool, before, limit: PAGE });
    for (const trade of answer.trades) {
      if (trade.time < start) return { trades: newestFirst.reverse(), cut: false };
      if (newestFirst.length === CANDLE_TRADES_MAX) return { trades: newestFirst.reverse(), cut: true };
      newestFirst.push(trade);
    }
    before = answer.next;
  }
  return { trades: newestFirst.reverse(), cut: false };
}

/** The event a listed trade is in the series it was asked of (an Aggregate's own columns when asked of one). */
function eventOfTrade(trade: TapeTrade): BarEvent {
  const own = trade.aggregate ?? { price: trade.price, previous_price: trade.previous_price, tvl: trade.tvl };
  return {
    block_time: trade.time,
    previous_price: own.previous_price,
    current_price: own.price,
    current_tvl: own.tvl,
    volume: Math.round(trade.base_amount * VOLUME_SCALE),
  };
}

/**
 * The candle `trades` (oldest first, as tradesOfCandle gives them) make: open = the first trade's
 * previous price, close = the last one's price, high and low over every price before and after,
 * volume their sum, TVL after the last. Undefined without trades.
 */
export function candleOfTrades(trades: readonly TapeTrade[], resolution: Resolution): Bar | undefined {
  const [bar, ...others] = barsFromEvents(trades.map(eventOfTrade), resolution);
  if (!bar || others.length > 0) return undefined;
  return { ...bar, volume: bar.volume / VOLUME_SCALE };
}
