import type { Bar, LibrarySymbolInfo, ResolutionString, UdfDatafeed } from '@/datafeed';

export { resolutionSeconds } from '@/shared/first-chart';

export type BarsOutcome = { readonly ok: true; readonly bars: Bar[]; readonly noData: boolean } | { readonly ok: false; readonly error: string };

/** The datafeed's bars as an outcome that never rejects (errors carry the server's message). */
export async function fetchBars(datafeed: UdfDatafeed, info: LibrarySymbolInfo, resolution: ResolutionString, range: { from: number; to: number; countBack: number }): Promise<BarsOutcome> {
  try {
    const answer = await datafeed.bars(info, resolution, { ...range, from: Math.max(0, range.from) });
    return { ok: true, bars: answer.bars, noData: answer.noData };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Puts `bar` into time-sorted `bars`: replaces the bar of the same time, or inserts it in order. */
export function mergeBars(bars: readonly Bar[], bar: Bar): Bar[] {
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
