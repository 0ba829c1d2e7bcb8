import {
  toLibraryResolution,
  toWireResolution,
  type LibrarySymbolInfo,
  type ResolutionString,
  type UdfDatafeed,
} from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { MAX_COUNTBACK } from '@/shared/api/history';
import { bucketStart, RESOLUTION_SECONDS, type Resolution } from '@/shared/resolutions';
import { STABLECOINS } from '@/app/lib/stablecoins';
import { provisionalSymbolInfo } from '@/app/lib/provisional-symbol';
import { rateAt, type StablePoint } from '@/app/lib/usd';
import type { LiveQuote, StablePool, UsdRateSource } from './usd-rates';

/** One resolution's series: each stablecoin pool's points, and the span they are complete over. */
interface Book {
  readonly series: Map<string, StablePoint[]>;
  /**
   * [from, to): every bar of every pool in it is loaded, and the last one before `from` (carried in);
   * `to` is at most the start of the bucket in progress when it was loaded: later buckets are kept up
   * by live trades.
   */
  from: number;
  to: number;
  /** Live trades may have been missed since `to` (the pools just went live, or resynced): load that part again. */
  stale: boolean;
  /** Fills of this resolution run one after the other (the chart and the tape may ask at once). */
  queue: Promise<void>;
}

/** Inserts or replaces points (sorted by time) in a sorted series. */
function mergePoints(series: StablePoint[], points: readonly StablePoint[]): StablePoint[] {
  if (points.length === 0) return series;
  const byTime = new Map(series.map((p) => [p.time as number, p]));
  for (const p of points) byTime.set(p.time, { time: p.time, close: p.close, tvl: p.tvl });
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/**
 * ADA/USD through time, from the stablecoins' Aggregate pairs against ADA: their bars at the chart's
 * resolution (`/history` through the datafeed, with TVL: spec endpoints, the same over any upstream),
 * kept per resolution and filled as the chart and the tape ask for spans; live stablecoin trades
 * (datafeed.onTrades on those pools) update the bucket they fall in, as the server's bar of it will be.
 * The pools are found by unit in the Aggregate group's symbol list.
 */
export class UsdRateBook implements UsdRateSource {
  private poolList: Promise<StablePool[]> | undefined;
  private readonly books = new Map<Resolution, Book>();
  private readonly listeners = new Set<() => void>();
  private readonly quotes = new Map<string, LiveQuote>();
  private quotesSnapshot: ReadonlyMap<string, LiveQuote> = new Map();
  private stopLive: (() => void) | undefined;
  private liveGeneration = 0;
  private epoch = 0;

  constructor(
    private readonly datafeed: UdfDatafeed,
    private readonly now: () => number = Date.now,
  ) {}

  /** The stablecoins' Aggregate pools against ADA (those the market has). Rejects with the server's message; asked again after a failure. */
  pools(): Promise<StablePool[]> {
    this.poolList ??= Promise.all(
      STABLECOINS.map(async (coin) => {
        const rows = await this.datafeed.search(coin.unit, AGGREGATE_GROUP, 20);
        const row = rows.find(
          (r) => r.baseUnit === '' && r.quoteUnit.toLowerCase() === coin.unit && r.exchange === AGGREGATE_GROUP,
        );
        return row ? { coin, poolId: row.ticker.toLowerCase() } : undefined;
      }),
    )
      .then((found) => found.filter((p): p is StablePool => p !== undefined))
      .catch((error: unknown) => {
        this.poolList = undefined;
        throw error;
      });
    return this.poolList;
  }

  ensure(resolution: ResolutionString, from: number, to: number): Promise<void> {
    const wire = toWireResolution(resolution);
    if (wire === undefined) return Promise.reject(new Error(`Unsupported resolution ${resolution}`));
    const book = this.book(wire);
    const run = book.queue.then(() => this.fill(wire, book, Math.floor(from), Math.ceil(to)));
    // A failed fill must not block the next one.
    book.queue = run.catch(() => undefined);
    return run;
  }

  rateAt(resolution: ResolutionString, time: number): number | undefined {
    const wire = toWireResolution(resolution);
    const book = wire === undefined ? undefined : this.books.get(wire);
    return book ? rateAt(time, [...book.series.values()]) : undefined;
  }

  /** Each stablecoin's latest state seen live, by unit (a new map after each trade). */
  readonly liveQuotes = (): ReadonlyMap<string, LiveQuote> => this.quotesSnapshot;

  /**
   * Bumped each time the stablecoins' pools go live, and whenever trades may have been missed
   * (resync): statistics fetched before then should be fetched again (they miss what live did not bring).
   */
  readonly liveEpoch = (): number => this.epoch;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.startLive();
    return () => {
      if (!this.listeners.delete(listener)) return;
      if (this.listeners.size === 0) this.endLive();
    };
  };

  private book(wire: Resolution): Book {
    let book = this.books.get(wire);
    if (!book) {
      book = { series: new Map(), from: Infinity, to: -Infinity, stale: false, queue: Promise.resolve() };
      this.books.set(wire, book);
    }
    return book;
  }

  private async fill(wire: Resolution, book: Book, from: number, to: number): Promise<void> {
    if (to <= from) return;
    const pools = await this.pools();
    // Bars after the current bucket's start may still change: never count that bucket as complete.
    const complete = bucketStart(this.now() / 1000, wire);
    const empty = book.from > book.to;
    if (!empty && !book.stale && book.from <= from && book.to >= Math.min(to, complete)) return;
    // Stale: through the bucket in progress, whatever was asked.
    const end = book.stale ? Math.max(to, complete + RESOLUTION_SECONDS[wire]) : to;
    book.stale = false;
    const gaps: { from: number; to: number; carry: boolean }[] = [];
    if (empty) {
      gaps.push({ from, to, carry: true });
    } else {
      if (from < book.from) gaps.push({ from, to: book.from, carry: true });
      if (end > book.to) gaps.push({ from: book.to, to: end, carry: false });
    }
    await Promise.all(
      pools.map(async (pool) => {
        const info = provisionalSymbolInfo(pool.poolId);
        if (!info) return;
        for (const gap of gaps) {
          const points = await this.load(info, wire, gap);
          book.series.set(pool.poolId, mergePoints(book.series.get(pool.poolId) ?? [], points));
        }
      }),
    );
    book.from = Math.min(empty ? from : book.from, from);
    book.to = Math.max(empty ? -Infinity : book.to, Math.min(empty ? to : end, complete));
  }

  /**
   * A gap's bars, and (`carry`) the last bar before it, so the rate at its start is known: one request
   * asking for a bar more than the gap has buckets (the countback extension gives the last N bars before
   * its end, which then reach before its start), a second one only when the gap has more than that.
   */
  private async load(
    info: LibrarySymbolInfo,
    wire: Resolution,
    gap: { from: number; to: number; carry: boolean },
  ): Promise<StablePoint[]> {
    const resolution = toLibraryResolution(wire);
    const buckets = Math.ceil((gap.to - gap.from) / RESOLUTION_SECONDS[wire]);
    const answer = await this.datafeed.bars(info, resolution, {
      from: gap.from,
      to: gap.to,
      countBack: Math.min(MAX_COUNTBACK, buckets + 1),
    });
    const first = answer.bars[0];
    if (!gap.carry || answer.noData || first === undefined || first.time <= gap.from) return answer.bars;
    const before = await this.datafeed.bars(info, resolution, { from: gap.from, to: gap.from, countBack: 1 });
    return [...before.bars.filter((b) => b.time < gap.from), ...answer.bars];
  }

  private startLive(): void {
    const generation = ++this.liveGeneration;
    void this.pools()
      .then((pools) => {
        if (generation !== this.liveGeneration || pools.length === 0) return;
        const units = new Map(pools.map((p) => [p.poolId, p.coin.unit]));
        this.stopLive = this.datafeed.onTrades(
          pools.map((p) => p.poolId),
          {
            onTrade: (event) => {
              const pool = event.pool_id.toLowerCase();
              const unit = units.get(pool);
              if (unit === undefined) return;
              this.quotes.set(unit, { price: event.current_price, tvl: event.current_tvl, at: this.now() });
              this.quotesSnapshot = new Map(this.quotes);
              for (const [wire, book] of this.books) {
                const series = book.series.get(pool);
                if (!series) continue;
                const time = bucketStart(event.block_time, wire);
                if (series.length > 0 && (series.at(-1)?.time ?? 0) > time) continue;
                book.series.set(
                  pool,
                  mergePoints(series, [{ time, close: event.current_price, tvl: event.current_tvl }]),
                );
              }
              this.notify();
            },
            // A chain rollback: the rates from its bucket on are loaded again, the live quotes dropped (their trades may be undone).
            onRollback: (rollback) => {
              this.epoch++;
              this.quotes.clear();
              this.quotesSnapshot = new Map();
              for (const [wire, book] of this.books) {
                if (book.from > book.to) continue;
                const cut = bucketStart(rollback.time, wire);
                for (const [pool, series] of book.series)
                  book.series.set(
                    pool,
                    series.filter((point) => point.time < cut),
                  );
                book.to = Math.max(book.from, Math.min(book.to, cut));
                book.stale = true;
              }
              void this.refreshStale().then(() => this.notify());
              this.notify();
            },
            onLive: ({ resync }) => {
              this.epoch++;
              // Trades before the pools went live, or missed (resync: anything since the span's start), are loaded again.
              for (const book of this.books.values()) {
                if (book.from > book.to) continue;
                if (resync) book.to = book.from;
                book.stale = true;
              }
              void this.refreshStale().then(() => this.notify());
              this.notify();
            },
          },
        );
      })
      .catch(() => undefined);
  }

  /** Loads again what went stale, through the bucket in progress, at every resolution kept. */
  private async refreshStale(): Promise<void> {
    const now = this.now() / 1000;
    await Promise.all(
      [...this.books].map(([wire, book]) => {
        if (!book.stale) return undefined;
        const start = bucketStart(now, wire);
        return this.ensure(toLibraryResolution(wire), start, start + RESOLUTION_SECONDS[wire]).catch(() => undefined);
      }),
    );
  }

  private endLive(): void {
    this.liveGeneration++;
    this.stopLive?.();
    this.stopLive = undefined;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
