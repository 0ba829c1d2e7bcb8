import type { Bar } from '@/shared/bars';
import type { TokenStats } from '@/shared/api/tokens';

/**
 * Prices in USD, from the market itself (docs/app.md "USD prices"). ADA's USD price is the TVL-weighted
 * mean of what the USD stablecoins' Aggregate pairs against ADA say it is: a pair `ADA.USDM` priced at
 * 1.6 ADA per USDM says 1 ADA = 1 / 1.6 USD. A bar in USD is the bar times ADA/USD of its bucket.
 * Pure functions; the rates come from api/ada-usd.ts.
 */

/** A stablecoin's Aggregate against ADA at one time: ADA per stablecoin, and its TVL in ADA. */
export interface StableQuote {
  readonly price: number;
  readonly tvl: number;
}

/** A point of a stablecoin's series: a bar's time, close and TVL. */
export type StablePoint = Pick<Bar, 'time' | 'close' | 'tvl'>;

const usable = (q: StableQuote) => q.price > 0 && q.tvl > 0 && Number.isFinite(q.price) && Number.isFinite(q.tvl);

/**
 * USD per ADA: Σ tvl·(1/price) / Σ tvl over the quotes with a price and a TVL above 0 (a pool without
 * liquidity says nothing); undefined without one.
 */
export function usdPerAda(quotes: readonly StableQuote[]): number | undefined {
  let weight = 0;
  let sum = 0;
  for (const quote of quotes) {
    if (!usable(quote)) continue;
    weight += quote.tvl;
    sum += quote.tvl / quote.price;
  }
  return weight > 0 ? sum / weight : undefined;
}

/** Index of the last point at or before `time` in points sorted by time, -1 when none is. */
function lastAtOrBefore(points: readonly StablePoint[], time: number): number {
  let lo = 0;
  let hi = points.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((points[mid]?.time ?? Infinity) <= time) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * USD per ADA at `time` (a bar's bucket start): each stablecoin's last point at or before it (its bar of
 * that bucket, or the last one before: carried forward through buckets without a trade), combined by
 * usdPerAda. A stablecoin with no point yet at that time is left out; undefined when none has one.
 */
export function rateAt(time: number, series: readonly (readonly StablePoint[])[]): number | undefined {
  const quotes: StableQuote[] = [];
  for (const points of series) {
    const point = points[lastAtOrBefore(points, time)];
    if (point) quotes.push({ price: point.close, tvl: point.tvl });
  }
  return usdPerAda(quotes);
}

/**
 * A bar in USD: open, high, low and close times the rate; volume and TVL (in ADA, the pair's base) too.
 * The bar's high times the bucket's rate is not the highest USD price of the bucket (the two moved
 * within it): close enough for a stablecoin-pegged rate, and said so in the docs.
 */
export function barInUsd(bar: Bar, rate: number): Bar {
  return {
    time: bar.time,
    open: bar.open * rate,
    high: bar.high * rate,
    low: bar.low * rate,
    close: bar.close * rate,
    volume: bar.volume * rate,
    tvl: bar.tvl * rate,
  };
}

/** ADA/USD now and 1 h and 24 h ago, from the stablecoins' statistics. */
export interface AdaUsdNow {
  /** USD per ADA now. */
  readonly rate: number;
  /** USD per ADA 1 h and 24 h ago (the rate now when the statistics cannot tell). */
  readonly rate1h: number;
  readonly rate24h: number;
  /** How many stablecoins the rate comes from. */
  readonly sources: number;
}

/** The price `change` percent ago: price / (1 + change/100); NaN when that is no price. */
function priceBefore(price: number, change: number): number {
  const factor = 1 + change / 100;
  return factor > 0 ? price / factor : Number.NaN;
}

/**
 * ADA/USD from the stablecoins' `/tokens/current?policy=` statistics (each its Aggregate against ADA):
 * now from their current price and TVL, 1 h and 24 h ago from the prices and TVLs their changes imply.
 * Undefined when no stablecoin has a price and liquidity.
 */
export function adaUsdOfStats(stats: readonly TokenStats[]): AdaUsdNow | undefined {
  const now = stats.map((s) => ({ price: s.current_price, tvl: s.current_tvl }));
  const rate = usdPerAda(now);
  if (rate === undefined) return undefined;
  const rate1h =
    usdPerAda(
      stats.map((s) => ({
        price: priceBefore(s.current_price, s.hourly_price_change),
        tvl: s.current_tvl - s.hourly_tvl_change,
      })),
    ) ?? rate;
  const rate24h =
    usdPerAda(
      stats.map((s) => ({
        price: priceBefore(s.current_price, s.daily_price_change),
        tvl: s.current_tvl - s.daily_tvl_change,
      })),
    ) ?? rate;
  return { rate, rate1h, rate24h, sources: now.filter(usable).length };
}

/**
 * An ADA pair's statistics in USD: the price and TVL times ADA/USD now; changes against the price and
 * TVL 1 h / 24 h ago valued at ADA/USD then (so a token flat in ADA moves with ADA in USD); volumes
 * valued at the rate now (their trades spread over the window: an approximation, said in the docs).
 */
export function statsInUsd(stats: TokenStats, usd: AdaUsdNow): TokenStats {
  const { rate, rate1h, rate24h } = usd;
  const change = (percent: number, then: number) => ((1 + percent / 100) * (rate / then) - 1) * 100;
  return {
    current_price: stats.current_price * rate,
    current_tvl: stats.current_tvl * rate,
    hourly_price_change: change(stats.hourly_price_change, rate1h),
    daily_price_change: change(stats.daily_price_change, rate24h),
    hourly_tvl_change: stats.current_tvl * rate - (stats.current_tvl - stats.hourly_tvl_change) * rate1h,
    daily_tvl_change: stats.current_tvl * rate - (stats.current_tvl - stats.daily_tvl_change) * rate24h,
    hourly_volume: stats.hourly_volume * rate,
    daily_volume: stats.daily_volume * rate,
  };
}

/** The currencies prices are shown in. */
export type Currency = 'ada' | 'usd';

/** `SNEK/USD`: a pair's token priced in USD. */
export function usdPairLabel(pair: { readonly quote: string }): string {
  return `${pair.quote}/USD`;
}
