import type { EventSourceConstructor, EventSourceLike } from '../../datafeed';
import { LIVE_EVENTS, liveErrorSchema, liveStatusSchema } from '../../shared/api/gateway';

/**
 * - `idle`: nothing to follow (no Aggregate pool on screen: DEX pools have history only);
 * - `connecting`: the live connection is opening;
 * - `live`: the gateway says our pools are live;
 * - `reconnecting`: the gateway lost its upstream, or the connection dropped and is being retried;
 * - `offline`: the browser is offline, or the gateway refused the connection for good.
 */
export type LiveState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface LiveStatusSnapshot {
  readonly state: LiveState;
  /** Why, when there is more to say (the gateway's refusal, the browser being offline). */
  readonly detail?: string;
}

const CLOSED = 2;

function parse(event: MessageEvent): unknown {
  try {
    return typeof event.data === 'string' ? JSON.parse(event.data) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection status the shell shows, observed without a second connection: the datafeed is given
 * an EventSource constructor that wraps the real one and watches the gateway's `status` and `error`
 * events and the connection's own errors, combined with the browser's online/offline state.
 */
export class LiveStatusMonitor {
  private current: EventSourceLike | undefined;
  private sourceState: LiveStatusSnapshot = { state: 'idle' };
  private online: boolean;
  private snapshot: LiveStatusSnapshot = { state: 'idle' };
  private readonly listeners = new Set<() => void>();

  constructor(initiallyOnline = true) {
    this.online = initiallyOnline;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): LiveStatusSnapshot => this.snapshot;

  /** The browser's online/offline state (window events). */
  setOnline(online: boolean): void {
    this.online = online;
    this.publish();
  }

  /** Listens to the window's online/offline events; returns the cleanup. */
  watchBrowser(target: Pick<Window, 'addEventListener' | 'removeEventListener'>): () => void {
    const on = () => this.setOnline(true);
    const off = () => this.setOnline(false);
    target.addEventListener('online', on);
    target.addEventListener('offline', off);
    return () => {
      target.removeEventListener('online', on);
      target.removeEventListener('offline', off);
    };
  }

  /** An EventSource constructor for the datafeed that reports to this monitor. */
  wrap(Base: EventSourceConstructor): EventSourceConstructor {
    const monitor = {
      opened: (source: EventSourceLike) => this.opened(source),
      update: (source: EventSourceLike, state: LiveStatusSnapshot) => this.update(source, state),
      closed: (source: EventSourceLike) => this.closed(source),
    };
    return class MonitoredEventSource implements EventSourceLike {
      private readonly inner: EventSourceLike;
      private handler: ((event: Event) => void) | null = null;

      constructor(url: string) {
        this.inner = new Base(url);
        monitor.opened(this);
        this.inner.addEventListener(LIVE_EVENTS.status, (event) => {
          const status = liveStatusSchema.safeParse(parse(event));
          if (status.success) monitor.update(this, { state: status.data.state === 'connected' ? 'live' : 'reconnecting' });
        });
        this.inner.addEventListener(LIVE_EVENTS.error, (event) => {
          if (typeof (event as { data?: unknown }).data !== 'string') return;
          const refusal = liveErrorSchema.safeParse(parse(event));
          if (refusal.success) monitor.update(this, { state: refusal.data.retry ? 'reconnecting' : 'offline', detail: refusal.data.errmsg });
        });
        this.inner.onerror = (event) => {
          monitor.update(this, { state: 'reconnecting', ...(this.inner.readyState === CLOSED ? { detail: 'The live connection failed; retrying' } : {}) });
          this.handler?.(event);
        };
      }

      get readyState(): number {
        return this.inner.readyState;
      }

      get onerror(): ((event: Event) => void) | null {
        return this.handler;
      }

      set onerror(handler: ((event: Event) => void) | null) {
        this.handler = handler;
      }

      addEventListener(type: string, listener: (event: MessageEvent) => void): void {
        this.inner.addEventListener(type, listener);
      }

      close(): void {
        this.inner.close();
        monitor.closed(this);
      }
    };
  }

  private opened(source: EventSourceLike): void {
    // Opened while the previous one is still current: the datafeed's reopen of a connection the
    // browser gave up on (it closes the failed one afterwards). Still reconnecting, not a new start.
    const retry = this.current !== undefined && this.sourceState.state === 'reconnecting';
    this.current = source;
    if (!retry) this.sourceState = { state: 'connecting' };
    this.publish();
  }

  private update(source: EventSourceLike, state: LiveStatusSnapshot): void {
    if (this.current !== source) return;
    this.sourceState = state;
    this.publish();
  }

  private closed(source: EventSourceLike): void {
    if (this.current !== source) return;
    this.current = undefined;
    // A refusal keeps its message until something new opens.
    if (this.sourceState.state !== 'offline') this.sourceState = { state: 'idle' };
    this.publish();
  }

  private publish(): void {
    const next: LiveStatusSnapshot = this.online ? this.sourceState : { state: 'offline', detail: 'The browser is offline' };
    if (next.state === this.snapshot.state && next.detail === this.snapshot.detail) return;
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }
}
