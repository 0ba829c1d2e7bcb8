import { LineSeries, type IChartApi, type ISeriesApi, type MouseEventParams, type UTCTimestamp } from 'lightweight-charts';
import type { Bar, LibrarySymbolInfo, ResolutionString, UdfDatafeed } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { ChartTimes } from '@/app/lib/chart-time';
import { FIRST_CANDLES_MARK } from '@/app/lib/first-candles';
import { indicatorLabel, type IndicatorSpec } from '@/app/lib/indicators';
import { invertBar } from '@/app/lib/orientation';
import { barInUsd } from '@/app/lib/usd';
import type { UsdRates } from '@/app/api/ada-usd';
import type * as IndicatorMaths from './indicator-series';

/** The indicator maths (trading-signals), a chunk of its own: loaded when a first indicator is drawn. */
let indicatorMaths: typeof IndicatorMaths | undefined;
const loadIndicatorMaths = () => import('./indicator-series').then((m) => (indicatorMaths = m));
import { INDICATOR_ADD_MARK, INDICATOR_DRAWN_MEASURE } from './marks';
import { PALETTES } from '@/app/lib/palette';
import { fetchBars, mergeBars, sameSymbol } from './bars';
import { firstPage, PAGE_BARS, resolutionSeconds } from '@/shared/first-chart';
import { candleOf, findBar, legendOf, priceFormatOf, tvlOf, volumeOf, type ChartAppearance, type LegendBar } from './chart-style';
import { addTvlSeries, createPriceChart, drawBars, INITIAL_VISIBLE_BARS, showNewest, styleChart, type PriceChartParts } from './chart-parts';

export type { ChartAppearance, LegendBar } from './chart-style';

/** Indicator line colours, in order (readable on both themes). */
const INDICATOR_COLORS = ['#f59e0b', '#a855f7', '#06b6d4', '#ec4899', '#84cc16'];

export type ChartStatus = 'idle' | 'loading' | 'ready' | 'empty' | 'error';

export interface ChartState {
  readonly status: ChartStatus;
  readonly error?: string;
  readonly bars: number;
  readonly loadingOlder: boolean;
  /** No bar exists before the oldest one loaded. */
  readonly exhausted: boolean;
  /** Live updates are on (an Aggregate symbol). */
  readonly live: boolean;
}

export { PAGE_BARS } from '@/shared/first-chart';
/** Fewer than this many bars left of the view start loading older ones. */
const LOAD_OLDER_THRESHOLD = 30;
/** DEX pools do not stream: their newest bars are refreshed this often. */
const DEX_REFRESH_MS = 60_000;

/**
 * The candlestick chart of one symbol at one resolution (lightweight-charts), fed by the datafeed:
 * history through `bars` (older pages as the user scrolls left, without moving the view), live bars
 * through `onBars` for Aggregate symbols (bars in Unix seconds, as lightweight-charts takes them).
 * Framework-free; the React component drives it. The container carries data attributes for tests and
 * tools: data-status, data-bars, data-first-time, data-last-time, data-visible-from, data-visible-to
 * (Unix seconds), data-last-close, data-symbol, data-resolution, data-live.
 */
export class ChartController {
  /** The chart and its price series (chart-parts.ts), also by name below. */
  private readonly parts: PriceChartParts;
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private tvl: ISeriesApi<'Line'> | undefined;
  /** The bars as the datafeed gave them (ADA per token), and as shown (`present`: inverted or in USD). */
  private raw: Bar[] = [];
  private bars: Bar[] = [];
  /** The bars' times as the chart sees them (moved in Local mode, see lib/chart-time.ts), by index. */
  private display: number[] = [];
  private readonly times = new ChartTimes();
  private info: LibrarySymbolInfo | undefined;
  private resolution: ResolutionString = '60';
  private appearance: ChartAppearance;
  /** Bumped by every load: answers of an older load are dropped. */
  private generation = 0;
  private stopBars: (() => void) | undefined;
  private refreshTimer: ReturnType<typeof setInterval> | undefined;
  private state: ChartState = { status: 'idle', bars: 0, loadingOlder: false, exhausted: false, live: false };
  /** Indicators drawn over the price or in their own pane (lib/indicators), and their line series by id. */
  private indicators: readonly IndicatorSpec[] = [];
  /** The indicators last asked for (drawn once their maths is loaded). */
  private wantedIndicators: readonly IndicatorSpec[] = [];
  private disposed = false;
  private readonly indicatorSeries = new Map<string, ISeriesApi<'Line'>>();
  /** Prices shown inverted (lib/orientation): bars are turned as they come in. */
  private inverted = false;
  /** Prices shown in USD (lib/usd): each bar times ADA/USD of its bucket; wins over `inverted`. */
  private usd: UsdRates | undefined;
  private stopRates: (() => void) | undefined;
  private legend: LegendBar | undefined;
  private hovered: LegendBar | undefined;
  private readonly stateListeners = new Set<() => void>();
  private readonly legendListeners = new Set<() => void>();

  constructor(
    private readonly container: HTMLElement,
    private readonly datafeed: UdfDatafeed,
    appearance: ChartAppearance,
    private readonly now: () => number = Date.now,
  ) {
    this.appearance = appearance;
    this.parts = createPriceChart(container);
    ({ chart: this.chart, candles: this.candles, volume: this.volume } = this.parts);
    this.chart.timeScale().subscribeVisibleLogicalRangeChange(this.onRangeChange);
    this.chart.subscribeCrosshairMove(this.onCrosshair);
    this.applyAppearance();
    this.publish();
  }

  // --- subscriptions for React (useSyncExternalStore) ---

  readonly subscribe = (listener: () => void) => {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  };

  readonly getState = (): ChartState => this.state;

  readonly subscribeLegend = (listener: () => void) => {
    this.legendListeners.add(listener);
    return () => this.legendListeners.delete(listener);
  };

  readonly getLegend = (): LegendBar | undefined => this.hovered ?? this.legend;

  // --- commands ---

  /**
   * Shows `info` at `resolution`. The same symbol again (e.g. once a provisional symbol is resolved)
   * keeps the bars and only updates the price format and live subscription.
   */
  setSymbol(info: LibrarySymbolInfo, resolution: ResolutionString): void {
    const previous = this.info;
    const same = previous !== undefined && sameSymbol(previous, info) && this.resolution === resolution && this.state.status !== 'error';
    this.info = info;
    this.resolution = resolution;
    this.configureTimes();
    this.candles.applyOptions({ priceFormat: priceFormatOf(this.formatInfo(info), this.bars.at(-1)?.close) });
    if (same) {
      // data-symbol names the resolved symbol, not its stand-in (a pool ID), without waiting for a live bar.
      this.writeAttributes();
      // The resolved symbol may stream where its stand-in could not.
      if (previous.exchange !== info.exchange || previous.ticker !== info.ticker) {
        this.stopLive();
        this.startLive(this.generation);
      }
      return;
    }
    void this.load();
  }

  /** Loads again from scratch (the Retry button, a reset from the datafeed). */
  retry(): void {
    void this.load();
  }

  setAppearance(appearance: ChartAppearance): void {
    this.appearance = appearance;
    this.applyAppearance();
  }

  /** The bars in view, oldest first. */
  visibleBars(): Bar[] {
    const range = this.chart.timeScale().getVisibleLogicalRange();
    if (!range) return [...this.bars];
    const from = Math.max(0, Math.ceil(range.from));
    const to = Math.min(this.bars.length - 1, Math.floor(range.to));
    return to < from ? [] : this.bars.slice(from, to + 1);
  }

  /** The chart as a canvas (for PNG export). */
  screenshot(): HTMLCanvasElement {
    return this.chart.takeScreenshot();
  }

  dispose(): void {
    this.disposed = true;
    this.generation++;
    this.stopLive();
    this.stopRates?.();
    this.chart.timeScale().unsubscribeVisibleLogicalRangeChange(this.onRangeChange);
    this.chart.unsubscribeCrosshairMove(this.onCrosshair);
    this.chart.remove();
    this.stateListeners.clear();
    this.legendListeners.clear();
  }

  // --- loading ---

  private async load(): Promise<void> {
    const info = this.info;
    if (!info) return;
    const generation = ++this.generation;
    this.stopLive();
    this.raw = [];
    this.bars = [];
    this.render();
    this.setState({ status: 'loading', error: undefined, bars: 0, loadingOlder: false, exhausted: false, live: false });
    const page = firstPage(this.resolution, this.now());
    // In USD the rates of the same span load beside the bars (and further back if the bars reach further).
    const [outcome, rates] = await Promise.all([fetchBars(this.datafeed, info, this.resolution, page), this.loadRates(page.from, page.to)]);
    if (generation !== this.generation) return;
    const older = outcome.ok ? outcome.bars[0] : undefined;
    const more = rates === undefined && older !== undefined && older.time < page.from ? await this.loadRates(older.time, page.from) : undefined;
    if (generation !== this.generation) return;
    if (!outcome.ok || rates !== undefined || more !== undefined) {
      this.setState({ status: 'error', error: outcome.ok ? (rates ?? more) : outcome.error });
      return;
    }
    this.raw = outcome.bars;
    this.bars = this.presentAll(this.raw);
    // A provisional symbol has no pricescale yet (nor an inverted one): take one from the prices.
    const latest = this.formatInfo(this.info ?? info);
    if (latest.pricescale <= 0) this.candles.applyOptions({ priceFormat: priceFormatOf(latest, this.bars.at(-1)?.close) });
    this.render();
    const n = this.bars.length;
    if (n > 0) performance.mark(FIRST_CANDLES_MARK, { detail: { symbol: info.name, resolution: this.resolution, bars: n } });
    if (n > 0) showNewest(this.chart, n);
    this.setState({ status: n === 0 ? 'empty' : 'ready', bars: n, exhausted: outcome.noData || n === 0 });
    this.startLive(generation);
  }

  private loadingOlder = false;

  private async loadOlder(): Promise<void> {
    const info = this.info;
    const oldest = this.raw[0];
    if (!info || !oldest || this.loadingOlder || this.state.exhausted || this.state.status !== 'ready') return;
    this.loadingOlder = true;
    const generation = this.generation;
    this.setState({ loadingOlder: true });
    const step = resolutionSeconds(this.resolution);
    const to = oldest.time;
    const outcome = await fetchBars(this.datafeed, info, this.resolution, { from: to - PAGE_BARS * step, to, countBack: PAGE_BARS });
    const first = outcome.ok ? outcome.bars[0] : undefined;
    const rates = first === undefined ? undefined : await this.loadRates(first.time, to);
    this.loadingOlder = false;
    if (generation !== this.generation) return;
    if (!outcome.ok || rates !== undefined) {
      // Scrolling on will try again.
      this.setState({ loadingOlder: false });
      return;
    }
    const olderRaw = outcome.bars.filter((bar) => bar.time < oldest.time);
    const older = this.presentAll(olderRaw);
    if (olderRaw.length > 0) this.raw = [...olderRaw, ...this.raw];
    if (older.length > 0) {
      const timeScale = this.chart.timeScale();
      const before = timeScale.getVisibleLogicalRange();
      this.bars = [...older, ...this.bars];
      this.render();
      // Keep the same bars in view: logical indexes moved by the number of bars added.
      if (before) timeScale.setVisibleLogicalRange({ from: before.from + older.length, to: before.to + older.length });
      this.writeVisible(timeScale.getVisibleLogicalRange());
    }
    this.setState({ loadingOlder: false, bars: this.bars.length, exhausted: outcome.noData || olderRaw.length === 0 });
  }

  /** Display times follow the zone and the resolution (daily bars stay UTC days); true when they changed. */
  private configureTimes(): boolean {
    return this.times.configure(this.appearance.timeZone, resolutionSeconds(this.resolution) >= 86_400);
  }

  private readonly onRangeChange = (range: { from: number; to: number } | null) => {
    this.writeVisible(range);
    if (range && range.from < LOAD_OLDER_THRESHOLD) void this.loadOlder();
  };

  /** data-visible-from / data-visible-to: the first and last bar in view (Unix s), for tests and tools. */
  private writeVisible(range: { from: number; to: number } | null): void {
    const first = range ? this.bars[Math.max(0, Math.ceil(range.from))] : undefined;
    const last = range ? this.bars[Math.min(this.bars.length - 1, Math.floor(range.to))] : undefined;
    this.container.dataset.visibleFrom = first ? String(first.time) : '';
    this.container.dataset.visibleTo = last ? String(last.time) : '';
  }

  // --- live ---

  private startLive(generation: number): void {
    const info = this.info;
    if (!info || generation !== this.generation || this.state.status === 'error' || this.state.status === 'loading') return;
    // A stand-in's group is not known yet: wait for the resolved symbol.
    if (this.stopBars !== undefined || this.refreshTimer !== undefined || info.exchange === '') return;
    const streams = info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
    if (streams) {
      this.stopBars = this.datafeed.onBars(info, this.resolution, {
        onBar: (bar) => {
          if (generation === this.generation) this.onLiveBar(bar);
        },
        onReset: () => {
          if (generation === this.generation) this.retry();
        },
      });
      this.setState({ live: true });
    } else if (info.ticker !== undefined) {
      this.refreshTimer = setInterval(() => void this.refreshNewest(generation), DEX_REFRESH_MS);
    }
  }

  private stopLive(): void {
    this.stopBars?.();
    this.stopBars = undefined;
    if (this.refreshTimer !== undefined) clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
    if (this.state.live) this.setState({ live: false });
  }

  /** A DEX pool's newest bars, merged in. */
  private async refreshNewest(generation: number): Promise<void> {
    const info = this.info;
    const newest = this.raw.at(-1);
    if (!info || this.state.status !== 'ready' || !newest) return;
    const step = resolutionSeconds(this.resolution);
    const to = Math.floor(this.now() / 1000) + step;
    const [outcome, rates] = await Promise.all([fetchBars(this.datafeed, info, this.resolution, { from: newest.time, to, countBack: 0 }), this.loadRates(newest.time, to)]);
    if (generation !== this.generation || !outcome.ok || rates !== undefined) return;
    for (const bar of outcome.bars) this.onLiveBar(bar);
  }

  private onLiveBar(received: Bar): void {
    const lastRaw = this.raw.at(-1);
    if (lastRaw && received.time < lastRaw.time) return;
    this.raw = mergeBars(this.raw, received);
    const bar = this.present(received);
    // In USD, a bar before any stablecoin traded has no price to show.
    if (!bar) return;
    const last = this.bars.at(-1);
    if (last && bar.time < last.time) return;
    const wasEmpty = this.bars.length === 0;
    const appended = !last || bar.time > last.time;
    this.bars = mergeBars(this.bars, bar);
    const time = this.times.next(bar.time);
    if (appended) this.display.push(time);
    if (wasEmpty) {
      this.render();
      this.chart.timeScale().setVisibleLogicalRange({ from: -3, to: INITIAL_VISIBLE_BARS });
      this.setState({ status: 'ready', bars: this.bars.length });
      return;
    }
    this.candles.update(candleOf(bar, time));
    this.volume.update(volumeOf(bar, PALETTES[this.appearance.theme], time));
    this.tvl?.update(tvlOf(bar, time));
    this.drawIndicators();
    this.legend = legendOf(bar);
    this.legendChanged();
    this.writeAttributes();
    if (this.bars.length !== this.state.bars) this.setState({ bars: this.bars.length });
  }

  /** Draws these indicators (replacing the ones drawn): SMA, EMA, Bollinger bands, VWAP over the price, RSI in a pane of its own. */
  setIndicators(specs: readonly IndicatorSpec[]): void {
    this.wantedIndicators = specs;
    const maths = indicatorMaths;
    if (specs.length > 0 && !maths) {
      // Drawn once the maths is there, unless other indicators were asked meanwhile; a chunk that fails
      // to load leaves them undrawn (and is asked again with the next change).
      void loadIndicatorMaths().then(
        () => {
          if (!this.disposed && this.wantedIndicators === specs) this.setIndicators(specs);
        },
        () => undefined,
      );
      return;
    }
    if (JSON.stringify(specs) === JSON.stringify(this.indicators)) return;
    for (const series of this.indicatorSeries.values()) this.dropSeries(series);
    this.indicatorSeries.clear();
    this.indicators = specs;
    const palette = PALETTES[this.appearance.theme];
    specs.forEach((spec, i) => {
      for (const line of maths?.indicatorLines(spec, []) ?? []) {
        const color = INDICATOR_COLORS[i % INDICATOR_COLORS.length] ?? palette.tvl;
        const inPane = line.pane === 'rsi';
        const series = this.chart.addSeries(
          LineSeries,
          { color, lineWidth: line.id === 'bb-middle' ? 1 : 2, lineStyle: line.id === 'bb-middle' ? 2 : 0, title: line.title, priceLineVisible: false, lastValueVisible: line.title !== '', crosshairMarkerVisible: false },
          inPane ? this.chart.panes().length : 0,
        );
        if (inPane) {
          series.getPane().setStretchFactor(0.4);
          for (const level of [30, 70]) series.createPriceLine({ price: level, color: palette.text, lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: '' });
        }
        this.indicatorSeries.set(line.id, series);
      }
    });
    this.drawIndicators();
    this.measureIndicatorAdd();
  }

  /** Performance measure: an indicator picked in the menu -> the chart's frame with its lines (a rAF after the chart's own). */
  private measureIndicatorAdd(): void {
    if (performance.getEntriesByName(INDICATOR_ADD_MARK).length === 0) return;
    const detail = { indicators: this.container.dataset.indicators, bars: this.bars.length };
    const measure = () => {
      try {
        performance.measure(INDICATOR_DRAWN_MEASURE, { start: INDICATOR_ADD_MARK, detail });
      } catch {
        // The mark was cleared meanwhile (a benchmark): nothing to measure.
      }
      performance.clearMarks(INDICATOR_ADD_MARK);
    };
    // Without bars there is nothing to draw: the pick is forgotten rather than measured against a later load.
    if (this.bars.length === 0) performance.clearMarks(INDICATOR_ADD_MARK);
    else requestAnimationFrame(measure);
  }

  /** Every indicator line again from the bars (a few thousand bars: well under a millisecond each). */
  private drawIndicators(): void {
    this.container.dataset.indicators = this.indicators.map(indicatorLabel).join(', ');
    if (this.indicators.length === 0 || !indicatorMaths) return;
    for (const spec of this.indicators) {
      for (const line of indicatorMaths.indicatorLines(spec, this.bars)) {
        const series = this.indicatorSeries.get(line.id);
        series?.setData(line.values.map((value, i) => (value === null ? { time: this.timeAt(i) as UTCTimestamp } : { time: this.timeAt(i) as UTCTimestamp, value })));
      }
    }
  }

  /** Removes a series, and its pane when it leaves one empty (never the price pane). */
  private dropSeries(series: ISeriesApi<'Line'>): void {
    const pane = series.getPane();
    this.chart.removeSeries(series);
    const index = pane.paneIndex();
    if (index > 0 && pane.getSeries().length === 0 && this.chart.panes().length > index) this.chart.removePane(index);
  }

  /** Shows prices inverted (or back): the bars in hand are turned, new ones turned as they come. */
  setInverted(inverted: boolean): void {
    if (inverted === this.inverted) return;
    this.inverted = inverted;
    if (this.usd) return;
    this.bars = this.presentAll(this.raw);
    if (this.info) this.candles.applyOptions({ priceFormat: priceFormatOf(this.formatInfo(this.info), this.bars.at(-1)?.close) });
    this.render();
  }

  /**
   * Shows prices in USD with these rates (lib/usd: each bar times ADA/USD of its bucket), or back in ADA
   * (undefined). The bars load again (with their rates); live stablecoin trades move the newest bar.
   */
  setUsd(usd: UsdRates | undefined): void {
    if (usd === this.usd) return;
    this.usd = usd;
    this.stopRates?.();
    this.stopRates = usd?.subscribe(this.onRates);
    if (this.info) void this.load();
  }

  /** A stablecoin traded: the newest bar's rate may have moved. */
  private readonly onRates = () => {
    const raw = this.raw.at(-1);
    const shown = this.bars.at(-1);
    if (!raw || !shown || raw.time !== shown.time || this.state.status !== 'ready') return;
    const bar = this.present(raw);
    if (!bar || bar.close === shown.close) return;
    this.bars = mergeBars(this.bars, bar);
    const time = this.timeAt(this.bars.length - 1);
    this.candles.update(candleOf(bar, time));
    this.volume.update(volumeOf(bar, PALETTES[this.appearance.theme], time));
    this.tvl?.update(tvlOf(bar, time));
    this.drawIndicators();
    this.legend = legendOf(bar);
    this.legendChanged();
    this.writeAttributes();
  };

  /** The rates (in USD) for bar times in [from, to): undefined once loaded (or in ADA), else the error to show. */
  private async loadRates(from: number, to: number): Promise<string | undefined> {
    const usd = this.usd;
    if (!usd) return undefined;
    try {
      await usd.ensure(this.resolution, from, to);
      return undefined;
    } catch (error) {
      return `USD prices could not load: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** A bar as shown: in USD (undefined before any stablecoin traded), else inverted or as it is. */
  private present(bar: Bar): Bar | undefined {
    if (this.usd) {
      const rate = this.usd.rateAt(this.resolution, bar.time);
      return rate === undefined ? undefined : barInUsd(bar, rate);
    }
    return this.inverted ? invertBar(bar) : bar;
  }

  private presentAll(raw: readonly Bar[]): Bar[] {
    const shown: Bar[] = [];
    for (const bar of raw) {
      const presented = this.present(bar);
      if (presented) shown.push(presented);
    }
    return shown;
  }

  /** The symbol as its prices are shown: inverted or USD prices have no pricescale of their own (taken from the prices). */
  private formatInfo(info: LibrarySymbolInfo): LibrarySymbolInfo {
    return this.inverted || this.usd ? { ...info, pricescale: 0 } : info;
  }

  // --- drawing ---

  private render(): void {
    const palette = PALETTES[this.appearance.theme];
    this.display = this.times.reset(this.bars.map((b) => b.time));
    drawBars(this.parts, this.tvl, this.bars, palette, (i) => this.timeAt(i));
    this.drawIndicators();
    const last = this.bars.at(-1);
    this.legend = last ? legendOf(last) : undefined;
    this.hovered = undefined;
    this.legendChanged();
    this.writeAttributes();
  }

  /** The display time of bar `i`. */
  private timeAt(i: number): number {
    const bar = this.bars[i];
    return this.display[i] ?? bar?.time ?? 0;
  }

  private applyAppearance(): void {
    const { theme, showVolume, showTvl, logScale } = this.appearance;
    const palette = PALETTES[theme];
    const retime = this.configureTimes();
    styleChart(this.parts, palette, this.times, { showVolume, logScale });
    if (showTvl && !this.tvl) {
      this.tvl = addTvlSeries(this.chart, palette);
      this.tvl.setData(this.bars.map((b, i) => tvlOf(b, this.timeAt(i))));
    } else if (!showTvl && this.tvl) {
      this.dropSeries(this.tvl);
      this.tvl = undefined;
    }
    this.tvl?.applyOptions({ color: palette.tvl });
    // Local time switched on or off: every time moves. Otherwise volume colours follow the theme.
    if (retime) this.render();
    else if (this.bars.length > 0) this.volume.setData(this.bars.map((b, i) => volumeOf(b, palette, this.timeAt(i))));
    this.container.dataset.theme = theme;
  }

  private readonly onCrosshair = (param: MouseEventParams) => {
    const time = typeof param.time === 'number' ? this.times.actual(param.time) : undefined;
    const bar = time === undefined ? undefined : findBar(this.bars, time);
    const next = bar ? legendOf(bar) : undefined;
    if (next?.time === this.hovered?.time && next?.close === this.hovered?.close) return;
    this.hovered = next;
    this.legendChanged();
  };

  private legendChanged(): void {
    for (const listener of [...this.legendListeners]) listener();
  }

  private writeAttributes(): void {
    const d = this.container.dataset;
    const first = this.bars[0];
    const last = this.bars.at(-1);
    d.bars = String(this.bars.length);
    d.firstTime = first ? String(first.time) : '';
    d.lastTime = last ? String(last.time) : '';
    d.lastClose = last ? String(last.close) : '';
    d.symbol = this.info?.name ?? '';
    d.resolution = this.resolution;
    d.currency = this.usd ? 'usd' : 'ada';
  }

  private setState(patch: Partial<ChartState>): void {
    const next = { ...this.state, ...patch };
    if (patch.error === undefined && 'error' in patch) delete (next as { error?: string }).error;
    this.state = next;
    this.publish();
  }

  private publish(): void {
    this.container.dataset.status = this.state.status;
    this.container.dataset.live = String(this.state.live);
    for (const listener of [...this.stateListeners]) listener();
  }
}
