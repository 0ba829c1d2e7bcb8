import type { ResolutionString } from '../../../../datafeed';
import { toWireResolution } from '../../../../datafeed/resolution-map';
import { RESOLUTION_SECONDS } from '../../../../shared/resolutions';

/** Bars asked for at once: the first page, and each older page on scroll. */
export const PAGE_BARS = 300;

/** Seconds per bar of a library resolution (3600 for an unknown one). */
export function resolutionSeconds(resolution: ResolutionString): number {
  const wire = toWireResolution(resolution);
  return wire === undefined ? 3600 : RESOLUTION_SECONDS[wire];
}

/**
 * The chart's first request: the last PAGE_BARS bars before the end of the current bar's bucket. The
 * end is a bucket boundary, not "now", so the page's boot script (src/app/boot.ts), which asks before
 * the app's code has loaded, and the chart ask for the same URL unless a bucket ended in between (then
 * the chart asks again), and answers of the same bucket are alike for the server's cache too.
 */
export function firstPage(resolution: ResolutionString, nowMs: number): { readonly from: number; readonly to: number; readonly countBack: number } {
  const step = resolutionSeconds(resolution);
  const to = (Math.floor(nowMs / 1000 / step) + 1) * step;
  return { from: to - PAGE_BARS * step, to, countBack: PAGE_BARS };
}
