/**
 * Time units. The wire (and lightweight-charts) speak Unix seconds; TradingView's datafeed API speaks
 * milliseconds. Branded types keep them apart at compile time.
 */
declare const secondsBrand: unique symbol;
declare const millisBrand: unique symbol;

/** Unix time in whole seconds, UTC. */
export type UnixSeconds = number & { readonly [secondsBrand]: true };
/** Unix time in milliseconds, UTC. */
export type UnixMillis = number & { readonly [millisBrand]: true };

export function asSeconds(value: number): UnixSeconds {
  return value as UnixSeconds;
}

export function asMillis(value: number): UnixMillis {
  return value as UnixMillis;
}

export function secondsToMillis(value: UnixSeconds): UnixMillis {
  return (value * 1000) as UnixMillis;
}
