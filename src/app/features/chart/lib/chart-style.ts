import { ColorType, type ChartOptions, type DeepPartial, type Time, type UTCTimestamp } from 'lightweight-charts';
import type { Bar, LibrarySymbolInfo } from '@/datafeed';
import type { ChartTimes } from '@/app/lib/chart-time';
import { formatPrice } from '@/app/lib/format';
import type { Palette } from '@/app/lib/palette';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { Theme } from '@/app/stores/preferences-store';

/** How the chart looks (persisted preferences). */
export interface ChartAppearance {
  readonly theme: Theme;
  readonly showVolume: boolean;
  readonly showTvl: boolean;
  readonly logScale: boolean;
  readonly timeZone: TimeZoneMode;
}

/** The bar under the crosshair (or the newest), for the legend. */
export interface LegendBar extends Bar {
  /** Close against open, percent. */
  readonly change: number;
}

/** A pricescale giving about five significant digits of `price` (as the service picks them), at least 100. */
export function pricescaleFor(price: number | undefined): number {
  if (price === undefined || !(price > 0) || !Number.isFinite(price)) return 100;
  return Math.max(100, 10 ** Math.min(16, 4 - Math.floor(Math.log10(price))));
}

/** The candles' price format from the symbol's pricescale (derived from the prices while it is unknown). */
export function priceFormatOf(info: LibrarySymbolInfo, newestClose: number | undefined) {
  const pricescale = info.pricescale > 0 ? info.pricescale : pricescaleFor(newestClose);
  return {
    type: 'custom' as const,
    minMove: (info.minmov > 0 ? info.minmov : 1) / pricescale,
    formatter: (price: number) => formatPrice(price, pricescale),
  };
}

/**
 * lightweight-charts' TradingView logo is a link inside the chart, whose content assistive technology
 * does not see (a slider's children, as an image's, are presentational): a focusable thing with no name
 * there. The licence's attribution (its NOTICE and a link to https://www.tradingview.com/) is in the
 * page's footer instead (app.tsx).
 */
export const NO_ATTRIBUTION_LOGO = { layout: { attributionLogo: false } } as const;

/** The TVL pane is short: margins keep its axis labels off the pane's edges (whole labels only, too). */
export const TVL_PRICE_SCALE = { scaleMargins: { top: 0.25, bottom: 0.2 }, entireTextOnly: true } as const;

/** Chart-wide options of a theme; time labels from `times` (its zone, true times of display times). */
export function chartOptionsOf(palette: Palette, times: ChartTimes): DeepPartial<ChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: palette.background },
      textColor: palette.text,
      panes: { separatorColor: palette.border },
    },
    grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
    crosshair: {
      vertLine: { color: palette.crosshair, labelBackgroundColor: palette.border },
      horzLine: { color: palette.crosshair, labelBackgroundColor: palette.border },
    },
    localization: { timeFormatter: (time: Time) => times.label(Number(time)) },
    timeScale: { tickMarkFormatter: (time: Time, tickType: number) => times.tick(Number(time), tickType) },
  };
}

export function candleColorsOf(palette: Palette) {
  return {
    upColor: palette.up,
    downColor: palette.down,
    borderUpColor: palette.up,
    borderDownColor: palette.down,
    wickUpColor: palette.up,
    wickDownColor: palette.down,
  };
}

/** A candle at `time`: the bar's display time (lib/chart-time.ts), its start in UTC by default. */
export const candleOf = (b: Bar, time: number = b.time) => ({
  time: time as UTCTimestamp,
  open: b.open,
  high: b.high,
  low: b.low,
  close: b.close,
});

/** A volume column, coloured by the bar's direction. */
export const volumeOf = (b: Bar, palette: Palette, time: number = b.time) => ({
  time: time as UTCTimestamp,
  value: b.volume,
  color: b.close >= b.open ? palette.volumeUp : palette.volumeDown,
});

export const tvlOf = (b: Bar, time: number = b.time) => ({ time: time as UTCTimestamp, value: b.tvl });

export function legendOf(bar: Bar): LegendBar {
  return { ...bar, change: bar.open === 0 ? 0 : ((bar.close - bar.open) / bar.open) * 100 };
}
