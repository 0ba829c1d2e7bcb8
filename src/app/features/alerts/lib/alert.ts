/**
 * Price alerts: what one is, and when it fires. Pure functions, no clock or storage of their own.
 *
 * Prices are in the orientation the alert was made in (`inverted`: the inverted pair's, as the chart
 * showed it), in the pair's quote (ADA for ADA pairs; alerts are not made in USD).
 */

/** "Crosses above X", "crosses below X", or "moves more than N % within T minutes" (either way). */
export type AlertCondition =
  | { readonly kind: 'above'; readonly price: number }
  | { readonly kind: 'below'; readonly price: number }
  | { readonly kind: 'move'; readonly percent: number; readonly minutes: number };

export type AlertStatus = 'armed' | 'fired';

export interface Alert {
  readonly id: string;
  /** The pair's symbol name and group (a chart of it: the URL's `symbol` and `group`). */
  readonly symbol: string;
  readonly group: string;
  /** The pool its prices come from (an Aggregate pool streams; a DEX pool is asked). */
  readonly pool: string;
  /** The pair as shown when the alert was made: `SNEK/ADA on Aggregate`. */
  readonly label: string;
  /** The prices are the inverted pair's (1 / the pool's price). */
  readonly inverted: boolean;
  readonly condition: AlertCondition;
  /** Unix ms. */
  readonly createdAt: number;
  readonly status: AlertStatus;
  /** When it fired (Unix ms) and at what price (the alert's orientation). */
  readonly firedAt?: number;
  readonly firedPrice?: number;
  /** What the move was (for `move`): signed percent. */
  readonly firedMove?: number;
}

/** Limits of the form (and of what storage may hold): a threshold above zero, 0.01-1000 %, 1 minute to 7 days. */
export const MOVE_PERCENT = { min: 0.01, max: 1000 } as const;
export const MOVE_MINUTES = { min: 1, max: 10_080 } as const;

/** Why a condition cannot be armed, or undefined when it can. */
export function conditionProblem(condition: AlertCondition): string | undefined {
  if (condition.kind === 'move') {
    if (
      !Number.isFinite(condition.percent) ||
      condition.percent < MOVE_PERCENT.min ||
      condition.percent > MOVE_PERCENT.max
    )
      return `The move must be between ${MOVE_PERCENT.min} and ${MOVE_PERCENT.max} %`;
    if (
      !Number.isInteger(condition.minutes) ||
      condition.minutes < MOVE_MINUTES.min ||
      condition.minutes > MOVE_MINUTES.max
    )
      return `The time must be a whole number of minutes from ${MOVE_MINUTES.min} to ${MOVE_MINUTES.max}`;
    return undefined;
  }
  if (!Number.isFinite(condition.price) || condition.price <= 0) return 'The price must be a number above 0';
  return undefined;
}

/** The condition in words: `crosses above 0.0042`, `moves more than 5 % within 15 min`. */
export function describeCondition(condition: AlertCondition, formatPrice: (price: number) => string = String): string {
  switch (condition.kind) {
    case 'above':
      return `crosses above ${formatPrice(condition.price)}`;
    case 'below':
      return `crosses below ${formatPrice(condition.price)}`;
    case 'move':
      return `moves more than ${condition.percent} % within ${condition.minutes} min`;
  }
}

/** A price of the pool at a moment: from a trade (with the price before it) or from asking the pool. */
export interface PricePoint {
  /** Unix ms. */
  readonly time: number;
  /** The pool's price (not inverted). */
  readonly price: number;
  /** The pool's price just before (a trade's `previous_price`); undefined: the last point seen is. */
  readonly previous?: number;
}

/** The price in the alert's orientation; undefined for a price that cannot be one (0, negative, not finite). */
function shown(price: number | undefined, inverted: boolean): number | undefined {
  if (price === undefined || !Number.isFinite(price) || price <= 0) return undefined;
  return inverted ? 1 / price : price;
}

export interface Fired {
  /** The price that made it fire (the alert's orientation). */
  readonly price: number;
  readonly time: number;
  /** For a move: the signed percent from the price it is measured from. */
  readonly move?: number;
}

/**
 * One armed alert following its pool's prices: `observe` each point in order; it says when the alert
 * fires. A cross needs the price on both sides: from below the threshold to at or above it (above),
 * or from above it to at or below it (below); a price already past the threshold when the alert is
 * armed does not fire until it comes back and crosses. A move compares the price with every price of
 * the last T minutes it has seen (since the page started following the pool: nothing is seen while
 * the page is closed) and fires when one is more than N % away.
 */
export class AlertCheck {
  private last: number | undefined;
  /** For a move: the prices of the window (time, price), oldest first. */
  private readonly window: { time: number; price: number }[] = [];

  constructor(private readonly alert: Pick<Alert, 'condition' | 'inverted'>) {}

  observe(point: PricePoint): Fired | undefined {
    const { condition, inverted } = this.alert;
    const price = shown(point.price, inverted);
    if (price === undefined) return undefined;
    const before = shown(point.previous, inverted) ?? this.last;
    this.last = price;
    switch (condition.kind) {
      case 'above':
        return before !== undefined && before < condition.price && price >= condition.price
          ? { price, time: point.time }
          : undefined;
      case 'below':
        return before !== undefined && before > condition.price && price <= condition.price
          ? { price, time: point.time }
          : undefined;
      case 'move':
        return this.moved(point.time, price, before, condition.percent, condition.minutes);
    }
  }

  private moved(
    time: number,
    price: number,
    before: number | undefined,
    percent: number,
    minutes: number,
  ): Fired | undefined {
    const since = time - minutes * 60_000;
    // The oldest point kept is the price at the window's start (the last one before it, held since).
    while (this.window.length > 1 && (this.window[1]?.time ?? Infinity) <= since) this.window.shift();
    // The price just before a trade was the pool's price up to that moment.
    if (before !== undefined && this.window.length === 0) this.window.push({ time, price: before });
    let fired: Fired | undefined;
    for (const seen of this.window) {
      const move = ((price - seen.price) / seen.price) * 100;
      // The largest move in the window, by size.
      if (Math.abs(move) >= percent && (fired?.move === undefined || Math.abs(move) > Math.abs(fired.move)))
        fired = { price, time, move };
    }
    this.window.push({ time, price });
    return fired;
  }
}

/** An alert that fired: its status, time and price. */
export function fire(alert: Alert, fired: Fired): Alert {
  return {
    ...alert,
    status: 'fired',
    firedAt: fired.time,
    firedPrice: fired.price,
    ...(fired.move !== undefined ? { firedMove: fired.move } : {}),
  };
}

/** An alert armed again (after firing, or edited): no trace of the last firing. */
export function rearm(alert: Alert, condition: AlertCondition = alert.condition): Alert {
  const { firedAt: _at, firedPrice: _price, firedMove: _move, ...rest } = alert;
  return { ...rest, condition, status: 'armed' };
}
