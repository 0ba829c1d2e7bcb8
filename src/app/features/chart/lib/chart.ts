import type { IChartApi, ISeriesApi, LogicalRange } from 'lightweight-charts';
import type { Bar, BarsReplacement, LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { resolutionSeconds } from '@/app/lib/first-chart';
import { FIRST_CANDLES_MARK } from '@/app/lib/first-candles';
import type { IndicatorSpec } from '@/app/lib/indicators';
import { PALETTES } from '@/app/lib/palette';
import type { UsdRates } from '@/app/api/usd-rates';
import { chartTurns } from '@/app/lib/frame-queue';
import { BarBook } from './bar-book';
import { BarLoader, type BarsSource, type Loaded } from './bar-loader';
import { chartAttributes } from './chart-attributes';
import { legendOf, priceFormatOf, type ChartAppearance } from './chart-style';
import { IndicatorLines } from './indicator-lines';
import type { KeyboardCursor } from './keyboard-cursor';
import { LegendView } from './legend-view';
import { CROSSHAIR_MARK } from './marks';
import { INITIAL_VISIBLE_BARS, PriceView } from './price-view';

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

/**
 * What drawing tools need of the chart (features/drawings' DrawingHost): lightweight-charts, its candles,
 * the element it draws in, the bars shown (true times), the resolution's seconds, and a price as the
 * datafeed has it shown at a time (inverted, in USD) and back.
 */
export interface ChartSurface {
  readonly chart: IChartApi;
  readonly series: ISeriesApi<'Candlestick'>;
  readonly element: HTMLElement;
  bars(): readonly Bar[];
  step(): number;
  toShown(price: number, time: number): number | undefined;
  fromShown(price: number, time: number): number | undefined;
}

/** A chart's lightweight-charts objects, for what keeps several charts in step (features/layouts). */
export interface ChartLink {
  readonly chart: IChartApi;
  readonly series: ISeriesApi<'Candlestick'>;
  /**
   * The legend shows the bar at this display time (undefined: the newest), as when the pointer is
   * over it: a crosshair set from another chart (setCrosshairPosition) tells the chart's own
   * listeners nothing.
   */
  hover(time: number | undefined): void;
}

/** A candle clicked (or opened with Enter): its bar as the datafeed gave it (not inverted, in ADA) and as shown. */
export interface ClickedCandle {
  readonly symbol: LibrarySymbolInfo;
  readonly resolution: ResolutionString;
  readonly raw: Bar;
  readonly shown: Bar;
  /** Opened from the keyboard (Enter or Space on the chart): what lists it takes the focus. */
  readonly keyboard?: true;
}

/** Fewer than this many bars left of the view start loading older ones. */
const LOAD_OLDER_THRESHOLD = 30;

/** Whether two symbol infos name the same symbol (by pool ID when both have one, else by name). */
export function sameSymbol(a: LibrarySymbolInfo, b: LibrarySymbolInfo): boolean {
  if (a.ticker !== undefined && b.ticker !== undefined) return a.ticker.toLowerCase() === b.ticker.toLowerCase();
  return (
    a.name.toLowerCase() === b.name.toLowerCase() ||
    a.ticker?.toLowerCase() === b.name.toLowerCase() ||
    b.ticker?.toLowerCase() === a.name.toLowerCase()
  );
}

const isDaily = (resolution: ResolutionString) => resolutionSeconds(resolution) >= 86_400;

/**
 * The candlestick chart of one symbol at one resolution, composed here of parts with one job each:
 * - `PriceView` (price-view.ts): lightweight-charts, its series and panes, what the pointer is over;
 * - `LegendView` (legend-view.ts): the bar under the crosshair, in plain DOM;
 * - `BarBook` (bar-book.ts): the bars as loaded and as shown (inverted, in USD);
 * - `BarLoader` (bar-loader.ts): pages of bars from the datafeed, live bars, a DEX pool's refresh;
 * - `IndicatorLines` (indicator-lines.ts): the indicators, their maths loaded with the first.
 * - `keyboardCursor` (keyboard-cursor.ts): the keys on the chart's place, a cursor from bar to bar,
 *   loaded when the chart first takes the focus.
 * - `chartAttributes` (chart-attributes.ts): the data attributes tests and tools read on its place.
 * This class holds what ties them: the symbol, the state React reads (`subscribe`, `getState`) and the
 * performance marks.
 *
 * It draws before it loads anything when the page carries its first bars (`showBars`, from the page's
 * first paint, src/app/first-paint.ts), and loads once it is given the datafeed (`connect`): the app's
 * chart component then takes it over where it is (`place`), bars and all.
 */
export class Chart {
  private readonly view: PriceView;
  private readonly legend: LegendView;
  private readonly book = new BarBook();
  private readonly indicators: IndicatorLines;
  /** The keyboard's cursor, once the chart has had the focus. */
  private cursor: KeyboardCursor | undefined;
  private loader: BarLoader | undefined;
  /** The element the chart is in, which carries its data attributes. */
  private container: HTMLElement;
  private info: LibrarySymbolInfo | undefined;
  private resolution: ResolutionString = '60';
  private appearance: ChartAppearance;
  private inverted = false;
  private usd: UsdRates | undefined;
  private stopRates: (() => void) | undefined;
  private stopLive: (() => void) | undefined;
  /** Bumped by every load: answers of an older load are dropped. */
  private generation = 0;
  private loadingOlder = false;
  private disposed = false;
  private answered = false;
  private hovered: Bar | undefined;
  /** Index (in the bars shown) of the first bar changed live and not drawn yet; undefined: none. */
  private undrawnFrom: number | undefined;
  /** How many of the bars shown the view has drawn (live bars after them are appended when drawn). */
  private drawnCount = 0;
  private state: ChartState = { status: 'idle', bars: 0, loadingOlder: false, exhausted: false, live: false };
  private readonly listeners = new Set<() => void>();

  constructor(
    container: HTMLElement,
    appearance: ChartAppearance,
    private readonly now: () => number = Date.now,
  ) {
    this.container = container;
    this.appearance = appearance;
    this.view = new PriceView(container, appearance, false);
    this.legend = new LegendView(container);
    this.indicators = new IndicatorLines(this.view, () => this.setIndicators(this.wantedIndicators));
    this.view.onHover(this.onHover);
    this.view.onClick(this.onClick);
    this.view.onRange(this.onRange);
    container.addEventListener('focus', this.loadCursor);
    container.dataset.theme = appearance.theme;
    this.publish();
  }

  // --- for React (useSyncExternalStore) ---

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): ChartState => this.state;

  // --- where it is, what it loads from ---

  /** Moves the chart, as drawn, into `container` (which then carries its data attributes). */
  place(container: HTMLElement): void {
    if (container === this.container) return;
    this.container.removeEventListener('focus', this.loadCursor);
    this.container = container;
    container.append(this.view.element);
    this.legend.follow(container);
    if (this.cursor) this.cursor.follow(container);
    else container.addEventListener('focus', this.loadCursor);
    container.dataset.theme = this.appearance.theme;
    this.writeAttributes();
    this.writeVisible(this.view.visibleRange());
    this.publish();
  }

  /**
   * The datafeed to load from and follow: a symbol set before is loaded now, bars already shown
   * (`showBars`) are followed live from their newest.
   */
  connect(source: BarsSource): void {
    if (this.loader) return;
    this.loader = new BarLoader(source, this.now);
    // A symbol set before, or bars shown in ADA that are now wanted in USD: loaded now.
    if (this.info && (this.state.status === 'idle' || this.usd)) void this.load();
    else if (this.state.status === 'ready') {
      this.follow(this.generation);
      this.onRange(this.view.visibleRange());
    }
  }

  /**
   * Shows bars already in hand as the first page of `info` at `resolution` (the page's own first bars,
   * as the page's first paint has them), without asking anything: the chart is ready and answers the
   * pointer; it follows them live once connected.
   */
  showBars(info: LibrarySymbolInfo, resolution: ResolutionString, bars: readonly Bar[]): void {
    this.info = info;
    this.resolution = resolution;
    this.generation++;
    this.configure();
    this.book.reset(bars);
    this.formatPrices();
    this.drawn(false);
  }

  // --- what it shows ---

  /**
   * Shows `info` at `resolution`. The same symbol again (a stand-in resolved) keeps the bars and only
   * updates the price format and the live subscription.
   */
  setSymbol(info: LibrarySymbolInfo, resolution: ResolutionString): void {
    const previous = this.info;
    const same =
      previous !== undefined &&
      sameSymbol(previous, info) &&
      this.resolution === resolution &&
      this.state.status !== 'error';
    this.info = info;
    this.resolution = resolution;
    this.configure();
    this.formatPrices();
    if (!same) {
      void this.load();
      return;
    }
    this.writeAttributes();
    // The resolved symbol may stream where its stand-in could not.
    if (previous.exchange !== info.exchange || previous.ticker !== info.ticker) {
      this.unfollow();
      this.follow(this.generation);
    }
  }

  /** Loads again from scratch (the Retry button, a reset from the datafeed). */
  retry(): void {
    void this.load();
  }

  setAppearance(appearance: ChartAppearance): void {
    // Live bars waiting for a frame first: the volume is coloured again from the bars drawn.
    if (this.undrawnFrom !== undefined) this.drawLive();
    this.appearance = appearance;
    const retimed = this.view.configure(appearance, isDaily(this.resolution));
    if (retimed) this.render();
    else this.view.recolour(this.book.shown);
    this.container.dataset.theme = appearance.theme;
  }

  /** The legend's title: the pair it shows (`SNEK/ADA on Aggregate`). */
  setTitle(title: string | undefined): void {
    this.legend.setTitle(title);
  }

  /** Prices inverted (or back): the bars in hand are turned, new ones turned as they come. */
  setInverted(inverted: boolean): void {
    if (inverted === this.inverted) return;
    this.inverted = inverted;
    if (this.usd) return;
    this.present();
    this.formatPrices();
    this.render();
  }

  /**
   * Prices in USD with these rates (lib/usd: each bar times ADA/USD of its bucket), or back in ADA
   * (undefined). The bars load again (with their rates); live stablecoin trades move the newest bar.
   */
  setUsd(usd: UsdRates | undefined): void {
    if (usd === this.usd) return;
    this.usd = usd;
    this.stopRates?.();
    this.stopRates = usd?.subscribe(this.onRates);
    this.present();
    // Without the datafeed yet, connect() loads them.
    if (this.info && this.loader) void this.load();
  }

  private wantedIndicators: readonly IndicatorSpec[] = [];

  /** Draws these indicators (replacing the ones drawn). */
  setIndicators(specs: readonly IndicatorSpec[]): void {
    this.wantedIndicators = specs;
    this.indicators.set(specs, this.book.shown, PALETTES[this.appearance.theme]);
    this.container.dataset.indicators = this.indicators.label;
  }

  /** The bars in view, oldest first. */
  visibleBars(): Bar[] {
    const bars = this.book.shown;
    const range = this.view.visibleRange();
    if (!range) return [...bars];
    const from = Math.max(0, Math.ceil(range.from));
    const to = Math.min(bars.length - 1, Math.floor(range.to));
    return to < from ? [] : bars.slice(from, to + 1);
  }

  /** The chart as a canvas (the PNG export). */
  screenshot(): HTMLCanvasElement {
    return this.view.screenshot();
  }

  /** What drawing tools draw on (ChartSurface). */
  surface(): ChartSurface {
    const book = this.book;
    return {
      chart: this.view.chart,
      series: this.view.candles,
      element: this.view.element,
      bars: () => book.shown,
      step: () => resolutionSeconds(this.resolution),
      toShown: (price, time) => book.priceShown(price, time),
      fromShown: (price, time) => book.priceShown(price, time, true),
    };
  }

  /** lightweight-charts' chart and its candles: another part keeps crosshair and time range in step with other charts. */
  link(): ChartLink {
    return {
      chart: this.view.chart,
      series: this.view.candles,
      hover: (time) => this.hover(time === undefined ? undefined : this.view.actualTime(time)),
    };
  }

  private candleListener: ((candle: ClickedCandle) => void) | undefined;

  /** A click on a candle, or Enter on the keyboard's cursor, calls `listener` with it (the candle's trades, features/candle-trades). */
  onCandle(listener: ((candle: ClickedCandle) => void) | undefined): void {
    this.candleListener = listener;
  }

  /** Marks the candle holding true time `time` (a trade's), or takes the mark away (undefined). */
  markTime(time: number | undefined): void {
    const step = resolutionSeconds(this.resolution);
    const bars = this.book.shown;
    const bucket = time === undefined ? undefined : time - (time % step);
    const i = bucket === undefined ? -1 : bars.findLastIndex((bar) => bar.time === bucket);
    this.view.mark(i < 0 ? undefined : i, bars);
    this.container.dataset.marked = i < 0 ? '' : String(bucket);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.generation++;
    chartTurns.cancel(this.drawLive);
    this.unfollow();
    this.stopRates?.();
    this.indicators.dispose();
    this.container.removeEventListener('focus', this.loadCursor);
    this.cursor?.follow(undefined);
    this.legend.dispose();
    this.view.dispose();
    this.listeners.clear();
  }

  // --- loading ---

  private async load(): Promise<void> {
    const info = this.info;
    const loader = this.loader;
    if (!info || !loader) return;
    const generation = ++this.generation;
    this.unfollow();
    this.book.reset([]);
    this.render();
    this.setState({ status: 'loading', error: undefined, bars: 0, loadingOlder: false, exhausted: false, live: false });
    const loaded = await loader.first(info, this.resolution, this.usd);
    if (generation !== this.generation) return;
    if (!loaded.ok) {
      this.setState({ status: 'error', error: loaded.error });
      return;
    }
    this.book.reset(loaded.bars);
    this.formatPrices();
    this.drawn(loaded.noData);
    this.follow(generation);
  }

  /** The bars in hand are drawn as a first page: in view, marked, and the state says so. */
  private drawn(noData: boolean): void {
    this.render();
    const n = this.book.shown.length;
    if (n > 0) {
      performance.mark(FIRST_CANDLES_MARK, {
        detail: { symbol: this.info?.name, resolution: this.resolution, bars: n },
      });
      this.view.showNewest(n);
    }
    this.setState({
      status: n === 0 ? 'empty' : 'ready',
      error: undefined,
      bars: n,
      loadingOlder: false,
      exhausted: noData || n === 0,
    });
  }

  private async loadOlder(): Promise<void> {
    const info = this.info;
    const oldest = this.book.raw[0];
    const loader = this.loader;
    if (!info || !oldest || !loader || this.loadingOlder || this.state.exhausted || this.state.status !== 'ready')
      return;
    this.loadingOlder = true;
    const generation = this.generation;
    this.setState({ loadingOlder: true });
    const loaded = await loader.older(info, this.resolution, oldest.time, this.usd);
    this.loadingOlder = false;
    if (generation !== this.generation) return;
    // A failure: scrolling on will try again.
    if (!loaded.ok) {
      this.setState({ loadingOlder: false });
      return;
    }
    const added = this.book.prepend(loaded.bars);
    if (added > 0) {
      const before = this.view.visibleRange();
      this.render();
      // The same bars stay in view: logical indexes moved by the number of bars added.
      if (before) this.view.setVisibleRange({ from: before.from + added, to: before.to + added });
      this.writeVisible(this.view.visibleRange());
    }
    const olderThanHeld = loaded.bars.some((bar) => bar.time < oldest.time);
    this.setState({ loadingOlder: false, bars: this.book.shown.length, exhausted: loaded.noData || !olderThanHeld });
  }

  // --- live ---

  private follow(generation: number): void {
    const info = this.info;
    const loader = this.loader;
    if (!info || !loader || generation !== this.generation || this.stopLive !== undefined) return;
    if (this.state.status === 'error' || this.state.status === 'loading') return;
    // A stand-in's group is not known yet: wait for the resolved symbol.
    if (info.exchange === '') return;
    const current = () => generation === this.generation;
    const following = loader.follow(info, this.resolution, this.book.raw.at(-1), {
      onBar: (bar) => {
        if (current()) this.onLiveBar(bar);
      },
      onReset: (replacement) => {
        if (!current()) return;
        if (replacement) this.replaceBars(replacement, generation);
        else this.retry();
      },
      refresh: () => void this.refresh(generation),
    });
    this.stopLive = following.stop;
    if (following.live) this.setState({ live: true });
  }

  private unfollow(): void {
    this.stopLive?.();
    this.stopLive = undefined;
    if (this.state.live) this.setState({ live: false });
  }

  /**
   * The bars from `replacement.from` on as the server now has them (a chain rollback undid trades):
   * put in place of those held, without loading anything else; the view keeps its right edge. In USD,
   * the rates of that span are loaded again first (they may have moved with it).
   */
  private replaceBars(replacement: BarsReplacement, generation: number): void {
    const before = this.view.visibleRange();
    const count = this.book.shown.length;
    this.book.replaceFrom(replacement.from, replacement.bars);
    this.render();
    const moved = this.book.shown.length - count;
    if (before) this.view.setVisibleRange({ from: before.from + moved, to: before.to + moved });
    this.writeVisible(this.view.visibleRange());
    if (this.state.status === 'ready' || this.state.status === 'empty')
      this.setState({ status: this.book.shown.length === 0 ? 'empty' : 'ready', bars: this.book.shown.length });
    const usd = this.usd;
    const newest = replacement.bars.at(-1);
    if (!usd || newest === undefined) return;
    void usd.ensure(this.resolution, replacement.from, newest.time + resolutionSeconds(this.resolution)).then(
      () => {
        if (generation !== this.generation || usd !== this.usd) return;
        this.present();
        this.render();
      },
      () => undefined,
    );
  }

  /** A DEX pool's newest bars, merged in. */
  private async refresh(generation: number): Promise<void> {
    const info = this.info;
    const newest = this.book.raw.at(-1);
    if (!info || !this.loader || this.state.status !== 'ready' || !newest) return;
    const loaded: Loaded = await this.loader.since(info, this.resolution, newest.time, this.usd);
    if (generation !== this.generation || !loaded.ok) return;
    for (const bar of loaded.bars) this.onLiveBar(bar);
  }

  /**
   * A live bar: in the book now (what the pointer and a click read), drawn on a coming frame with
   * whatever else came by then (`drawLive`).
   */
  private onLiveBar(received: Bar): void {
    const wasEmpty = this.book.shown.length === 0;
    const merged = this.book.merge(received);
    if (!merged) return;
    if (wasEmpty) {
      this.render();
      this.view.setVisibleRange({ from: -3, to: INITIAL_VISIBLE_BARS });
      this.setState({ status: 'ready', bars: this.book.shown.length });
      return;
    }
    // The newest bar, again or new (merge takes nothing older).
    this.undrawn(this.book.shown.length - 1);
  }

  /** A stablecoin traded: the newest bar's rate may have moved. */
  private readonly onRates = () => {
    if (this.state.status !== 'ready') return;
    if (this.book.represent()) this.undrawn(this.book.shown.length - 1);
  };

  /** Bars from index `from` on changed since the last draw: drawn on a coming frame. */
  private undrawn(from: number): void {
    this.undrawnFrom = Math.min(this.undrawnFrom ?? from, from);
    // Once per frame, in the charts' turns: four charts on a busy pool all repainting in the same frame made it a long task.
    chartTurns.request(this.drawLive);
  }

  /** The live bars that came since the last frame, drawn at once: candles, indicators, legend, attributes, state. */
  private readonly drawLive = () => {
    const from = this.undrawnFrom;
    this.undrawnFrom = undefined;
    if (from === undefined || this.disposed) return;
    const bars = this.book.shown;
    for (let i = Math.min(from, this.drawnCount); i < bars.length; i++) {
      const bar = bars[i];
      if (bar) this.view.update(bar, i >= this.drawnCount);
    }
    this.drawnCount = bars.length;
    this.indicators.draw(bars);
    const last = bars.at(-1);
    if (!this.hovered && last) this.legend.show(legendOf(last));
    this.writeAttributes();
    if (bars.length !== this.state.bars) this.setState({ bars: bars.length });
  };

  // --- drawing ---

  private present(): void {
    this.book.present({ inverted: this.inverted, usd: this.usd, resolution: this.resolution });
  }

  /** Times follow the zone and the resolution (daily bars stay UTC days). */
  private configure(): void {
    if (this.view.configure(this.appearance, isDaily(this.resolution))) this.render();
    this.present();
  }

  /** The candles' price format and the legend's decimals: the symbol's pricescale, or (inverted, in USD, not known yet) from the prices. */
  private formatPrices(): void {
    const info = this.info;
    if (!info) return;
    const own = this.inverted || this.usd ? 0 : info.pricescale;
    this.view.setPriceFormat(priceFormatOf({ ...info, pricescale: own }, this.book.shown.at(-1)?.close));
    this.legend.setPricescale(own > 0 ? own : undefined);
  }

  private render(): void {
    const bars = this.book.shown;
    // Everything is drawn: live bars waiting for a frame too.
    this.undrawnFrom = undefined;
    chartTurns.cancel(this.drawLive);
    this.drawnCount = bars.length;
    this.view.draw(bars);
    this.indicators.draw(bars);
    const last = bars.at(-1);
    this.hovered = undefined;
    this.legend.show(last ? legendOf(last) : undefined);
    this.writeAttributes();
  }

  /**
   * The keyboard's cursor, a chunk of its own: loaded when the chart first takes the focus (the keys
   * come after), not on the first chart's path. Not loaded (the network): the next focus tries again.
   */
  private readonly loadCursor = () => {
    this.container.removeEventListener('focus', this.loadCursor);
    import('./keyboard-cursor').then(
      ({ keyboardCursor }) => {
        if (this.disposed || this.cursor) return;
        this.cursor = keyboardCursor({
          view: this.view,
          bars: () => this.book.shown,
          hover: this.hover,
          open: (time) => this.onClick(time, true),
          price: this.legend.price,
          zone: () => (isDaily(this.resolution) ? 'utc' : this.appearance.timeZone),
        });
        this.cursor.follow(this.container);
      },
      () => this.disposed || this.container.addEventListener('focus', this.loadCursor),
    );
  };

  /**
   * lightweight-charts' crosshair moved: by the pointer, which takes over from the keyboard's cursor,
   * or by itself as bars come or the range moves (the cursor, when shown, keeps its bar).
   */
  private readonly onHover = (time: number | undefined, pointer: boolean) => {
    if (pointer) this.cursor?.forget();
    else if (this.cursor?.active) return;
    this.hover(time);
  };

  /** The legend shows the bar at true time `time` (the newest: undefined), for the pointer, the keyboard or another chart. */
  private readonly hover = (time: number | undefined) => {
    const bar = time === undefined ? undefined : this.book.at(time);
    if (bar === this.hovered) return;
    this.hovered = bar;
    const last = this.book.shown.at(-1);
    this.legend.show(bar ? legendOf(bar) : last ? legendOf(last) : undefined);
    if (bar && !this.answered) {
      // The chart's first answer to the pointer (the benchmark's "interactive").
      this.answered = true;
      performance.mark(CROSSHAIR_MARK, { detail: { symbol: this.info?.name } });
    }
  };

  private readonly onClick = (time: number | undefined, keyboard = false) => {
    const shown = time === undefined ? undefined : this.book.at(time);
    const raw = shown && this.book.raw.find((bar) => bar.time === shown.time);
    if (this.info && shown && raw)
      this.candleListener?.({
        symbol: this.info,
        resolution: this.resolution,
        raw,
        shown,
        ...(keyboard ? { keyboard } : {}),
      });
  };

  private readonly onRange = (range: LogicalRange | null) => {
    this.writeVisible(range);
    this.cursor?.refresh();
    if (range && range.from < LOAD_OLDER_THRESHOLD) void this.loadOlder();
  };

  private writeVisible(range: LogicalRange | null): void {
    chartAttributes.visible(this.container, this.book.shown, range);
  }

  /** The place's attributes, after the bars or the legend changed: the keyboard's cursor shows its bar again. */
  private writeAttributes(): void {
    chartAttributes.bars(this.container, {
      bars: this.book.shown,
      symbol: this.info?.name ?? '',
      resolution: this.resolution,
      usd: this.usd !== undefined,
      indicators: this.indicators.label,
    });
    this.cursor?.refresh();
  }

  private setState(patch: Partial<ChartState>): void {
    const next = { ...this.state, ...patch };
    if (patch.error === undefined && 'error' in patch) delete (next as { error?: string }).error;
    this.state = next;
    this.publish();
  }

  private publish(): void {
    chartAttributes.state(this.container, this.state);
    for (const listener of [...this.listeners]) listener();
  }
}
