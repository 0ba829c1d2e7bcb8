import { MAX_COUNTBACK } from '../shared/api/history';
import { mergeBars, type Bar } from '../shared/bars';
import { chartResolution, entryBucketStart, type Resolution, type ResolutionEntry } from '../shared/resolutions';
import { asSeconds, type UnixSeconds } from '../shared/time';
import type { Outcome } from './gateway-client';
import type { BarsAnswer, BarsRequest, HistoryLoader } from './history-loader';
import type { BarListener } from './live-feed';
import type { BarsReplacement } from './live-series';
import { VOLUME_SCALE } from './live-series';

/**
 * Chart resolutions /history does not serve (30 minutes, 4 hours, 1 week: `foldOf` in
 * shared/resolutions.ts), built here from the bars of a finer one the API serves: the bar rule is a
 * fold, so a coarse bar is its fine bars merged (open of the first, close and TVL of the last, high and
 * low over all, volumes summed in millionths as the service sums them). Buckets are UTC-aligned, weeks
 * from Monday 00:00 UTC.
 */

/** A chart-only resolution and the API resolution whose bars make it. */
export interface Folding {
  readonly entry: ResolutionEntry;
  readonly fine: Resolution;
  /** Fine buckets in one coarse bucket. */
  readonly factor: number;
}

/** How a chart resolution is built from the API's, or undefined when the API serves it (or it is unknown). */
export function foldingOf(resolution: string): Folding | undefined {
  const entry = chartResolution(resolution);
  const finer = entry?.foldOf === undefined ? undefined : chartResolution(entry.foldOf);
  if (entry === undefined || finer?.api === undefined) return undefined;
  return { entry, fine: finer.api, factor: Math.ceil(entry.seconds / finer.seconds) };
}

/** Fine bars (time-ordered) folded into the coarse bars of `entry`, one per coarse bucket that has a fine bar. */
export function foldBars(fine: readonly Bar[], entry: ResolutionEntry): Bar[] {
  const out: Bar[] = [];
  let micro = 0;
  for (const bar of fine) {
    const time = entryBucketStart(bar.time, entry);
    const last = out.at(-1);
    if (last !== undefined && last.time === time) {
      micro += Math.round(bar.volume * VOLUME_SCALE);
      out[out.length - 1] = { ...mergeBars(last, bar), volume: micro / VOLUME_SCALE };
    } else {
      micro = Math.round(bar.volume * VOLUME_SCALE);
      out.push({ ...bar, time, volume: micro / VOLUME_SCALE });
    }
  }
  return out;
}

/** The start of the first coarse bucket at or after `time`. */
function alignUp(time: number, entry: ResolutionEntry): UnixSeconds {
  const start = entryBucketStart(time, entry);
  return asSeconds(start === time ? start : start + entry.seconds);
}

/** Coarse bars and the fine bars of the newest coarse bucket (what live bars continue from). */
export interface FoldedAnswer extends BarsAnswer {
  readonly tail: readonly Bar[];
}

/** The fine bars of the newest coarse bucket. */
function tailOf(fine: readonly Bar[], entry: ResolutionEntry): Bar[] {
  const last = fine.at(-1);
  if (last === undefined) return [];
  const bucket = entryBucketStart(last.time, entry);
  return fine.filter((bar) => bar.time >= bucket);
}

/**
 * The coarse bars of [from, to) (bar start times) as `HistoryLoader.bars` gives the API's: at least
 * `countBack` while older history exists. Every coarse bar is whole: the fine bars asked reach its
 * bucket's start and end, and an oldest coarse bar the fine countback may have cut into is left out.
 */
export async function foldedBars(
  history: HistoryLoader,
  symbol: string,
  folding: Folding,
  request: BarsRequest,
): Promise<Outcome<FoldedAnswer>> {
  const { entry, fine, factor } = folding;
  const from = alignUp(request.from, entry);
  const to = alignUp(request.to, entry);
  const asked = request.countBack > 0 ? Math.min(MAX_COUNTBACK, (request.countBack + 1) * factor) : 0;
  const outcome = await history.bars(symbol, fine, { from: asSeconds(Math.min(from, to)), to, countBack: asked });
  if (!outcome.ok) return outcome;
  const fineBars = outcome.value.bars;
  let coarse = foldBars(fineBars, entry);
  const first = fineBars[0];
  // A countback answer of all it was asked may have started inside the oldest coarse bucket.
  if (
    asked > 0 &&
    fineBars.length >= asked &&
    first !== undefined &&
    entryBucketStart(first.time, entry) !== first.time
  )
    coarse = coarse.slice(1);
  return { ok: true, value: { bars: coarse, noData: outcome.value.noData, tail: tailOf(fineBars, entry) } };
}

/**
 * Live bars of a chart-only resolution: the fine series' bars (each the fine bucket's bar so far, again
 * or new) folded into the coarse bucket's bar with the fine bars before it in that bucket (`tail`).
 * Without a tail (the bars did not come through the datafeed), the fine bars of the newest coarse bucket
 * are loaded first (`prime`), the live ones held meanwhile. A rollback's replacement is folded when the
 * fine bars it starts after are held; otherwise the listener loads everything again.
 */
export class FoldingListener implements BarListener {
  private tail: Bar[];
  private held: Bar[] | undefined;

  constructor(
    private readonly entry: ResolutionEntry,
    private readonly target: BarListener,
    tail: readonly Bar[] | undefined,
    prime: (() => Promise<readonly Bar[] | undefined>) | undefined,
  ) {
    this.tail = [...(tail ?? [])];
    if (tail === undefined && prime) {
      this.held = [];
      void prime().then((bars) => {
        const held = this.held ?? [];
        this.held = undefined;
        this.tail = [...(bars ?? [])];
        for (const bar of held) this.onBar(bar);
      });
    }
  }

  onBar(bar: Bar): void {
    if (this.held) {
      this.held.push(bar);
      return;
    }
    const bucket = entryBucketStart(bar.time, this.entry);
    const newest = this.tail.at(-1);
    if (newest !== undefined && bar.time < newest.time) return;
    const kept =
      newest !== undefined && entryBucketStart(newest.time, this.entry) === bucket
        ? this.tail.filter((b) => b.time < bar.time)
        : [];
    this.tail = [...kept, bar];
    const coarse = foldBars(this.tail, this.entry).at(-1);
    if (coarse) this.target.onBar(coarse);
  }

  onReset(replacement?: BarsReplacement): void {
    const first = this.tail[0];
    const from = replacement === undefined ? undefined : entryBucketStart(replacement.from, this.entry);
    // The fine bars between the coarse bucket's start and the replacement's are needed, and held only for the newest bucket.
    if (
      replacement === undefined ||
      from === undefined ||
      first === undefined ||
      from < entryBucketStart(first.time, this.entry)
    ) {
      this.tail = [];
      this.target.onReset?.();
      return;
    }
    const fine = [...this.tail.filter((bar) => bar.time < replacement.from), ...replacement.bars];
    this.tail = tailOf(fine, this.entry);
    this.target.onReset?.({ from, bars: foldBars(fine, this.entry) });
  }
}
