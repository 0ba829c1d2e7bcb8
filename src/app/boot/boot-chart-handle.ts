import type { ResolutionString } from '@/datafeed';

/**
 * The page's first picture of the chart (boot-chart.ts): the first bars drawn by lightweight-charts in
 * the chart's place of the page frame (index.html) before the app's code has run. The app's chart
 * takes it over (price-chart.tsx): the picture stays over it until the chart has drawn its own bars.
 */
export interface BootChart {
  /** The picture: an element to put over the app's chart (absolutely placed, aria-hidden). */
  readonly element: HTMLElement;
  /** The symbol name or pool ID drawn, as asked. */
  readonly target: string;
  readonly resolution: ResolutionString;
  readonly inverted: boolean;
  /** Removes the picture and frees its chart. */
  dispose(): void;
}

/** The performance mark of the picture's candles on screen (the app's chart sets `chart:candles`). */
export const PICTURE_MARK = 'chart:picture';

let waiting: BootChart | undefined;

/** The picture is drawn: it waits for the app's chart. */
export function offerBootChart(picture: BootChart): void {
  waiting?.dispose();
  waiting = picture;
}

/** The picture, once: the chart that takes it disposes of it. */
export function takeBootChart(): BootChart | undefined {
  const picture = waiting;
  waiting = undefined;
  return picture;
}

/** Disposes of a picture nobody took (the first screen had no chart for it). */
export function dropBootChart(): void {
  takeBootChart()?.dispose();
}
