import type { LiveConnectionStatus, UdfDatafeed } from '@/datafeed';

/**
 * What the shell shows of the live connection: the datafeed's state, except that
 * - `offline`: the browser is offline, or the gateway refused the connection for good (`refused`).
 */
export type LiveState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface LiveStatusSnapshot {
  readonly state: LiveState;
  /** Why, when there is more to say (the gateway's refusal, the browser being offline). */
  readonly detail?: string;
}

/** The shell's view of a datafeed status (a refusal shows as offline, with the gateway's reason). */
export function snapshotOf(status: LiveConnectionStatus): LiveStatusSnapshot {
  const state: LiveState = status.state === 'refused' ? 'offline' : status.state;
  return status.detail === undefined ? { state } : { state, detail: status.detail };
}

/**
 * The connection status for React (`useSyncExternalStore`): the datafeed's `onLiveStatus`, combined with
 * the browser's online/offline state.
 */
export class LiveStatusMonitor {
  private online: boolean;
  private snapshot: LiveStatusSnapshot;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly datafeed: Pick<UdfDatafeed, 'liveStatus' | 'onLiveStatus'>,
    initiallyOnline = true,
  ) {
    this.online = initiallyOnline;
    this.snapshot = this.compute();
    datafeed.onLiveStatus(() => this.publish());
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

  private compute(): LiveStatusSnapshot {
    return this.online ? snapshotOf(this.datafeed.liveStatus) : { state: 'offline', detail: 'The browser is offline' };
  }

  private publish(): void {
    const next = this.compute();
    if (next.state === this.snapshot.state && next.detail === this.snapshot.detail) return;
    this.snapshot = next;
    for (const listener of [...this.listeners]) listener();
  }
}
