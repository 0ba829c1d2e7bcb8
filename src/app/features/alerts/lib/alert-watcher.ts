import type { TradeEvent } from '@/shared/api/stream';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { AlertCheck, type Alert, type PricePoint } from './alert';
import type { AlertBook } from './alert-book';

/** Where the watcher gets prices: the datafeed's trade events (Aggregate pools) and a pool's price now (DEX pools). */
export interface AlertFeed {
  onTrades(
    target: { readonly aggregatePools: readonly string[] },
    listener: { onTrade(event: TradeEvent): void; onLive?(state: { resync: boolean }): void },
  ): () => void;
  /** The pool's price now (a DEX pool: they do not stream). */
  poolPrice(pool: string): Promise<number>;
}

/** DEX pools are asked this often (as the tape refreshes them: they do not stream). */
export const POLL_MS = 15_000;

const lower = (s: string) => s.toLowerCase();

/**
 * Follows every armed alert of the book, on any pair and group, whatever the page shows: the
 * Aggregate pools they need through the datafeed's one live connection (added to what the charts
 * follow: `onTrades`), DEX pools (which do not stream) asked every POLL_MS. Each trade goes through
 * its alerts' checks (alert.ts); an alert that fires is marked in the book and handed to `onFire`.
 * Nothing runs while the page is closed: the checks start again, from the prices they see, when the
 * next visit arms the alerts again.
 */
export class AlertWatcher {
  /** Each armed alert's check, with the alert it was made for (an edited alert is a new object: a new check). */
  private readonly checks = new Map<string, { alert: Alert; check: AlertCheck }>();
  private armed: readonly Alert[] = [];
  private streamed = '';
  private stopTrades: (() => void) | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly stopBook: () => void;

  constructor(
    private readonly book: AlertBook,
    private readonly feed: AlertFeed,
    private readonly onFire: (alert: Alert) => void,
    private readonly options: {
      readonly pollMs?: number;
      readonly now?: () => number;
      /** Whether every Aggregate pool of the armed alerts is live on the connection (false while one is being added). */
      readonly onLive?: (live: boolean) => void;
    } = {},
  ) {
    this.stopBook = book.subscribe(() => this.sync());
    this.sync();
  }

  /** Stops following (the page's alerts part went away). */
  dispose(): void {
    this.stopBook();
    this.stopTrades?.();
    this.stopTrades = undefined;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private sync(): void {
    this.armed = this.book.getSnapshot().filter((a) => a.status === 'armed');
    // A check per armed alert, kept while the alert stays as it is (an edit starts afresh).
    const keep = new Map(this.armed.map((a) => [a.id, a]));
    for (const [id, { alert }] of this.checks) if (keep.get(id) !== alert) this.checks.delete(id);
    for (const alert of this.armed)
      if (!this.checks.has(alert.id)) this.checks.set(alert.id, { alert, check: new AlertCheck(alert) });

    const streamed = [
      ...new Set(this.armed.filter((a) => a.group === AGGREGATE_GROUP).map((a) => lower(a.pool))),
    ].sort();
    if (streamed.join(',') !== this.streamed) {
      this.streamed = streamed.join(',');
      this.stopTrades?.();
      this.options.onLive?.(streamed.length === 0);
      this.stopTrades =
        streamed.length > 0
          ? this.feed.onTrades(
              { aggregatePools: streamed },
              { onTrade: (event) => this.onTrade(event), onLive: () => this.options.onLive?.(true) },
            )
          : undefined;
    }
    const polled = this.armed.some((a) => a.group !== AGGREGATE_GROUP);
    if (polled && this.timer === undefined) {
      this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? POLL_MS);
      void this.poll();
    } else if (!polled && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private onTrade(event: TradeEvent): void {
    const pool = lower(event.pool_id);
    this.observe((a) => a.group === AGGREGATE_GROUP && lower(a.pool) === pool, {
      time: event.block_time * 1000,
      price: event.current_price,
      previous: event.previous_price,
    });
  }

  private async poll(): Promise<void> {
    const pools = [...new Set(this.armed.filter((a) => a.group !== AGGREGATE_GROUP).map((a) => a.pool))];
    await Promise.all(
      pools.map(async (pool) => {
        const price = await this.feed.poolPrice(pool).catch(() => undefined);
        if (price !== undefined)
          this.observe((a) => a.group !== AGGREGATE_GROUP && a.pool === pool, {
            time: (this.options.now ?? Date.now)(),
            price,
          });
      }),
    );
  }

  private observe(matches: (alert: Alert) => boolean, point: PricePoint): void {
    for (const alert of this.armed) {
      if (!matches(alert)) continue;
      const fired = this.checks.get(alert.id)?.check.observe(point);
      if (!fired) continue;
      const done = this.book.fire(alert.id, fired);
      if (done) this.onFire(done);
    }
  }
}
