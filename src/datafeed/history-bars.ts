import type { Bar } from '../shared/bars';
import { asSeconds } from '../shared/time';

/** The columns of a /history answer that make bars (`tvl` when asked with include_tvl). */
export interface HistoryColumns {
  readonly t: readonly number[];
  readonly o: readonly number[];
  readonly h: readonly number[];
  readonly l: readonly number[];
  readonly c: readonly number[];
  readonly v: readonly number[];
  readonly tvl?: readonly number[] | undefined;
}

/** Columns of /history to bars (seconds, as on the wire). A body without `tvl` gives tvl 0. */
export function barsOfHistory(body: HistoryColumns): Bar[] {
  return body.t.map((t, i) => ({
    time: asSeconds(t),
    open: body.o[i] ?? 0,
    high: body.h[i] ?? 0,
    low: body.l[i] ?? 0,
    close: body.c[i] ?? 0,
    volume: body.v[i] ?? 0,
    tvl: body.tvl?.[i] ?? 0,
  }));
}
