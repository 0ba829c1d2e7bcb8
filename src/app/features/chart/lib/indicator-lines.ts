import type { ISeriesApi } from 'lightweight-charts';
import type { Bar } from '@/datafeed';
import { indicatorLabel, type IndicatorSpec } from '@/app/lib/indicators';
import type { Palette } from '@/app/lib/palette';
import type * as IndicatorMaths from './indicator-series';
import { INDICATOR_ADD_MARK, INDICATOR_DRAWN_MEASURE } from './marks';
import { linePoints, type PriceView } from './price-view';

/** Indicator line colours, in order (readable on both themes). */
const INDICATOR_COLORS = ['#f59e0b', '#a855f7', '#06b6d4', '#ec4899', '#84cc16'];

/** The indicator maths (trading-signals), a chunk of its own: loaded when a first indicator is drawn. */
let maths: typeof IndicatorMaths | undefined;
const loadMaths = () => import('./indicator-series').then((m) => (maths = m));

/**
 * The chart's indicators, one job: SMA, EMA, Bollinger bands and VWAP as lines over the price, RSI in a
 * pane of its own with its 30/70 lines, computed over the bars shown and drawn again with every change
 * of them. Their maths loads with the first indicator asked (`onLoaded` then draws them).
 */
export class IndicatorLines {
  private specs: readonly IndicatorSpec[] = [];
  private wanted: readonly IndicatorSpec[] = [];
  private readonly series = new Map<string, ISeriesApi<'Line'>>();
  private disposed = false;

  constructor(
    private readonly view: PriceView,
    private readonly onLoaded: () => void,
  ) {}

  /** What is drawn, as the chart's data-indicators says it (`SMA 20, RSI 14`). */
  get label(): string {
    return this.specs.map(indicatorLabel).join(', ');
  }

  /**
   * Draws these indicators (replacing the ones drawn) over `bars`. Without their maths yet, loads it and
   * calls `onLoaded` (unless others were asked meanwhile); a chunk that fails to load leaves them
   * undrawn, and is asked again with the next change. True when they were drawn now.
   */
  set(specs: readonly IndicatorSpec[], bars: readonly Bar[], palette: Palette): boolean {
    this.wanted = specs;
    if (specs.length > 0 && !maths) {
      void loadMaths().then(
        () => {
          if (!this.disposed && this.wanted === specs) this.onLoaded();
        },
        () => undefined,
      );
      return false;
    }
    if (JSON.stringify(specs) === JSON.stringify(this.specs)) return false;
    for (const line of this.series.values()) this.view.removeLine(line);
    this.series.clear();
    this.specs = specs;
    specs.forEach((spec, i) => {
      for (const line of maths?.indicatorLines(spec, []) ?? []) {
        const color = INDICATOR_COLORS[i % INDICATOR_COLORS.length] ?? palette.tvl;
        const inPane = line.pane === 'rsi';
        const middle = line.id === 'bb-middle';
        const series = this.view.addLine(
          {
            color,
            lineWidth: middle ? 1 : 2,
            lineStyle: middle ? 2 : 0,
            title: line.title,
            priceLineVisible: false,
            lastValueVisible: line.title !== '',
            crosshairMarkerVisible: false,
          },
          inPane ? this.view.paneCount() : 0,
        );
        if (inPane) {
          series.getPane().setStretchFactor(0.4);
          for (const level of [30, 70])
            series.createPriceLine({
              price: level,
              color: palette.text,
              lineWidth: 1,
              lineStyle: 2,
              axisLabelVisible: true,
              title: '',
            });
        }
        this.series.set(line.id, series);
      }
    });
    this.draw(bars);
    this.measureAdd(bars.length);
    return true;
  }

  /** Every line again from the bars (a few thousand bars: well under a millisecond each). */
  draw(bars: readonly Bar[]): void {
    if (this.specs.length === 0 || !maths) return;
    for (const spec of this.specs) {
      for (const line of maths.indicatorLines(spec, bars))
        this.series.get(line.id)?.setData(linePoints(this.view, bars, line.values));
    }
  }

  dispose(): void {
    this.disposed = true;
  }

  /** Performance measure: an indicator picked in the menu -> the chart's frame with its lines (a rAF after the chart's own). */
  private measureAdd(bars: number): void {
    if (performance.getEntriesByName(INDICATOR_ADD_MARK).length === 0) return;
    const detail = { indicators: this.label, bars };
    // Without bars there is nothing to draw: the pick is forgotten rather than measured against a later load.
    if (bars === 0) {
      performance.clearMarks(INDICATOR_ADD_MARK);
      return;
    }
    requestAnimationFrame(() => {
      try {
        performance.measure(INDICATOR_DRAWN_MEASURE, { start: INDICATOR_ADD_MARK, detail });
      } catch {
        // The mark was cleared meanwhile (a benchmark): nothing to measure.
      }
      performance.clearMarks(INDICATOR_ADD_MARK);
    });
  }
}
