/** Small measuring helpers for the benchmarks. */

export interface BenchRow {
  readonly suite: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Human-readable target, e.g. "<= 20 s". */
  readonly target?: string;
  readonly pass?: boolean;
  readonly note?: string;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 0 ? ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2 : (sorted[mid] ?? 0);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; returns the durations in ms. */
export async function timeRuns(runs: number, fn: () => unknown, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    out.push(performance.now() - started);
  }
  return out;
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));
