import type { Bar, BarsReplacement, LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { resolutionSeconds } from '@/app/lib/first-chart';
import type { UsdRates } from '@/app/api/usd-rates';
import type { BarBook } from './bar-book';
import type { BarLoader } from './bar-loader';

/** What a session is of: one symbol at one resolution, in ADA or in USD with these rates. */
export interface SessionView {
  readonly info: LibrarySymbolInfo;
  readonly resolution: ResolutionString;
  readonly usd: UsdRates | undefined;
}

/** Where a session's bars stand. */
export type SessionStatus = 'idle' | 'loading' | 'ready' | 'error';

/**
 * What a session tells the chart's drawing (chart.ts), each after the book changed: the chart draws,
 * moves the view and publishes its state. Never called once the session is disposed.
 */
export interface SessionSink {
  /** The book was emptied: a first page is on its way. */
  loading(): void;
  /** The first page could not load. */
  failed(error: string): void;
  /** The first page is in the book (`noData`: nothing exists before it). */
  ready(noData: boolean): void;
  /** An older page is on its way. */
  olderLoading(): void;
  /** An older page came: `added` bars shown before the others (0: none), `exhausted` when nothing is older; undefined: it failed. */
  olderLoaded(result: { readonly added: number; readonly exhausted: boolean } | undefined): void;
  /** Live bars are followed (an Aggregate symbol) or not. */
  live(live: boolean): void;
  /** A live or refreshed bar is in the book: the newest, again or new (`first`: the book was empty). */
  newest(first: boolean): void;
  /** Bars from a time on were replaced (a chain rollback): `moved` bars more shown than before. */
  replaced(moved: number): void;
  /** The bars are shown anew (their USD rates reloaded). */
  presented(): void;
  /** History changed under the bars: the view must load again (a new session). */
  reload(): void;
}

/**
 * One chart view's data: the loads and the live updates of one (symbol, resolution, currency), DOM-free.
 * It owns the first page, older pages, the live subscription (or a DEX pool's refresh) and what a chain
 * rollback replaces, writes them into the chart's `BarBook` and tells the chart's drawing through its
 * sink. A change of view disposes it and starts another: a disposed session's answers and live bars
 * never reach the book (each await and each live callback checks it), so nothing stale can arrive.
 */
export class ChartSession {
  private loader: BarLoader | undefined;
  private statusNow: SessionStatus = 'idle';
  private exhausted = false;
  private loadingOlder = false;
  private stopLive: (() => void) | undefined;
  /** Its bars came in hand (`adopt`), in ADA: in USD they are loaded again with their rates. */
  private adopted = false;
  private closed = false;

  constructor(
    private viewNow: SessionView,
    private readonly book: BarBook,
    private readonly sink: SessionSink,
    loader: BarLoader | undefined,
  ) {
    this.loader = loader;
  }

  get view(): SessionView {
    return this.viewNow;
  }

  get status(): SessionStatus {
    return this.statusNow;
  }

  /** Loads the first page (once it has a loader), then follows the newest bars. */
  start(): void {
    if (this.loader) void this.loadFirst(this.loader);
  }

  /**
   * Bars in hand shown as the first page (the page's own first bars): the session is ready without
   * asking anything, and follows them live once it has a loader.
   */
  adopt(bars: readonly Bar[]): void {
    this.book.reset(bars);
    this.adopted = true;
    this.statusNow = 'ready';
    this.exhausted = bars.length === 0;
    this.sink.ready(false);
    this.follow();
  }

  /** The datafeed to load from: a session not loaded yet loads now; one with bars follows them. */
  connect(loader: BarLoader): void {
    if (this.loader || this.closed) return;
    this.loader = loader;
    if (this.statusNow === 'idle' || (this.adopted && this.viewNow.usd)) void this.loadFirst(loader);
    else this.follow();
  }

  /** The same symbol, better known (a stand-in resolved): the bars stay; the live subscription follows the resolved symbol. */
  retarget(info: LibrarySymbolInfo): void {
    const previous = this.viewNow.info;
    this.viewNow = { ...this.viewNow, info };
    if (previous.exchange === info.exchange && previous.ticker === info.ticker) return;
    this.unfollow();
    this.follow();
  }

  /** The page before the oldest bar held, unless one is on its way or nothing is older. */
  loadOlder(): void {
    const loader = this.loader;
    const oldest = this.book.raw[0];
    if (!loader || !oldest || this.loadingOlder || this.exhausted || this.statusNow !== 'ready') return;
    void this.older(loader, oldest.time);
  }

  /** Whether no bar exists before the oldest one loaded. */
  get isExhausted(): boolean {
    return this.exhausted;
  }

  /** Stops loading and following: nothing of this session reaches the book or the sink any more. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopLive?.();
    this.stopLive = undefined;
  }

  private async loadFirst(loader: BarLoader): Promise<void> {
    const { info, resolution, usd } = this.viewNow;
    this.statusNow = 'loading';
    this.book.reset([]);
    this.sink.loading();
    const loaded = await loader.first(info, resolution, usd);
    if (this.closed) return;
    if (!loaded.ok) {
      this.statusNow = 'error';
      this.sink.failed(loaded.error);
      return;
    }
    this.book.reset(loaded.bars);
    this.statusNow = 'ready';
    this.exhausted = loaded.noData || this.book.shown.length === 0;
    this.sink.ready(loaded.noData);
    this.follow();
  }

  private async older(loader: BarLoader, oldest: number): Promise<void> {
    const { info, resolution, usd } = this.viewNow;
    this.loadingOlder = true;
    this.sink.olderLoading();
    const loaded = await loader.older(info, resolution, oldest, usd);
    if (this.closed) return;
    this.loadingOlder = false;
    // A failure: scrolling on will try again.
    if (!loaded.ok) {
      this.sink.olderLoaded(undefined);
      return;
    }
    const added = this.book.prepend(loaded.bars);
    this.exhausted = loaded.noData || !loaded.bars.some((bar) => bar.time < oldest);
    this.sink.olderLoaded({ added, exhausted: this.exhausted });
  }

  private follow(): void {
    const loader = this.loader;
    const { info, resolution } = this.viewNow;
    if (!loader || this.closed || this.stopLive !== undefined || this.statusNow !== 'ready') return;
    // A stand-in's group is not known yet: wait for the resolved symbol.
    if (info.exchange === '') return;
    const following = loader.follow(info, resolution, this.book.raw.at(-1), {
      onBar: (bar) => {
        if (!this.closed) this.onBar(bar);
      },
      onReset: (replacement) => {
        if (this.closed) return;
        if (replacement) this.replace(replacement);
        else this.sink.reload();
      },
      refresh: () => void this.refresh(loader),
    });
    this.stopLive = following.stop;
    if (following.live) this.sink.live(true);
  }

  private unfollow(): void {
    if (this.stopLive === undefined) return;
    this.stopLive();
    this.stopLive = undefined;
    this.sink.live(false);
  }

  /** A live (or refreshed) bar merged in: the newest bar, again or new. */
  private onBar(received: Bar): void {
    const first = this.book.shown.length === 0;
    if (this.book.merge(received)) this.sink.newest(first);
  }

  /** A DEX pool's newest bars, merged in. */
  private async refresh(loader: BarLoader): Promise<void> {
    const { info, resolution, usd } = this.viewNow;
    const newest = this.book.raw.at(-1);
    if (this.statusNow !== 'ready' || !newest) return;
    const loaded = await loader.since(info, resolution, newest.time, usd);
    if (this.closed || !loaded.ok) return;
    for (const bar of loaded.bars) this.onBar(bar);
  }

  /**
   * The bars from `replacement.from` on as the server now has them (a chain rollback undid trades), in
   * place of those held; nothing else is loaded. In USD, the rates of that span are loaded again, then
   * the bars are shown anew (they may have moved with it).
   */
  private replace(replacement: BarsReplacement): void {
    const count = this.book.shown.length;
    this.book.replaceFrom(replacement.from, replacement.bars);
    this.sink.replaced(this.book.shown.length - count);
    const { usd, resolution } = this.viewNow;
    const newest = replacement.bars.at(-1);
    if (!usd || newest === undefined) return;
    void usd.ensure(resolution, replacement.from, newest.time + resolutionSeconds(resolution)).then(
      () => {
        if (!this.closed) this.sink.presented();
      },
      () => undefined,
    );
  }
}
