import type { Bar } from '@/shared/bars';

/** One number of a candle beside the same number made from its trades. */
export interface CheckRow {
  readonly label: 'Open' | 'High' | 'Low' | 'Close' | 'Volume';
  readonly candle: number;
  readonly trades: number | undefined;
  readonly agree: boolean;
}

/** Two numbers agree within rounding (the route's JSON numbers, sums of a few thousand trades): 1e-9 relative. */
function near(a: number, b: number | undefined): boolean {
  return b !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
}

/**
 * The candle as the chart drew it (as served: not inverted, in ADA) beside the one its listed trades
 * make (shared/candle-trades.ts's candleOfTrades; undefined without trades), number by number.
 */
export function checkCandle(candle: Bar, fromTrades: Bar | undefined): CheckRow[] {
  const row = (label: CheckRow['label'], key: 'open' | 'high' | 'low' | 'close' | 'volume'): CheckRow => ({
    label,
    candle: candle[key],
    trades: fromTrades?.[key],
    agree: near(candle[key], fromTrades?.[key]),
  });
  return [row('Open', 'open'), row('High', 'high'), row('Low', 'low'), row('Close', 'close'), row('Volume', 'volume')];
}
