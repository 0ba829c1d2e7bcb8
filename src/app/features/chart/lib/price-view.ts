import {
  CandlestickSeries,
  CrosshairMode,
  HistogramSeries,
  LineSeries,
  PriceScaleMode,
  createChart,
  type IChartApi,
  type ISeriesApi,
  type LineSeriesPartialOptions,
  type LogicalRange,
  type MouseEventParams,
  type UTCTimestamp,
} from 'lightweight-charts';
import type { Bar } from '@/datafeed';
import { ChartTimes } from '@/app/lib/chart-time';
import { formatAmount } from '@/app/lib/format';
import { PALETTES, type Palette } from '@/app/lib/palette';
import {
  candleColorsOf,
  candleOf,
  chartOptionsOf,
  NO_ATTRIBUTION_LOGO,
  TVL_PRICE_SCALE,
  tvlOf,
  volumeOf,
  type ChartAppearance,
} from './chart-style';

/** Bars shown at first (the newest ones, a few empty slots to their right). */
export const INITIAL_VISIBLE_BARS = 150;

/**
 * The chart's drawing, one job: lightweight-charts with the candles, the volume under them and the TVL
 * in a short pane of its own, in a theme and a time zone, fed with bars as they are shown (inverted or
 * in USD already: bar-book.ts). It draws a whole series (`draw`) or the newest bar (`update`), says
 * which bar the pointer is over (`onHover`, true times) and what range is in view (`onRange`), and lets
 * the indicators add lines (`addLine`). Made in an element of its own (`element`), which can move to
 * another place of the page with what it drew (the page's first chart, adopted by the app's: chart.ts).
 */
export class PriceView {
  readonly element: HTMLElement;
  readonly chart: IChartApi;
  /** The candles (drawings attach to them: features/drawings; another chart's crosshair is set on them: features/layouts). */
  readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private tvl: ISeriesApi<'Line'> | undefined;
  private readonly times = new ChartTimes();
  /** The display time of each bar drawn (lib/chart-time.ts: moved in Local mode), by index. */
  private display: number[] = [];
  private appearance: ChartAppearance;
  private hoverListener: ((time: number | undefined, pointer: boolean) => void) | undefined;
  private rangeListener: ((range: LogicalRange | null) => void) | undefined;

  /** Made in `parent` (lightweight-charts measures its place as it starts). */
  constructor(parent: HTMLElement, appearance: ChartAppearance, daily: boolean) {
    this.appearance = appearance;
    this.element = parent.ownerDocument.createElement('div');
    this.element.className = 'chart__view';
    parent.append(this.element);
    const autoSize = typeof ResizeObserver === 'function';
    this.chart = createChart(this.element, {
      ...NO_ATTRIBUTION_LOGO,
      autoSize,
      // Without ResizeObserver (tests' jsdom): the place's size, or one of its own.
      ...(autoSize ? {} : { width: parent.clientWidth || 800, height: parent.clientHeight || 420 }),
      crosshair: { mode: CrosshairMode.Normal },
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false, rightOffset: 3 },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, { priceLineVisible: true });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.chart.subscribeCrosshairMove(this.onCrosshair);
    this.chart.timeScale().subscribeVisibleLogicalRangeChange(this.rangeChanged);
    this.times.configure(appearance.timeZone, daily);
    this.style();
  }

  private get palette(): Palette {
    return PALETTES[this.appearance.theme];
  }

  /**
   * The bar under the crosshair, by its true time (undefined: none), as the pointer moves it
   * (`pointer`) or lightweight-charts moves it (new bars, another range in view).
   */
  onHover(listener: (time: number | undefined, pointer: boolean) => void): void {
    this.hoverListener = listener;
  }

  /** A click or tap on the chart: the bar there, by its true time (undefined: none). */
  onClick(listener: (time: number | undefined) => void): void {
    this.chart.subscribeClick((param) =>
      listener(typeof param.time === 'number' ? this.times.actual(param.time) : undefined),
    );
  }

  /** Marks bar `i` of `bars` with the crosshair (at its close), or takes the mark away (undefined). */
  mark(i: number | undefined, bars: readonly Bar[]): void {
    const bar = i === undefined ? undefined : bars[i];
    if (i === undefined || !bar) this.chart.clearCrosshairPosition();
    else this.chart.setCrosshairPosition(bar.close, this.timeAt(i, bars) as UTCTimestamp, this.candles);
  }

  /** The logical range in view, as it changes (scrolling, zooming, new data). */
  onRange(listener: (range: LogicalRange | null) => void): void {
    this.rangeListener = listener;
  }

  /**
   * A new look, or bars of another kind (`daily`: UTC days stay where they are). True when the bars'
   * display times moved (Local time switched on or off): they must be drawn again.
   */
  configure(appearance: ChartAppearance, daily: boolean): boolean {
    this.appearance = appearance;
    const retimed = this.times.configure(appearance.timeZone, daily);
    this.style();
    return retimed;
  }

  private style(): void {
    const palette = this.palette;
    const { showVolume, showTvl, logScale } = this.appearance;
    this.chart.applyOptions(chartOptionsOf(palette, this.times));
    this.candles.applyOptions(candleColorsOf(palette));
    this.volume.applyOptions({ visible: showVolume });
    this.chart
      .priceScale('right')
      .applyOptions({ mode: logScale ? PriceScaleMode.Logarithmic : PriceScaleMode.Normal });
    if (showTvl && !this.tvl) {
      this.tvl = this.chart.addSeries(
        LineSeries,
        {
          color: palette.tvl,
          lineWidth: 2,
          priceFormat: { type: 'custom', minMove: 0.01, formatter: formatAmount },
          title: 'TVL',
          priceLineVisible: false,
        },
        1,
      );
      this.chart.panes()[1]?.setStretchFactor(0.3);
      this.tvl.priceScale().applyOptions(TVL_PRICE_SCALE);
    } else if (!showTvl && this.tvl) {
      this.removeLine(this.tvl);
      this.tvl = undefined;
    }
    this.tvl?.applyOptions({ color: palette.tvl });
  }

  /** The candles' price format (chart-style.ts's priceFormatOf). */
  setPriceFormat(format: NonNullable<Parameters<ISeriesApi<'Candlestick'>['applyOptions']>[0]['priceFormat']>): void {
    this.candles.applyOptions({ priceFormat: format });
  }

  /** Every bar (oldest first) as candles, volume and TVL. */
  draw(bars: readonly Bar[]): void {
    const palette = this.palette;
    this.display = this.times.reset(bars.map((b) => b.time));
    const at = (i: number) => this.timeAt(i, bars);
    this.candles.setData(bars.map((b, i) => candleOf(b, at(i))));
    this.volume.setData(bars.map((b, i) => volumeOf(b, palette, at(i))));
    this.tvl?.setData(bars.map((b, i) => tvlOf(b, at(i))));
  }

  /** The volume columns again (their colours follow the theme). */
  recolour(bars: readonly Bar[]): void {
    const palette = this.palette;
    if (bars.length > 0) this.volume.setData(bars.map((b, i) => volumeOf(b, palette, this.timeAt(i, bars))));
    this.tvl?.setData(bars.map((b, i) => tvlOf(b, this.timeAt(i, bars))));
  }

  /** The newest bar (`appended`: a new one after the last drawn, else the last one again). */
  update(bar: Bar, appended: boolean): void {
    const time = this.times.next(bar.time);
    if (appended) this.display.push(time);
    this.candles.update(candleOf(bar, time));
    this.volume.update(volumeOf(bar, this.palette, time));
    this.tvl?.update(tvlOf(bar, time));
  }

  /** The display time of bar `i` of `bars` (as drawn). */
  timeAt(i: number, bars: readonly Bar[]): number {
    return this.display[i] ?? bars[i]?.time ?? 0;
  }

  /** The newest INITIAL_VISIBLE_BARS of `count` bars in view. */
  showNewest(count: number): void {
    this.chart.timeScale().setVisibleLogicalRange({ from: Math.max(-3, count - INITIAL_VISIBLE_BARS), to: count + 3 });
  }

  visibleRange(): LogicalRange | null {
    return this.chart.timeScale().getVisibleLogicalRange();
  }

  setVisibleRange(range: { from: number; to: number }): void {
    this.chart.timeScale().setVisibleLogicalRange(range);
  }

  /** A line over the price (pane 0) or in a pane of its own (the next index), for an indicator. */
  addLine(options: LineSeriesPartialOptions, pane: number): ISeriesApi<'Line'> {
    return this.chart.addSeries(LineSeries, options, pane);
  }

  /** The true time of a display time (Local time moves the times drawn: lib/chart-time.ts). */
  actualTime(display: number): number {
    return this.times.actual(display);
  }

  /** The number of panes (price, TVL, indicators'). */
  paneCount(): number {
    return this.chart.panes().length;
  }

  /** Removes a line, and its pane when that leaves it empty (never the price pane). */
  removeLine(series: ISeriesApi<'Line'>): void {
    const pane = series.getPane();
    this.chart.removeSeries(series);
    const index = pane.paneIndex();
    if (index > 0 && pane.getSeries().length === 0 && this.chart.panes().length > index) this.chart.removePane(index);
  }

  /** The chart as a canvas (the PNG export). */
  screenshot(): HTMLCanvasElement {
    return this.chart.takeScreenshot();
  }

  dispose(): void {
    this.chart.unsubscribeCrosshairMove(this.onCrosshair);
    this.chart.timeScale().unsubscribeVisibleLogicalRangeChange(this.rangeChanged);
    this.chart.remove();
    this.element.remove();
  }

  private readonly onCrosshair = (param: MouseEventParams) => {
    this.hoverListener?.(
      typeof param.time === 'number' ? this.times.actual(param.time) : undefined,
      param.sourceEvent !== undefined,
    );
  };

  private readonly rangeChanged = (range: LogicalRange | null) => {
    this.rangeListener?.(range);
  };
}

/** Line times for an indicator's values at display times of `bars` (null: a gap). */
export function linePoints(
  view: PriceView,
  bars: readonly Bar[],
  values: readonly (number | null)[],
): { time: UTCTimestamp; value?: number }[] {
  return values.map((value, i) => {
    const time = view.timeAt(i, bars) as UTCTimestamp;
    return value === null ? { time } : { time, value };
  });
}
