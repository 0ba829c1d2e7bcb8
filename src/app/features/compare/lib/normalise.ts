import type { Bar } from '@/shared/bars';

/** A price series to compare: its bars (ascending; only times and closes matter). */
export interface CompareInput {
  readonly id: string;
  readonly bars: readonly Pick<Bar, 'time' | 'close'>[];
}

export interface NormalisedSeries {
  readonly id: string;
  /** Percent change from the series' price at the common start, from that start on. */
  readonly points: { readonly time: number; readonly value: number }[];
  /** The newest value (undefined without points). */
  readonly last: number | undefined;
}

/**
 * Puts several price series on one percent scale for comparison: each series is measured against its
 * own price at the common start (the latest first bar among the series, so every series has a price
 * there: its close at or before that time), and only points from that start on are kept. Series
 * without bars, or whose reference price is not positive, come back empty.
 */
export function normaliseSeries(inputs: readonly CompareInput[]): NormalisedSeries[] {
  const firsts = inputs.flatMap((s) => (s.bars[0] ? [s.bars[0].time] : []));
  if (firsts.length === 0) return inputs.map((s) => ({ id: s.id, points: [], last: undefined }));
  const start = Math.max(...firsts);
  return inputs.map((s) => {
    let reference: number | undefined;
    for (const bar of s.bars) {
      if (bar.time > start) break;
      reference = bar.close;
    }
    if (reference === undefined || !(reference > 0)) return { id: s.id, points: [], last: undefined };
    const base = reference;
    const points = s.bars
      .filter((bar) => bar.time >= start)
      .map((bar): { time: number; value: number } => ({ time: bar.time, value: (bar.close / base - 1) * 100 }));
    // The reference bar itself may be before the start: begin the line at 0 % at the start.
    if (points[0]?.time !== start) points.unshift({ time: start, value: 0 });
    return { id: s.id, points, last: points.at(-1)?.value };
  });
}
