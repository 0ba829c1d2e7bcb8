import { toWireResolution, type LibrarySymbolInfo, type ResolutionString, type TvlBar, type UdfDatafeed } from '../../../../datafeed';
import { RESOLUTION_SECONDS } from '../../../../shared/resolutions';
import { asSeconds } from '../../../../shared/time';

/** Seconds per bar of a library resolution (3600 for an unknown one). */
export function resolutionSeconds(resolution: ResolutionString): number {
  const wire = toWireResolution(resolution);
  return wire === undefined ? 3600 : RESOLUTION_SECONDS[wire];
}

export type BarsOutcome = { readonly ok: true; readonly bars: TvlBar[]; readonly noData: boolean } | { readonly ok: false; readonly error: string };

/** getBars as a promise that never rejects (the datafeed reports errors with the server's message). */
export function fetchBars(
  datafeed: UdfDatafeed,
  info: LibrarySymbolInfo,
  resolution: ResolutionString,
  period: { from: number; to: number; countBack: number; firstDataRequest: boolean },
): Promise<BarsOutcome> {
  return new Promise((resolve) =>
    datafeed.getBars(
      info,
      resolution,
      { from: asSeconds(Math.max(0, period.from)), to: asSeconds(period.to), countBack: period.countBack, firstDataRequest: period.firstDataRequest },
      (bars, meta) => resolve({ ok: true, bars: bars as TvlBar[], noData: meta?.noData === true }),
      (error) => resolve({ ok: false, error }),
    ),
  );
}

/** Puts `bar` into time-sorted `bars`: replaces the bar of the same time, or inserts it in order. */
export function mergeBars(bars: readonly TvlBar[], bar: TvlBar): TvlBar[] {
  const last = bars.at(-1);
  if (!last || bar.time > last.time) return [...bars, bar];
  if (bar.time === last.time) return [...bars.slice(0, -1), bar];
  const index = bars.findIndex((b) => b.time >= bar.time);
  const at = bars[index];
  if (at && at.time === bar.time) return [...bars.slice(0, index), bar, ...bars.slice(index + 1)];
  return [...bars.slice(0, index), bar, ...bars.slice(index)];
}

/** Whether two symbol infos name the same symbol (by pool ID when both have one, else by name). */
export function sameSymbol(a: LibrarySymbolInfo, b: LibrarySymbolInfo): boolean {
  if (a.ticker !== undefined && b.ticker !== undefined) return a.ticker.toLowerCase() === b.ticker.toLowerCase();
  return a.name.toLowerCase() === b.name.toLowerCase() || a.ticker?.toLowerCase() === b.name.toLowerCase() || b.ticker?.toLowerCase() === a.name.toLowerCase();
}
