import { CandlestickSeries, CrosshairMode, HistogramSeries, LineSeries, PriceScaleMode, createChart, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import type { Bar } from '@/datafeed';
import type { ChartTimes } from '@/app/lib/chart-time';
import { formatAmount } from '@/app/lib/format';
import type { Palette } from '@/app/lib/palette';
import { candleColorsOf, candleOf, chartOptionsOf, NO_ATTRIBUTION_LOGO, TVL_PRICE_SCALE, tvlOf, volumeOf } from './chart-style';

/**
 * The price chart's parts as lightweight-charts makes them, shared by the chart (chart-controller.ts)
 * and the page's first picture of it (boot/boot-chart.ts): one chart looks like the other.
 */
export interface PriceChartParts {
  readonly chart: IChartApi;
  readonly candles: ISeriesApi<'Candlestick'>;
  readonly volume: ISeriesApi<'Histogram'>;
}

/** Bars shown at first (the newest ones, a few empty slots to their right). */
export const INITIAL_VISIBLE_BARS = 150;

/** A chart in `container` with candles and volume (sized with the container where ResizeObserver exists). */
export function createPriceChart(container: HTMLElement): PriceChartParts {
  const autoSize = typeof ResizeObserver === 'function';
  const chart = createChart(container, {
    ...NO_ATTRIBUTION_LOGO,
    autoSize,
    ...(autoSize ? {} : { width: container.clientWidth || 800, height: container.clientHeight || 420 }),
    crosshair: { mode: CrosshairMode.Normal },
    rightPriceScale: { borderVisible: false },
    timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false, rightOffset: 3 },
  });
  const candles = chart.addSeries(CandlestickSeries, { priceLineVisible: true });
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  return { chart, candles, volume };
}

/** The look of a theme and the scale's mode, on the chart and its candles; volume shown or not. */
export function styleChart(parts: PriceChartParts, palette: Palette, times: ChartTimes, options: { readonly showVolume: boolean; readonly logScale: boolean }): void {
  parts.chart.applyOptions(chartOptionsOf(palette, times));
  parts.candles.applyOptions(candleColorsOf(palette));
  parts.volume.applyOptions({ visible: options.showVolume });
  parts.chart.priceScale('right').applyOptions({ mode: options.logScale ? PriceScaleMode.Logarithmic : PriceScaleMode.Normal });
}

/** The TVL line in a short pane of its own under the price. */
export function addTvlSeries(chart: IChartApi, palette: Palette): ISeriesApi<'Line'> {
  const tvl = chart.addSeries(LineSeries, { color: palette.tvl, lineWidth: 2, priceFormat: { type: 'custom', minMove: 0.01, formatter: formatAmount }, title: 'TVL', priceLineVisible: false }, 1);
  chart.panes()[1]?.setStretchFactor(0.3);
  tvl.priceScale().applyOptions(TVL_PRICE_SCALE);
  return tvl;
}

/** Every bar as candles, volume and TVL, at display times `timeAt(i)` (lib/chart-time.ts). */
export function drawBars(parts: PriceChartParts, tvl: ISeriesApi<'Line'> | undefined, bars: readonly Bar[], palette: Palette, timeAt: (i: number) => number): void {
  parts.candles.setData(bars.map((b, i) => candleOf(b, timeAt(i))));
  parts.volume.setData(bars.map((b, i) => volumeOf(b, palette, timeAt(i))));
  tvl?.setData(bars.map((b, i) => tvlOf(b, timeAt(i))));
}

/** The newest INITIAL_VISIBLE_BARS of `count` bars in view. */
export function showNewest(chart: IChartApi, count: number): void {
  chart.timeScale().setVisibleLogicalRange({ from: Math.max(-3, count - INITIAL_VISIBLE_BARS), to: count + 3 });
}
