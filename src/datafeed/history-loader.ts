import { MAX_COUNTBACK, historyResponseSchema } from '../shared/api/history';
import type { Bar } from '../shared/bars';
import type { Resolution } from '../shared/resolutions';
import type { UnixSeconds } from '../shared/time';
import { barsOfHistory } from './history-bars';
import type { GatewayClient, Outcome } from './gateway-client';
import { lastBarsQuery } from '../shared/api/gateway-urls';

export interface BarsRequest {
  /** Inclusive start of the range (bar start times), Unix seconds. */
  readonly from: UnixSeconds;
  /** Exclusive end of the range, Unix seconds. */
  readonly to: UnixSeconds;
  /** Fewest bars wanted while older history exists (0: just the range). */
  readonly countBack: number;
}

export interface BarsAnswer {
  readonly bars: Bar[];
  /** True when there is no bar before `to` at all. */
  readonly noData: boolean;
}

/** /history through the gateway, always with TVL. */
export class HistoryLoader {
  constructor(private readonly client: GatewayClient) {}

  /** Bars with from <= t < to. */
  async range(symbol: string, resolution: Resolution, from: UnixSeconds, to: UnixSeconds): Promise<Outcome<Bar[]>> {
    const outcome = await this.client.get(
      '/history',
      { symbol, resolution, from, to, include_tvl: true },
      historyResponseSchema,
    );
    return outcome.ok ? { ok: true, value: barsOfHistory(outcome.value) } : outcome;
  }

  /** The last `count` bars that start before `to` (the `countback` extension; oldest first). */
  async last(symbol: string, resolution: Resolution, to: UnixSeconds, count: number): Promise<Outcome<Bar[]>> {
    const countback = Math.min(MAX_COUNTBACK, Math.max(1, Math.floor(count)));
    const outcome = await this.client.get(
      '/history',
      lastBarsQuery(symbol, resolution, to, countback),
      historyResponseSchema,
    );
    return outcome.ok ? { ok: true, value: barsOfHistory(outcome.value) } : outcome;
  }

  /**
   * The bars the library asks for: those in [from, to), or, when the range holds fewer than
   * `countBack` and older bars exist, the last `countBack` bars before `to` (so the chart never gets
   * fewer bars than it asked for while history remains). One request in the usual case: the
   * countback request first; the range only when it holds more bars than `countBack`.
   */
  async bars(symbol: string, resolution: Resolution, request: BarsRequest): Promise<Outcome<BarsAnswer>> {
    const { from, to, countBack } = request;
    if (countBack <= 0) {
      const range = await this.range(symbol, resolution, from, to);
      if (!range.ok || range.value.length > 0)
        return range.ok ? { ok: true, value: { bars: range.value, noData: false } } : range;
      // An empty range: noData only when nothing earlier exists either.
      const older = await this.last(symbol, resolution, to, 1);
      return older.ok ? { ok: true, value: { bars: [], noData: older.value.length === 0 } } : older;
    }
    const last = await this.last(symbol, resolution, to, countBack);
    if (!last.ok) return last;
    const bars = last.value;
    const oldest = bars[0];
    if (oldest === undefined) return { ok: true, value: { bars: [], noData: true } };
    if (bars.length < Math.min(countBack, MAX_COUNTBACK) || oldest.time <= from)
      return { ok: true, value: { bars, noData: false } };
    // The range holds more than countBack bars: return all of it.
    const range = await this.range(symbol, resolution, from, to);
    return range.ok ? { ok: true, value: { bars: range.value, noData: false } } : range;
  }
}
