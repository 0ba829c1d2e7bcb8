import type { IChartApi, ISeriesApi, Logical } from 'lightweight-charts';
import { logicalOfTime, timeOfLogical, type Point } from './geometry';
import type { Anchor } from './model';

/**
 * What the drawings need of the chart (features/chart's `ChartSurface` is one): lightweight-charts, its
 * candles (the drawings are their primitive), the element it draws in (for the pointer), the bars shown
 * (true times; bar i at logical index i), the resolution's seconds, and its prices as shown: a price as
 * the datafeed has it (ADA per token) at a time, inverted or in USD (undefined: none then, as in USD
 * before any stablecoin traded), and back.
 */
export interface DrawingHost {
  readonly chart: IChartApi;
  readonly series: ISeriesApi<'Candlestick'>;
  readonly element: HTMLElement;
  bars(): readonly { readonly time: number }[];
  step(): number;
  toShown(price: number, time: number): number | undefined;
  fromShown(price: number, time: number): number | undefined;
}

/**
 * Anchors (true time, the datafeed's price) to the price pane's pixels and back, over the chart as it
 * is now: times through the bars' logical indexes (geometry.ts), prices through the host's presentation
 * (inverted, USD) and the candles' price scale.
 */
export class Projection {
  private times: { bars: readonly { readonly time: number }[]; times: Float64Array } | undefined;

  constructor(private readonly host: DrawingHost) {}

  private barTimes(): Float64Array {
    const bars = this.host.bars();
    if (this.times?.bars !== bars) this.times = { bars, times: Float64Array.from(bars, (b) => b.time) };
    return this.times.times;
  }

  /** x of a logical index (lightweight-charts' own mapping is linear in it, fractions included). */
  private xOf(logical: number): number | null {
    return this.host.chart.timeScale().logicalToCoordinate(logical as Logical);
  }

  /** The (fractional) logical index at x: lightweight-charts rounds its own, so it is found from two indexes' x. */
  private logicalAt(x: number): number | undefined {
    const x0 = this.xOf(0);
    const x1 = this.xOf(1);
    if (x0 === null || x1 === null || x1 === x0) return undefined;
    return (x - x0) / (x1 - x0);
  }

  toScreen(anchor: Anchor): (Point & { logical: number; shown: number }) | undefined {
    const logical = logicalOfTime(this.barTimes(), anchor.time, this.host.step());
    const shown = this.host.toShown(anchor.price, anchor.time);
    if (logical === undefined || shown === undefined) return undefined;
    const x = this.xOf(logical);
    const y = this.host.series.priceToCoordinate(shown);
    return x === null || y === null ? undefined : { x, y, logical, shown };
  }

  /** The anchor under a point of the price pane: its time on a bar (the nearest index), its price as the datafeed has it. */
  toAnchor(p: Point, snap = true): Anchor | undefined {
    const logical = this.logicalAt(p.x);
    const shown = this.host.series.coordinateToPrice(p.y);
    if (logical === undefined || shown === null) return undefined;
    const time = timeOfLogical(this.barTimes(), snap ? Math.round(logical) : logical, this.host.step());
    const price = time === undefined ? undefined : this.host.fromShown(shown, time);
    return time === undefined || price === undefined || !(price > 0) ? undefined : { time: Math.round(time), price };
  }
}
