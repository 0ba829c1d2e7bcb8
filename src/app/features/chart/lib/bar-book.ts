import type { Bar, ResolutionString } from '@/datafeed';
import { invertBar, invertPrice } from '@/app/lib/orientation';
import { barInUsd } from '@/app/lib/usd';
import type { UsdRates } from '@/app/api/usd-rates';

/** Puts `bar` into time-sorted `bars`: replaces the bar of the same time, or inserts it in order. */
export function putBar(bars: readonly Bar[], bar: Bar): Bar[] {
  const last = bars.at(-1);
  if (!last || bar.time > last.time) return [...bars, bar];
  if (bar.time === last.time) return [...bars.slice(0, -1), bar];
  const index = bars.findIndex((b) => b.time >= bar.time);
  const at = bars[index];
  if (at && at.time === bar.time) return [...bars.slice(0, index), bar, ...bars.slice(index + 1)];
  return [...bars.slice(0, index), bar, ...bars.slice(index)];
}

/** How bars are shown: as they come (ADA per token), inverted, or in USD (which wins over inverted). */
export interface Presentation {
  readonly inverted: boolean;
  /** The rates of USD prices (lib/usd: each bar times ADA/USD of its bucket); undefined: in ADA. */
  readonly usd: UsdRates | undefined;
  readonly resolution: ResolutionString;
}

/**
 * The chart's bars, one job: the bars as the datafeed gave them (`raw`, ADA per token) and as they are
 * shown (`shown`: inverted, or in USD, where a bar before any stablecoin traded has no price and is
 * left out), kept in step as bars come: a page, older pages, live bars, a new presentation.
 */
export class BarBook {
  private rawBars: Bar[] = [];
  private shownBars: Bar[] = [];
  private presentation: Presentation = { inverted: false, usd: undefined, resolution: '60' };

  get raw(): readonly Bar[] {
    return this.rawBars;
  }

  get shown(): readonly Bar[] {
    return this.shownBars;
  }

  /** Prices shown another way: every bar is presented again. */
  present(presentation: Presentation): void {
    this.presentation = presentation;
    this.shownBars = this.presentAll(this.rawBars);
  }

  /** A bar as shown: in USD (undefined before any stablecoin traded), else inverted or as it is. */
  presented(bar: Bar): Bar | undefined {
    const { usd, inverted, resolution } = this.presentation;
    if (usd) {
      const rate = usd.rateAt(resolution, bar.time);
      return rate === undefined ? undefined : barInUsd(bar, rate);
    }
    return inverted ? invertBar(bar) : bar;
  }

  /**
   * A price as the datafeed has it (ADA per token) as shown at `time`, or back (`back`): inverted, or in
   * USD at ADA/USD of its bucket (undefined without a rate then). Drawings are kept as the datafeed has it.
   */
  priceShown(price: number, time: number, back = false): number | undefined {
    const { usd, inverted, resolution } = this.presentation;
    if (!usd) return inverted ? invertPrice(price) : price;
    const rate = usd.rateAt(resolution, time);
    return rate === undefined || rate <= 0 ? undefined : back ? price / rate : price * rate;
  }

  /** Every bar anew (a first page). */
  reset(raw: readonly Bar[]): void {
    this.rawBars = [...raw];
    this.shownBars = this.presentAll(this.rawBars);
  }

  /** Bars from `from` (a bar time) on replaced by `bars` (a chain rollback changed them); the older ones stand. */
  replaceFrom(from: number, bars: readonly Bar[]): void {
    const kept = this.rawBars.filter((bar) => bar.time < from);
    const added = bars.filter((bar) => bar.time >= from);
    this.rawBars = [...kept, ...added];
    this.shownBars = [...this.shownBars.filter((bar) => bar.time < from), ...this.presentAll(added)];
  }

  /** Older bars before the oldest held; returns how many shown bars they added. */
  prepend(older: readonly Bar[]): number {
    const oldest = this.rawBars[0];
    const before = older.filter((bar) => oldest === undefined || bar.time < oldest.time);
    const shown = this.presentAll(before);
    this.rawBars = [...before, ...this.rawBars];
    this.shownBars = [...shown, ...this.shownBars];
    return shown.length;
  }

  /**
   * A live (or refreshed) bar: the newest one again or a new one. Returns how it is shown and whether it
   * was appended, or undefined when it changes nothing shown (older than the newest, or without a price).
   */
  merge(received: Bar): { readonly bar: Bar; readonly appended: boolean } | undefined {
    const lastRaw = this.rawBars.at(-1);
    if (lastRaw && received.time < lastRaw.time) return undefined;
    this.rawBars = putBar(this.rawBars, received);
    const bar = this.presented(received);
    if (!bar) return undefined;
    const last = this.shownBars.at(-1);
    if (last && bar.time < last.time) return undefined;
    const appended = !last || bar.time > last.time;
    this.shownBars = putBar(this.shownBars, bar);
    return { bar, appended };
  }

  /** The newest bar presented again (its USD rate moved): the shown bar when it changed. */
  represent(): Bar | undefined {
    const raw = this.rawBars.at(-1);
    const shown = this.shownBars.at(-1);
    if (!raw || !shown || raw.time !== shown.time) return undefined;
    const bar = this.presented(raw);
    if (!bar || bar.close === shown.close) return undefined;
    this.shownBars = putBar(this.shownBars, bar);
    return bar;
  }

  /** The shown bar at a true time (binary search), if any. */
  at(time: number): Bar | undefined {
    const bars = this.shownBars;
    let lo = 0;
    let hi = bars.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const bar = bars[mid];
      if (!bar) return undefined;
      if (bar.time === time) return bar;
      if (bar.time < time) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  private presentAll(raw: readonly Bar[]): Bar[] {
    const shown: Bar[] = [];
    for (const bar of raw) {
      const presented = this.presented(bar);
      if (presented) shown.push(presented);
    }
    return shown;
  }
}
