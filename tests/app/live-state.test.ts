import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventSourceLike } from '../../src/datafeed';
import { LiveConnection } from '../../src/datafeed/live-connection';
import { applyLiveBar, EMPTY_OVERLAY, liveStats } from '../../src/app/lib/live-stats';
import { LiveStatusMonitor } from '../../src/app/providers/live-status';

/** A scriptable EventSource: the test emits the gateway's events by hand. */
class ScriptedSource implements EventSourceLike {
  static last: ScriptedSource | undefined;
  readyState = 0;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private readonly listeners = new Map<string, ((event: MessageEvent) => void)[]>();
  constructor(readonly url: string) {
    ScriptedSource.last = this;
  }
  addEventListener(type: string, listener: (event: MessageEvent) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, data: unknown): void {
    for (const l of this.listeners.get(type) ?? []) l(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
  fail(readyState: number): void {
    this.readyState = readyState;
    this.onerror?.(new Event('error'));
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LiveStatusMonitor', () => {
  it('follows the gateway’s status events, connection errors, refusals and the browser’s online state', () => {
    const monitor = new LiveStatusMonitor(true);
    const Source = monitor.wrap(ScriptedSource);
    expect(monitor.getSnapshot().state).toBe('idle');
    const source = new Source('/gw/v1/live?pools=ab');
    const inner = ScriptedSource.last;
    if (!inner) throw new Error('no source');
    let datafeedSawError = 0;
    source.onerror = () => datafeedSawError++;
    expect(monitor.getSnapshot().state).toBe('connecting');
    inner.emit('status', { state: 'connected', resync: false });
    expect(monitor.getSnapshot().state).toBe('live');
    inner.emit('status', { state: 'reconnecting', resync: false });
    expect(monitor.getSnapshot().state).toBe('reconnecting');
    inner.emit('status', { state: 'connected', resync: true });
    expect(monitor.getSnapshot().state).toBe('live');
    inner.fail(0);
    expect(monitor.getSnapshot().state).toBe('reconnecting');
    expect(datafeedSawError).toBe(1);
    expect(source.readyState).toBe(0);
    monitor.setOnline(false);
    expect(monitor.getSnapshot()).toEqual({ state: 'offline', detail: 'The browser is offline' });
    monitor.setOnline(true);
    inner.emit('status', { state: 'connected', resync: false });
    expect(monitor.getSnapshot().state).toBe('live');
    inner.emit('error', { errmsg: 'Too many pools', retry: false });
    expect(monitor.getSnapshot()).toEqual({ state: 'offline', detail: 'Too many pools' });
    source.close();
    expect(inner.closed).toBe(true);
    expect(monitor.getSnapshot().state).toBe('offline');
    const next = new Source('/gw/v1/live?pools=cd');
    expect(monitor.getSnapshot().state).toBe('connecting');
    next.close();
    expect(monitor.getSnapshot().state).toBe('idle');
  });

  it('stays reconnecting while the datafeed reopens a connection the browser gave up on (an HTTP error), until live', () => {
    vi.useFakeTimers();
    const monitor = new LiveStatusMonitor(true);
    const seen: string[] = [];
    monitor.subscribe(() => seen.push(monitor.getSnapshot().state));
    const warnings: string[] = [];
    const connection = new LiveConnection(
      { EventSource: monitor.wrap(ScriptedSource), url: (pools) => `/gw/v1/live?pools=${pools.join(',')}`, debounceMs: 10, reopenInitialMs: 1000, reopenMaxMs: 30_000 },
      { onTrade: () => {}, onStatus: () => {}, onError: (message) => warnings.push(message) },
    );
    connection.setPools(['ab']);
    vi.advanceTimersByTime(10);
    const first = ScriptedSource.last;
    expect(monitor.getSnapshot().state).toBe('connecting');
    // A 503 (a proxy, or Vite's dev proxy with the gateway down): the browser closes the EventSource.
    first?.fail(2);
    expect(monitor.getSnapshot().state).toBe('reconnecting');
    // Backoff: 1 s, then 2 s, then 4 s; each new EventSource fails the same way.
    for (const delay of [1000, 2000, 4000]) {
      vi.advanceTimersByTime(delay - 1);
      expect(monitor.getSnapshot().state).toBe('reconnecting');
      vi.advanceTimersByTime(1);
      const next = ScriptedSource.last;
      expect(next).not.toBe(first);
      expect(monitor.getSnapshot().state).toBe('reconnecting');
      if (delay < 4000) next?.fail(2);
    }
    // The gateway is back.
    ScriptedSource.last?.emit('status', { state: 'connected', resync: false });
    expect(monitor.getSnapshot().state).toBe('live');
    // Never "History only" (idle) or "Connecting" during the outage.
    expect(seen).toEqual(['connecting', 'reconnecting', 'live']);

    // Another outage, then nothing to follow any more (a DEX pair): idle, even while a retry was pending.
    ScriptedSource.last?.fail(2);
    expect(monitor.getSnapshot().state).toBe('reconnecting');
    connection.setPools([]);
    vi.advanceTimersByTime(10);
    expect(monitor.getSnapshot().state).toBe('idle');
    const sources = ScriptedSource.last;
    vi.advanceTimersByTime(60_000);
    expect(ScriptedSource.last).toBe(sources);
    connection.close();
    expect(warnings).toEqual([]);
  });

  it('notifies subscribers only on changes', () => {
    const monitor = new LiveStatusMonitor(true);
    let calls = 0;
    const stop = monitor.subscribe(() => calls++);
    monitor.setOnline(true);
    expect(calls).toBe(0);
    monitor.setOnline(false);
    expect(calls).toBe(1);
    stop();
    monitor.setOnline(true);
    expect(calls).toBe(1);
  });
});

describe('live statistics', () => {
  const stats = {
    current_price: 2,
    current_tvl: 1000,
    hourly_price_change: 100,
    hourly_tvl_change: 50,
    hourly_volume: 10,
    daily_price_change: -50,
    daily_tvl_change: -20,
    daily_volume: 100,
  };

  it('moves price, changes, TVL and volumes with live bars', () => {
    // The first bar (the server's newest) sets price and TVL and adds no volume.
    let overlay = applyLiveBar(EMPTY_OVERLAY, { time: 60_000, close: 2, tvl: 1000, volume: 5 }, 1000);
    expect(liveStats(stats, overlay, 500)).toEqual(stats);
    overlay = applyLiveBar(overlay, { time: 60_000, close: 3, tvl: 1100, volume: 7 }, 2000);
    overlay = applyLiveBar(overlay, { time: 120_000, close: 4, tvl: 1200, volume: 1.5 }, 3000);
    const shown = liveStats(stats, overlay, 500);
    expect(shown.current_price).toBe(4);
    // 1 h ago the price was 1 (+100 % to 2), 24 h ago 4 (−50 % to 2).
    expect(shown.hourly_price_change).toBeCloseTo(300);
    expect(shown.daily_price_change).toBeCloseTo(0);
    expect(shown.current_tvl).toBe(1200);
    expect(shown.hourly_tvl_change).toBe(250);
    expect(shown.daily_tvl_change).toBe(180);
    expect(shown.hourly_volume).toBeCloseTo(13.5);
    expect(shown.daily_volume).toBeCloseTo(103.5);
    // Statistics fetched after those trades already count their volume.
    expect(liveStats(stats, overlay, 5000).hourly_volume).toBe(10);
  });

  it('ignores bars older than the newest seen', () => {
    const overlay = applyLiveBar(applyLiveBar(EMPTY_OVERLAY, { time: 120_000, close: 2, tvl: 1, volume: 1 }, 0), { time: 60_000, close: 9, tvl: 9, volume: 9 }, 1);
    expect(overlay.price).toBe(2);
  });
});
