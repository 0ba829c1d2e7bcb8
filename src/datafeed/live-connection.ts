import {
  LIVE_EVENTS,
  liveErrorSchema,
  liveMetadataSchema,
  liveRollbackSchema,
  liveStatusSchema,
  liveTradeSchema,
  type LiveMetadata,
  type LiveRollback,
} from '../shared/api/gateway';
import type { TradeEvent } from '../shared/api/stream';
import { backoffDelay } from '../shared/backoff';

/** What the datafeed needs of an EventSource (the browser's, or a test's). */
export interface EventSourceLike {
  readonly readyState: number;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

export type EventSourceConstructor = new (url: string) => EventSourceLike;

/**
 * - `idle`: nothing to follow (no live subscription, or only symbols that do not stream);
 * - `connecting`: the live connection is opening (a first connection, or a new set of pools);
 * - `live`: the gateway says the connection's pools are live;
 * - `reconnecting`: the gateway lost its upstream, or the connection dropped and is being retried;
 * - `refused`: the gateway refused these pools for good (`detail` says why); a new set of pools tries again.
 */
export type LiveConnectionState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'refused';

/** The datafeed's live connection as its users see it (`UdfDatafeed.liveStatus`, `onLiveStatus`). */
export interface LiveConnectionStatus {
  readonly state: LiveConnectionState;
  /** The Aggregate pool IDs the connection carries (lowercase, sorted); empty when idle. */
  readonly pools: readonly string[];
  /**
   * With `live`: events may have been missed before this point (the gateway lost its upstream, or the
   * connection dropped with nothing to resume from). Live bars resync by themselves; whatever else was
   * built from trade events should be fetched again. False otherwise.
   */
  readonly resync: boolean;
  /** Why, when there is more to say: the gateway's refusal or error message, or that the connection failed and is being retried. */
  readonly detail?: string;
}

export const IDLE_STATUS: LiveConnectionStatus = { state: 'idle', pools: [], resync: false };

/** EventSource.CLOSED. */
const CLOSED = 2;

export interface LiveConnectionOptions {
  readonly EventSource: EventSourceConstructor;
  /** The /live URL for a set of pools, resuming after `lastEventId` when given. */
  readonly url: (pools: readonly string[], lastEventId: string | undefined) => string;
  /** Wait after a change of the pool set before reconnecting (changes come in bursts). */
  readonly debounceMs: number;
  /** Backoff for reopening after the browser gave up on a connection (a non-SSE answer): exponential with jitter. */
  readonly reopenInitialMs: number;
  readonly reopenMaxMs: number;
  /** Uniform [0, 1) for the backoff's jitter (default Math.random). */
  readonly random?: () => number;
}

export interface LiveConnectionHandlers {
  onTrade(event: TradeEvent): void;
  /** The gateway's market rolled back on the chain to `rollback.time`: every trade after it was undone. */
  onRollback(rollback: LiveRollback): void;
  /** What the gateway's market knows of some tokens changed (their decimals, names): answers about them read anew. */
  onMetadata(metadata: LiveMetadata): void;
  /** The status, each time it is set (repeats included: every `connected` from the gateway may need a sync). */
  onStatus(status: LiveConnectionStatus): void;
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
 * good) a new one is opened with backoff (exponential with jitter, `src/shared/backoff.ts`) and the
 * status stays `reconnecting` through the attempts: one connection being retried, not one ending.
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
  private current: LiveConnectionStatus = IDLE_STATUS;

  constructor(
    private readonly options: LiveConnectionOptions,
    private readonly handlers: LiveConnectionHandlers,
  ) {}

  /** Whether the current EventSource carries `pool` and the gateway said it is live. */
  isLive(pool: string): boolean {
    return this.live && this.sourcePools.has(pool);
  }

  /** The connection's status now. */
  get status(): LiveConnectionStatus {
    return this.current;
  }

  private setStatus(next: LiveConnectionStatus): void {
    this.current = next;
    this.handlers.onStatus(next);
  }

  /** Sets the pools to follow; the connection follows after the debounce. */
  setPools(pools: Iterable<string>): void {
    this.wanted = new Set(pools);
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = undefined;
    if (this.source && sameSet(this.wanted, this.sourcePools)) return;
    if (!this.source && this.wanted.size === 0) {
      // Nothing open (a refusal closed it) and nothing wanted: nothing to report any more.
      this.setStatus(IDLE_STATUS);
      return;
    }
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.apply();
    }, this.options.debounceMs);
  }

  private apply(): void {
    if (this.wanted.size === 0) {
      this.closeSource();
      this.setStatus(IDLE_STATUS);
      return;
    }
    if (this.source && !this.gaveUp && sameSet(this.wanted, this.sourcePools)) return;
    // The same set was refused for good: wait for a change rather than be refused again.
    if (this.refusedPools && sameSet(this.wanted, this.refusedPools)) return;
    this.open();
  }

  private open(): void {
    this.noteLoss();
    // Replacing a connection that is being retried (the browser's own retry, or ours after it gave
    // up) is still the same outage: reconnecting, not a fresh start.
    const retrying = this.source !== undefined && this.current.state === 'reconnecting';
    this.closeSource();
    this.refusedPools = undefined;
    const pools = [...this.wanted].sort();
    const source = new this.options.EventSource(this.options.url(pools, this.lastEventId));
    this.source = source;
    this.sourcePools = new Set(pools);
    this.live = false;
    this.setStatus(retrying ? { ...this.current, pools } : { state: 'connecting', pools, resync: false });
    const current = () => this.source === source && !this.gaveUp;

    source.addEventListener(LIVE_EVENTS.trade, (event) => {
      if (!current()) return;
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveTradeSchema.safeParse(parseData(event));
      if (parsed.success) this.handlers.onTrade(parsed.data);
      else this.handlers.onError('Ignored a malformed trade event from the gateway');
    });
    source.addEventListener(LIVE_EVENTS.rollback, (event) => {
      if (!current()) return;
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveRollbackSchema.safeParse(parseData(event));
      if (parsed.success) this.handlers.onRollback(parsed.data);
      else this.handlers.onError('Ignored a malformed rollback event from the gateway');
    });
    source.addEventListener(LIVE_EVENTS.metadata, (event) => {
      if (!current()) return;
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveMetadataSchema.safeParse(parseData(event));
      if (parsed.success) this.handlers.onMetadata(parsed.data);
      else this.handlers.onError('Ignored a malformed metadata event from the gateway');
    });
    source.addEventListener(LIVE_EVENTS.status, (event) => {
      if (!current()) return;
      // Status and heartbeat frames carry the newest event id too: resume from there.
      if (event.lastEventId) this.lastEventId = event.lastEventId;
      const parsed = liveStatusSchema.safeParse(parseData(event));
      if (!parsed.success) return;
      this.live = parsed.data.state === 'connected';
      if (!this.live) {
        this.setStatus({ state: 'reconnecting', pools, resync: false });
        return;
      }
      this.attempt = 0;
      const resync = parsed.data.resync || this.resyncNext;
      this.resyncNext = false;
      this.setStatus({ state: 'live', pools, resync });
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
      if (parsed.data.retry) {
        this.setStatus({ state: 'reconnecting', pools, resync: false, detail: parsed.data.errmsg });
      } else {
        this.refusedPools = this.sourcePools;
        this.closeSource();
        this.setStatus({ state: 'refused', pools, resync: false, detail: parsed.data.errmsg });
      }
    });
    source.onerror = () => {
      if (!current()) return;
      this.noteLoss();
      this.live = false;
      const closed = source.readyState === CLOSED;
      // While the browser retries on its own, an error frame's message (retry: true) stands.
      if (this.current.state !== 'reconnecting' || closed) {
        this.setStatus({
          state: 'reconnecting',
          pools,
          resync: false,
          ...(closed ? { detail: 'The live connection failed; retrying' } : {}),
        });
      }
      // The EventSource reconnects by itself unless it gave up (CLOSED): then reopen with backoff.
      if (closed) {
        this.gaveUp = true;
        this.cancelReopen();
        const delay = backoffDelay(
          this.attempt,
          { initialMs: this.options.reopenInitialMs, maxMs: this.options.reopenMaxMs },
          this.options.random,
        );
        this.attempt++;
        this.reopen = setTimeout(() => {
          this.reopen = undefined;
          this.apply();
        }, delay);
      }
    };
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
    this.setStatus(IDLE_STATUS);
  }
}
