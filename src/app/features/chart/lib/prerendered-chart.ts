import type { ResolutionString } from '@/datafeed';
import type { Chart } from './chart';

/** The chart's place in the page as PriceChart renders it (the page's first paint draws into it). */
export const CHART_PLACE_SELECTOR = '.chart > .chart__canvas[data-testid="price-chart"]';

/** What a chart drawn before the app shows: the symbol name or pool ID as asked, its resolution. */
export interface PrerenderedShows {
  readonly target: string;
  readonly resolution: ResolutionString;
}

/**
 * The chart the page's first paint drew (src/app/first-paint.ts: the bars the page carries, drawn
 * before the app's code has loaded), waiting for the app's chart component to take it over where it
 * is, bars and all. Taken once; one nobody takes (the first screen has no chart for it) is dropped.
 */
export class PrerenderedChart {
  private chart: Chart | undefined;

  constructor(
    chart: Chart,
    readonly shows: PrerenderedShows,
  ) {
    this.chart = chart;
  }

  /** The chart, once, when `fits` says it shows what the taker is about to show; else it is dropped. */
  take(fits: (shows: PrerenderedShows) => boolean): Chart | undefined {
    const chart = this.chart;
    this.chart = undefined;
    if (chart && !fits(this.shows)) {
      chart.dispose();
      return undefined;
    }
    return chart;
  }

  /** Disposes of the chart if nobody took it. */
  drop(): void {
    this.chart?.dispose();
    this.chart = undefined;
  }
}
