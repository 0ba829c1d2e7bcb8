import { LIVE_EVENTS, liveErrorSchema, liveStatusSchema, liveTradeSchema, type LiveStatus } from '../shared/api/gateway';
import type { TradeEvent } from '../shared/api/stream';

/** What the datafeed needs of an EventSource (the browser's, or a test's). */
export interface EventSourceLike {
  readonly readyState: number;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

export type EventSourceConstructor = new (url: string) => EventSourceLike;

/** EventSource.CLOSED. */
const CLOSED = 2;

export interface LiveConnectionOptions {
  readonly EventSource: EventSourceConstructor;
  /** The /live URL for a set of pools, resuming after `lastEventId` when given. */
  readonly url: (pools: readonly string[], lastEventId: string | undefined) => string;
  /** Wait after a change of the pool set before reconnecting (changes come in bursts). */
  readonly debounceMs: number;
  /** Backoff for reopening after the browser gave up on a connection (a non-SSE answer). */
  readonly reopenInitialMs: number;
  readonly reopenMaxMs: number;
}

export interface LiveConnectionHandlers {
  onTrade(event: TradeEvent): void;
  onStatus(status: LiveStatus): void;
  onError(message: string): void;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function parseData(event: MessageEvent): unknown {
  try {
    return typeof event.data === 'string' ? JSON.parse(event.data) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The datafeed's ONE EventSource on /gw/v1/live, carrying every subscribed pool. A change of the pool
 * set opens a new EventSource (after a debounce) with `lastEventId` so the gateway replays what the
 * switch would miss; an empty set closes it. Reconnects after drops are the EventSource's own (it
 * sends Last-Event-ID); a refusal with `retry: false` closes it until the pool set changes. When the
 * browser gives up on a connection (an HTTP error such as a proxy's 503 closes an EventSource for
 * good) a new one is opened with backoff; the failed one stays current, closed, until its replacement
 * has opened, so that whoever watches the EventSources (the app's connection status) sees one
 * connection being retried, not one ending.
 */
export class LiveConnection {
  private source: EventSourceLike | undefined;
  private sourcePools: ReadonlySet<string> = new Set();
  private wanted: ReadonlySet<string> = new Set();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private reopen: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  /** The browser gave up on `source` (readyState CLOSED): a reopen is scheduled. */
  private gaveUp = false;
  private lastEventId: string | undefined;
  private live = false;
  private refusedPools: ReadonlySet<string> | undefined;
  /**
   * A live connection was lost before any frame gave an id to resume from (a gateway that does not
   * put ids on status frames): it cannot replay what was missed, so the next `connected` resyncs.
   */
  private resyncNext = false;

  constructor(
    private readonly options: LiveConnectionOptions,
    private readonly handlers: LiveConnectionHandlers,
  ) {}

  /** Whether the current EventSource carries `pool` and the gateway said it is live. */
  isLive(pool: string): boolean {
    return this.live && this.sourcePools.has(pool);
  }

  /** Whether an EventSource is open (or opening). */
  get isOpen(): boolean {
    return this.source !== undefined && !this.gaveUp;
  }

  /** Sets the pools to follow; the connection follows after the debounce. */
  setPools(pools: Iterable<string>): void {
    this.wanted = new Set(pools);
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = undefined;
    if (this.source && sameSet(this.wanted, this.sourcePools)) return;
    if (!this.source && this.wanted.size === 0) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.apply();
    }, this.options.debounceMs);
  }

  private apply(): void {
    if (this.wanted.size === 0) {
      this.closeSource();
      return;
    }
    if (this.source && !this.gaveUp && sameSet(this.wanted, this.sourcePools)) return;
    // The same set was refused for good: wait for a change rather than be refused again.
    if (this.refusedPools && sameSet(this.wanted, this.refusedPools)) return;
    this.open();
  }

  private open(): void {
    this.noteLoss();
    // A source the browser gave up on is closed only once its replacement exists (see the class notes).
    const replaced = this.gaveUp ? this.source : undefined;
    if (replaced) this.cancelReopen();
    else this.closeSource();
    this.gaveUp = false;
    this.refusedPools = undefined;
    const pools = [...this.wanted].sort();
    const source = new this.options.EventSource(this.options.url(pools, this.lastEventId));
    this.source = source;
    this.sourcePools = new Set(pools);
    this.live = false;
    const current = () => this.source === source && !this.gaveUp;

    source.addEventListener(LIVE_EVENTS.trade, (event) => {
      if (!current()) return;
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveTradeSchema.safeParse(parseData(event));
      if (parsed.success) this.handlers.onTrade(parsed.data);
      else this.handlers.onError('Ignored a malformed trade event from the gateway');
    });
    source.addEventListener(LIVE_EVENTS.status, (event) => {
      if (!current()) return;
      // Status and heartbeat frames carry the newest event id too: resume from there.
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveStatusSchema.safeParse(parseData(event));
      if (!parsed.success) return;
      this.live = parsed.data.state === 'connected';
      if (!this.live) {
        this.handlers.onStatus(parsed.data);
        return;
      }
      this.attempt = 0;
      const resync = parsed.data.resync || this.resyncNext;
      this.resyncNext = false;
      this.handlers.onStatus({ state: 'connected', resync });
    });
    source.addEventListener(LIVE_EVENTS.heartbeat, (event) => {
      if (current() && event.lastEventId) this.lastEventId = event.lastEventId;
    });
    source.addEventListener(LIVE_EVENTS.error, (event) => {
      // Connection failures also fire `error` (a plain Event, no data): those go to onerror below.
      if (!current() || typeof (event as { data?: unknown }).data !== 'string') return;
      const parsed = liveErrorSchema.safeParse(parseData(event));
      if (!parsed.success) return;
      this.noteLoss();
      this.live = false;
      this.handlers.onError(parsed.data.errmsg);
      if (!parsed.data.retry) {
        this.refusedPools = this.sourcePools;
        this.closeSource();
      }
    });
    source.onerror = () => {
      if (!current()) return;
      this.noteLoss();
      this.live = false;
      // The EventSource reconnects by itself unless it gave up (CLOSED): then reopen with backoff.
      if (source.readyState === CLOSED) {
        this.gaveUp = true;
        this.cancelReopen();
        const delay = Math.min(this.options.reopenMaxMs, this.options.reopenInitialMs * 2 ** this.attempt);
        this.attempt++;
        this.reopen = setTimeout(() => {
          this.reopen = undefined;
          this.apply();
        }, delay);
      }
    };
    replaced?.close();
  }

  private noteLoss(): void {
    if (this.live && this.lastEventId === undefined) this.resyncNext = true;
  }

  private cancelReopen(): void {
    if (this.reopen !== undefined) clearTimeout(this.reopen);
    this.reopen = undefined;
  }

  private closeSource(): void {
    this.cancelReopen();
    this.gaveUp = false;
    this.source?.close();
    this.source = undefined;
    this.sourcePools = new Set();
    this.live = false;
  }

  close(): void {
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = undefined;
    this.wanted = new Set();
    this.closeSource();
  }
}
