import type { Bar, BarListener, LibrarySymbolInfo, ResolutionString, UdfDatafeed } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { firstPage, PAGE_BARS, resolutionSeconds } from '@/app/lib/first-chart';
import type { UsdRates } from '@/app/api/usd-rates';

/** What the chart asks of the datafeed: pages of bars, and live bars. */
export type BarsSource = Pick<UdfDatafeed, 'bars' | 'onBars'>;

/** Bars as loaded: the bars (and their USD rates, in USD), or the message to show. */
export type Loaded =
  | { readonly ok: true; readonly bars: Bar[]; readonly noData: boolean }
  | { readonly ok: false; readonly error: string };

/** DEX pools do not stream: their newest bars are refreshed this often. */
const DEX_REFRESH_MS = 60_000;

/** Whether a symbol streams live bars (the stream serves Aggregate pools; a stand-in's group is not known yet). */
export function streamsLive(info: LibrarySymbolInfo): boolean {
  return info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/**
 * Loading the chart's bars, one job: the first page (the last PAGE_BARS bars before the end of the
 * current bar's bucket, shared/first-chart.ts, so it asks the URL the page itself carries the answer
 * of), an older page as the view nears the oldest bar, a DEX pool's newest bars; in USD, the rates of
 * the same span beside them (and further back when the bars reach further). Never rejects: a failure
 * is the message the chart shows.
 */
export class BarLoader {
  constructor(
    private readonly source: BarsSource,
    private readonly now: () => number,
  ) {}

  /** The first page. */
  async first(info: LibrarySymbolInfo, resolution: ResolutionString, usd: UsdRates | undefined): Promise<Loaded> {
    const page = firstPage(resolution, this.now());
    const [outcome, rates] = await Promise.all([
      this.fetch(info, resolution, page),
      rateError(usd, resolution, page.from, page.to),
    ]);
    if (!outcome.ok) return outcome;
    if (rates !== undefined) return { ok: false, error: rates };
    const older = outcome.bars[0];
    const more =
      older !== undefined && older.time < page.from
        ? await rateError(usd, resolution, older.time, page.from)
        : undefined;
    return more === undefined ? outcome : { ok: false, error: more };
  }

  /** The page before `oldest` (a bar time). */
  async older(
    info: LibrarySymbolInfo,
    resolution: ResolutionString,
    oldest: number,
    usd: UsdRates | undefined,
  ): Promise<Loaded> {
    const step = resolutionSeconds(resolution);
    const outcome = await this.fetch(info, resolution, {
      from: oldest - PAGE_BARS * step,
      to: oldest,
      countBack: PAGE_BARS,
    });
    const first = outcome.ok ? outcome.bars[0] : undefined;
    const rates = first === undefined ? undefined : await rateError(usd, resolution, first.time, oldest);
    return rates === undefined ? outcome : { ok: false, error: rates };
  }

  /** The bars from `newest` (a bar time) on: a DEX pool's refresh. */
  async since(
    info: LibrarySymbolInfo,
    resolution: ResolutionString,
    newest: number,
    usd: UsdRates | undefined,
  ): Promise<Loaded> {
    const to = Math.floor(this.now() / 1000) + resolutionSeconds(resolution);
    const [outcome, rates] = await Promise.all([
      this.fetch(info, resolution, { from: newest, to, countBack: 0 }),
      rateError(usd, resolution, newest, to),
    ]);
    return rates === undefined ? outcome : { ok: false, error: rates };
  }

  /**
   * Follows a symbol's newest bars: live bars of an Aggregate symbol (`newest`, the newest bar the chart
   * has, is where they continue from), or a refresh every DEX_REFRESH_MS for a DEX pool. Returns the stop,
   * and whether it streams.
   */
  follow(
    info: LibrarySymbolInfo,
    resolution: ResolutionString,
    newest: Bar | undefined,
    listener: BarListener & { readonly refresh: () => void },
  ): { readonly stop: () => void; readonly live: boolean } {
    if (streamsLive(info)) return { stop: this.source.onBars(info, resolution, listener, newest), live: true };
    if (info.ticker === undefined) return { stop: () => undefined, live: false };
    const timer = setInterval(listener.refresh, DEX_REFRESH_MS);
    return { stop: () => clearInterval(timer), live: false };
  }

  private async fetch(
    info: LibrarySymbolInfo,
    resolution: ResolutionString,
    range: { from: number; to: number; countBack: number },
  ): Promise<Loaded> {
    try {
      const answer = await this.source.bars(info, resolution, { ...range, from: Math.max(0, range.from) });
      return { ok: true, bars: answer.bars, noData: answer.noData };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** The USD rates for bar times in [from, to) loaded (undefined; and always in ADA), else the message to show. */
async function rateError(
  usd: UsdRates | undefined,
  resolution: ResolutionString,
  from: number,
  to: number,
): Promise<string | undefined> {
  if (!usd) return undefined;
  try {
    await usd.ensure(resolution, from, to);
    return undefined;
  } catch (error) {
    return `USD prices could not load: ${error instanceof Error ? error.message : String(error)}`;
  }
}
