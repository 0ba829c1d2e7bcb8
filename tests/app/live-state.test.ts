import { afterEach, describe, expect, it, vi } from 'vitest';
import { UdfDatafeed, type LibrarySymbolInfo } from '../../src/datafeed';
import { applyTrade, EMPTY_OVERLAY, liveStats } from '../../src/app/lib/live-stats';
import { LiveStatusMonitor } from '../../src/app/providers/live-status';
import { ScriptedEventSource } from '../support/event-source';

const POOL = 'ab'.repeat(28);
const SYMBOL: LibrarySymbolInfo = {
  name: 'ADA.TEST_Aggregate_Pool1',
  ticker: POOL,
  description: 'test pair',
  type: 'spot',
  session: '24x7',
  timezone: 'Etc/UTC',
  exchange: 'Aggregate',
  listed_exchange: 'Aggregate',
  format: 'price',
  pricescale: 100,
  minmov: 1,
};

afterEach(() => {
  vi.useRealTimers();
});

/** A datafeed whose live connection the test scripts, and the monitor the shell reads. */
function scripted(online = true) {
  vi.useFakeTimers();
  ScriptedEventSource.opened.length = 0;
  const datafeed = new UdfDatafeed({
    fetch: () => Promise.reject(new Error('no fetch')),
    EventSource: ScriptedEventSource,
    liveDebounceMs: 10,
    onWarning: () => {},
  });
  const monitor = new LiveStatusMonitor(datafeed, online);
  return { datafeed, monitor };
}

describe('LiveStatusMonitor', () => {
  it('shows the datafeed’s status, a refusal as offline with the gateway’s reason, and the browser being offline', () => {
    const { datafeed, monitor } = scripted();
    const seen: string[] = [];
    monitor.subscribe(() => seen.push(monitor.getSnapshot().state));
    expect(monitor.getSnapshot()).toEqual({ state: 'idle' });
    const stop = datafeed.onTrades(SYMBOL, () => {});
    vi.advanceTimersByTime(10);
    expect(monitor.getSnapshot()).toEqual({ state: 'connecting' });
    ScriptedEventSource.last().emit('status', { state: 'connected', resync: false });
    expect(monitor.getSnapshot()).toEqual({ state: 'live' });
    monitor.setOnline(false);
    expect(monitor.getSnapshot()).toEqual({ state: 'offline', detail: 'The browser is offline' });
    monitor.setOnline(true);
    expect(monitor.getSnapshot()).toEqual({ state: 'live' });
    ScriptedEventSource.last().emit('error', { errmsg: 'Too many pools', retry: false });
    expect(monitor.getSnapshot()).toEqual({ state: 'offline', detail: 'Too many pools' });
    stop();
    vi.advanceTimersByTime(10);
    expect(monitor.getSnapshot()).toEqual({ state: 'idle' });
    expect(seen).toEqual(['connecting', 'live', 'offline', 'live', 'offline', 'idle']);
    datafeed.close();
  });

  it('notifies subscribers only on changes', () => {
    const { datafeed, monitor } = scripted();
    let calls = 0;
    const stop = monitor.subscribe(() => calls++);
    monitor.setOnline(true);
    expect(calls).toBe(0);
    monitor.setOnline(false);
    expect(calls).toBe(1);
    stop();
    monitor.setOnline(true);
    expect(calls).toBe(1);
    datafeed.close();
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

  it('moves price, changes, TVL and volumes with the trades seen after the fetch', () => {
    // A trade seen before the statistics were fetched is in them already.
    let overlay = applyTrade(EMPTY_OVERLAY, { current_price: 1.5, current_tvl: 900, volume: 5 }, 400);
    expect(liveStats(stats, overlay, 500)).toEqual(stats);
    overlay = applyTrade(overlay, { current_price: 3, current_tvl: 1100, volume: 2 }, 2000);
    overlay = applyTrade(overlay, { current_price: 4, current_tvl: 1200, volume: 1.5 }, 3000);
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
    // Statistics fetched after those trades have them (and whatever the page missed): they win.
    expect(liveStats(stats, overlay, 5000)).toEqual(stats);
    // Unless the pool was followed without a break since its last trade: that trade is its state
    // now (an answer asked later may be a cache's, older than it); the volumes are still counted once.
    const followed = liveStats(stats, overlay, 5000, { lastTradeWins: true });
    expect(followed.current_price).toBe(4);
    expect(followed.current_tvl).toBe(1200);
    expect(followed.daily_volume).toBe(100);
  });

  it('keeps a day of live volumes', () => {
    let overlay = applyTrade(EMPTY_OVERLAY, { current_price: 2, current_tvl: 1, volume: 1 }, 0);
    overlay = applyTrade(overlay, { current_price: 2, current_tvl: 1, volume: 0 }, 1000);
    expect(overlay.volumes).toEqual([{ at: 0, volume: 1 }]);
    overlay = applyTrade(overlay, { current_price: 2, current_tvl: 1, volume: 3 }, 86_400_000 + 1);
    expect(overlay.volumes).toEqual([{ at: 86_400_001, volume: 3 }]);
  });
});
