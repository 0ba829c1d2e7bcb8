import { describe, expect, it } from 'vitest';
import { adaUsdOfStats, barInUsd, rateAt, statsInUsd, usdPairLabel, usdPerAda } from '../../src/app/lib/usd';
import type { TokenStats } from '../../src/shared/api/tokens';
import { isStablecoin, STABLECOINS } from '../../src/app/lib/stablecoins';
import { asSeconds } from '../../src/shared/time';

/** Statistics with only what a case sets (the rest 0). */
function stats(partial: Partial<TokenStats>): TokenStats {
  return {
    current_price: 0,
    current_tvl: 0,
    hourly_price_change: 0,
    hourly_tvl_change: 0,
    hourly_volume: 0,
    daily_price_change: 0,
    daily_tvl_change: 0,
    daily_volume: 0,
    ...partial,
  };
}

const point = (time: number, close: number, tvl: number) => ({ time: asSeconds(time), close, tvl });

describe('ADA/USD from the stablecoins, TVL-weighted', () => {
  it('weighs each stablecoin’s 1/price by its TVL, leaving out pools without a price or liquidity', () => {
    // USDM at 1.6 ADA (1 ADA = 0.625 USD) with 3M ADA, DJED at 1.5625 (0.64) with 1M: (3×0.625 + 1×0.64) / 4.
    expect(
      usdPerAda([
        { price: 1.6, tvl: 3_000_000 },
        { price: 1.5625, tvl: 1_000_000 },
        { price: 2, tvl: 0 },
        { price: 0, tvl: 5_000_000 },
        { price: Number.NaN, tvl: 1 },
      ]),
    ).toBeCloseTo(0.62875, 12);
    expect(usdPerAda([{ price: 1.6, tvl: 0 }])).toBeUndefined();
    expect(usdPerAda([])).toBeUndefined();
  });

  it('at a bar time: each stablecoin’s bar of that bucket or the last before, carried through gaps', () => {
    const usdm = [point(0, 1.6, 3_000_000), point(120, 1.25, 3_000_000)];
    const djed = [point(60, 1.5625, 1_000_000)];
    expect(rateAt(-60, [usdm, djed])).toBeUndefined();
    expect(rateAt(0, [usdm, djed])).toBeCloseTo(0.625, 12);
    expect(rateAt(60, [usdm, djed])).toBeCloseTo(0.62875, 12);
    // USDM at 1.25 (0.8) with 3M, DJED carried at 0.64 with 1M: (2.4 + 0.64) / 4.
    expect(rateAt(120, [usdm, djed])).toBeCloseTo(0.76, 12);
    expect(rateAt(180, [usdm, djed])).toBeCloseTo(0.76, 12);
    expect(rateAt(90, [usdm, djed])).toBeCloseTo(0.62875, 12);
    expect(rateAt(100, [])).toBeUndefined();
  });

  it('turns a bar into USD: prices, volume and TVL times the rate', () => {
    const bar = {
      time: asSeconds(3600),
      open: 0.004,
      high: 0.005,
      low: 0.003,
      close: 0.0045,
      volume: 1000,
      tvl: 2_000_000,
    };
    expect(barInUsd(bar, 0.5)).toEqual({
      time: 3600,
      open: 0.002,
      high: 0.0025,
      low: 0.0015,
      close: 0.00225,
      volume: 500,
      tvl: 1_000_000,
    });
  });

  it('now, 1 h and 24 h ago from the stablecoins’ statistics (prices and TVLs then from their changes)', () => {
    const now = adaUsdOfStats([
      // USDM 1.6 now, +25 % in 1 h (1.28 then) with 1M more TVL (2M then); flat over 24 h.
      stats({ current_price: 1.6, current_tvl: 3_000_000, hourly_price_change: 25, hourly_tvl_change: 1_000_000 }),
      // DJED 1.5625 now, flat over 1 h; −50 % over 24 h (3.125 then) with 1M less TVL (2M then).
      stats({ current_price: 1.5625, current_tvl: 1_000_000, daily_price_change: -50, daily_tvl_change: -1_000_000 }),
    ]);
    expect(now?.rate).toBeCloseTo(0.62875, 12);
    // 1 h ago: USDM 1/1.28 = 0.78125 with 2M, DJED 0.64 with 1M.
    expect(now?.rate1h).toBeCloseTo((0.78125 * 2 + 0.64) / 3, 12);
    // 24 h ago: USDM 0.625 with 3M, DJED 1/3.125 = 0.32 with 2M.
    expect(now?.rate24h).toBeCloseTo(0.503, 12);
    expect(now?.sources).toBe(2);
    expect(adaUsdOfStats([stats({ current_price: 1.6 })])).toBeUndefined();
    expect(adaUsdOfStats([])).toBeUndefined();
  });

  it('values a pair’s statistics in USD: changes against the price and TVL then at the rate then', () => {
    const snek = stats({
      current_price: 0.004,
      current_tvl: 1_000_000,
      hourly_price_change: 10,
      hourly_tvl_change: 100_000,
      daily_price_change: -20,
      daily_tvl_change: -200_000,
      hourly_volume: 5000,
      daily_volume: 100_000,
    });
    const usd = statsInUsd(snek, { rate: 0.5, rate1h: 0.4, rate24h: 0.625, sources: 2 });
    expect(usd.current_price).toBeCloseTo(0.002, 15);
    expect(usd.current_tvl).toBeCloseTo(500_000, 9);
    // +10 % in ADA while ADA rose 0.4 → 0.5 USD: 1.1 × 1.25 − 1 = +37.5 % in USD.
    expect(usd.hourly_price_change).toBeCloseTo(37.5, 9);
    // −20 % in ADA while ADA fell 0.625 → 0.5: 0.8 × 0.8 − 1 = −36 %.
    expect(usd.daily_price_change).toBeCloseTo(-36, 9);
    // TVL 1M × 0.5 now against 0.9M × 0.4 an hour ago, 1.2M × 0.625 a day ago.
    expect(usd.hourly_tvl_change).toBeCloseTo(140_000, 6);
    expect(usd.daily_tvl_change).toBeCloseTo(-250_000, 6);
    expect(usd.hourly_volume).toBeCloseTo(2500, 9);
    expect(usd.daily_volume).toBeCloseTo(50_000, 9);
    expect(usdPairLabel({ quote: 'SNEK' })).toBe('SNEK/USD');
  });
});

describe('the stablecoins', () => {
  it('are known by unit (policy ID + asset name), lowercase, not by ticker', () => {
    expect(STABLECOINS.map((c) => c.ticker)).toEqual(['USDM', 'DJED', 'iUSD', 'USDA']);
    for (const coin of STABLECOINS) expect(coin.unit).toMatch(/^[0-9a-f]{56}([0-9a-f]{2}){1,32}$/);
    expect(isStablecoin('C48CBB3D5E57ED56E276BC45F99AB39ABE94E6CD7AC39FB402DA47AD0014DF105553444D')).toBe(true);
    expect(isStablecoin('0000000000000000000000000000000000000000000000000000000055534441')).toBe(false);
  });
});
