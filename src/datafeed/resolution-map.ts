import { apiResolutionEntry, chartResolution, CHART_RESOLUTIONS, type Resolution } from '../shared/resolutions';
import type { ResolutionString } from './tradingview-types';

/** The wire resolution (/history's `resolution`) of a library resolution; undefined when /history does not serve it. */
export function toWireResolution(resolution: string): Resolution | undefined {
  return chartResolution(resolution)?.api;
}

/** The resolutions announced by `onReady` and every resolved symbol, finest first (shared/resolutions.ts). */
export const SUPPORTED_RESOLUTIONS: readonly ResolutionString[] = CHART_RESOLUTIONS.map(
  (entry) => entry.chart as ResolutionString,
);

/** Minute multipliers served (the library builds the others, 3, 120 ..., from them). */
export const INTRADAY_MULTIPLIERS: readonly string[] = CHART_RESOLUTIONS.filter((entry) => entry.seconds < 86_400).map(
  (entry) => entry.chart,
);

/** Week multipliers served (`1W`: TradingView names weeks `<n>W`), built here from days. */
export const WEEKLY_MULTIPLIERS: readonly string[] = CHART_RESOLUTIONS.filter((entry) => entry.chart.endsWith('W')).map(
  (entry) => entry.chart.slice(0, -1),
);

/** The library resolution of a wire resolution. */
export function toLibraryResolution(resolution: Resolution): ResolutionString {
  return apiResolutionEntry(resolution).chart as ResolutionString;
}

export function unsupportedResolutionMessage(resolution: ResolutionString): string {
  return `Unsupported resolution "${resolution}" (supported: ${SUPPORTED_RESOLUTIONS.join(', ')})`;
}
