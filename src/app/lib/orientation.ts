import type { Bar } from '@/datafeed';

/**
 * Orientation of a pair on screen. The spec's symbol `ADA.SNEK` has base ADA and quote SNEK, and its
 * prices are ADA per SNEK. Trading screens name such a pair `SNEK/ADA` (the traded token first, its
 * price in the other): the default here. Inverted, the pair reads `ADA/SNEK` and every price is SNEK
 * per ADA (1 / price); volumes and TVL stay in ADA, the unit the data carry them in.
 */
export interface PairNames {
  readonly base: string;
  readonly quote: string;
}

/** `SNEK/ADA`, or `ADA/SNEK` inverted. */
export function pairLabel(pair: PairNames, inverted = false): string {
  return inverted ? `${pair.base}/${pair.quote}` : `${pair.quote}/${pair.base}`;
}

/** The unit prices are shown in: the base (ADA), or the quote (SNEK) inverted. */
export function priceUnit(pair: PairNames, inverted = false): string {
  return inverted ? pair.quote : pair.base;
}

export function invertPrice(price: number): number {
  return price > 0 && Number.isFinite(price) ? 1 / price : 0;
}

/** A percent change of a price as the change of its inverse: +100 % becomes −50 %. */
export function invertPercent(percent: number): number {
  const ratio = 1 + percent / 100;
  return ratio > 0 ? (1 / ratio - 1) * 100 : 0;
}

/** A bar of inverted prices: open and close inverted, high and low inverted and swapped. */
export function invertBar(bar: Bar): Bar {
  return {
    ...bar,
    open: invertPrice(bar.open),
    high: invertPrice(bar.low),
    low: invertPrice(bar.high),
    close: invertPrice(bar.close),
  };
}
