import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UdfDatafeed, type LibrarySymbolInfo, type LiveConnectionStatus } from '../../src/datafeed';
import type { TradeEvent } from '../../src/shared/api/stream';
import { ScriptedEventSource } from '../support/event-source';

/**
 * The live connection's status and trade events through the datafeed's public API, with an EventSource
 * scripted frame by frame under fake timers: exact sequences (backoff, refusals) that a real gateway
 * would only produce by chance. datafeed-live.test.ts checks the same API against the real platform.
 */

const POOL_A = 'aa'.repeat(28);
const POOL_B = 'bb'.repeat(28);

function aggregateSymbol(ticker: string): LibrarySymbolInfo {
  return {
    name: `ADA.T${ticker.slice(0, 4)}_Aggregate_Pool1`,
    ticker,
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
}

function trade(pool: string, price: number): TradeEvent {
  return {
    block_time: 1_736_942_400,
    pool_id: pool,
    current_price: price,
    previous_price: price - 1,
    current_tvl: 1000,
    previous_tvl: 1000,
    volume: 5,
  };
}

let datafeed: UdfDatafeed;
let warnings: string[];
let statuses: LiveConnectionStatus[];

beforeEach(() => {
  vi.useFakeTimers();
  ScriptedEventSource.opened.length = 0;
  warnings = [];
  statuses = [];
  datafeed = new UdfDatafeed({
    // Nothing here fetches: symbols are given resolved, and no series needs history.
    fetch: () => Promise.reject(new Error('no fetch in this test')),
    EventSource: ScriptedEventSource,
    liveDebounceMs: 10,
    random: () => 0,
    onWarning: (message) => warnings.push(message),
  });
  datafeed.onLiveStatus((status) => statuses.push(status));
});

afterEach(() => {
  datafeed.close();
  vi.useRealTimers();
});

const states = () => statuses.map((s) => s.state);

describe('liveStatus and onLiveStatus', () => {
  it('is idle until something is followed, then connecting, live, and idle again when nothing is', () => {
    expect(datafeed.liveStatus).toEqual({ state: 'idle', pools: [], resync: false });
    const stop = datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.last().url).toBe(`/gw/v1/live?pools=${POOL_A}`);
    expect(datafeed.liveStatus).toEqual({ state: 'connecting', pools: [POOL_A], resync: false });
    ScriptedEventSource.last().emit('status', { state: 'connected', resync: false });
    expect(datafeed.liveStatus).toEqual({ state: 'live', pools: [POOL_A], resync: false });
    // The same again is no change: listeners are not told twice.
    ScriptedEventSource.last().emit('status', { state: 'connected', resync: false });
    stop();
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.last().closed).toBe(true);
    expect(datafeed.liveStatus.state).toBe('idle');
    expect(states()).toEqual(['connecting', 'live', 'idle']);
  });

  it('reports the gateway losing its upstream, and the resync that follows', () => {
    datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    const source = ScriptedEventSource.last();
    source.emit('status', { state: 'connected', resync: false });
    source.emit('status', { state: 'reconnecting', resync: false });
    expect(datafeed.liveStatus).toEqual({ state: 'reconnecting', pools: [POOL_A], resync: false });
    source.emit('status', { state: 'connected', resync: true });
    expect(datafeed.liveStatus).toEqual({ state: 'live', pools: [POOL_A], resync: true });
    expect(states()).toEqual(['connecting', 'live', 'reconnecting', 'live']);
  });

  it('says reconnecting while the browser retries a dropped connection, and asks for a resync when nothing gave an id to resume from', () => {
    datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    const source = ScriptedEventSource.last();
    source.emit('status', { state: 'connected', resync: false });
    source.fail(ScriptedEventSource.CONNECTING);
    expect(datafeed.liveStatus).toEqual({ state: 'reconnecting', pools: [POOL_A], resync: false });
    // The browser reconnected by itself; the gateway could not replay (no event id was ever seen).
    source.emit('status', { state: 'connected', resync: false });
    expect(datafeed.liveStatus).toEqual({ state: 'live', pools: [POOL_A], resync: true });
    // With an id to resume from, the gateway replays what was missed: no resync.
    source.emit('trade', trade(POOL_A, 2), 'boot.1');
    source.fail(ScriptedEventSource.CONNECTING);
    source.emit('status', { state: 'connected', resync: false });
    expect(datafeed.liveStatus.resync).toBe(false);
    expect(ScriptedEventSource.opened).toHaveLength(1);
  });

  it('stays reconnecting while it reopens a connection the browser gave up on, with capped exponential backoff', () => {
    datafeed = new UdfDatafeed({
      fetch: () => Promise.reject(new Error('no fetch in this test')),
      EventSource: ScriptedEventSource,
      liveDebounceMs: 10,
      liveReopenInitialMs: 1000,
      liveReopenMaxMs: 4000,
      // The top of each jitter band: delays of 1 s, 2 s, 4 s, 4 s.
      random: () => 1 - 1e-9,
    });
    statuses = [];
    datafeed.onLiveStatus((status) => statuses.push(status));
    datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    // A 503 (a proxy, or Vite's dev proxy with the gateway down): the browser closes the EventSource.
    ScriptedEventSource.last().fail(ScriptedEventSource.CLOSED);
    expect(datafeed.liveStatus).toEqual({
      state: 'reconnecting',
      pools: [POOL_A],
      resync: false,
      detail: 'The live connection failed; retrying',
    });
    for (const delay of [1000, 2000, 4000, 4000]) {
      const failed = ScriptedEventSource.last();
      vi.advanceTimersByTime(delay - 1);
      expect(ScriptedEventSource.last()).toBe(failed);
      vi.advanceTimersByTime(1);
      expect(ScriptedEventSource.last()).not.toBe(failed);
      expect(failed.closed).toBe(true);
      ScriptedEventSource.last().fail(ScriptedEventSource.CLOSED);
    }
    vi.advanceTimersByTime(4000);
    // The gateway is back: never "connecting" or "idle" during the outage.
    ScriptedEventSource.last().emit('status', { state: 'connected', resync: false });
    expect(states()).toEqual(['connecting', 'reconnecting', 'live']);
    // Another outage, then nothing to follow any more: idle, and the pending retry is dropped.
    ScriptedEventSource.last().fail(ScriptedEventSource.CLOSED);
    const opened = ScriptedEventSource.opened.length;
    datafeed.close();
    vi.advanceTimersByTime(60_000);
    expect(ScriptedEventSource.opened).toHaveLength(opened);
    expect(datafeed.liveStatus.state).toBe('idle');
  });

  it('jitters the backoff below the step (half of it at least)', () => {
    // random() = 0 (beforeEach): the bottom of the band, half the 1 s step.
    datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    ScriptedEventSource.last().fail(ScriptedEventSource.CLOSED);
    vi.advanceTimersByTime(499);
    expect(ScriptedEventSource.opened).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(ScriptedEventSource.opened).toHaveLength(2);
  });

  it('reports a refusal with the gateway’s reason, does not retry the same pools, and tries a new set', () => {
    const stopA = datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    ScriptedEventSource.last().emit('error', {
      errmsg: 'Too many live connections from 127.0.0.1 (at most 20)',
      retry: false,
    });
    expect(datafeed.liveStatus).toEqual({
      state: 'refused',
      pools: [POOL_A],
      resync: false,
      detail: 'Too many live connections from 127.0.0.1 (at most 20)',
    });
    expect(ScriptedEventSource.last().closed).toBe(true);
    expect(warnings).toEqual(['Live updates: Too many live connections from 127.0.0.1 (at most 20)']);
    vi.advanceTimersByTime(60_000);
    expect(ScriptedEventSource.opened).toHaveLength(1);
    // A retryable refusal (the gateway at its limit) is retried by the browser: reconnecting, with the reason.
    const stopB = datafeed.onTrades(aggregateSymbol(POOL_B), () => {});
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.opened).toHaveLength(2);
    expect(datafeed.liveStatus).toEqual({ state: 'connecting', pools: [POOL_A, POOL_B], resync: false });
    ScriptedEventSource.last().emit('error', { errmsg: 'The gateway is at its limit', retry: true });
    ScriptedEventSource.last().fail(ScriptedEventSource.CONNECTING);
    expect(datafeed.liveStatus).toEqual({
      state: 'reconnecting',
      pools: [POOL_A, POOL_B],
      resync: false,
      detail: 'The gateway is at its limit',
    });
    stopA();
    stopB();
    vi.advanceTimersByTime(10);
    expect(datafeed.liveStatus.state).toBe('idle');
  });
});

describe('onTrades', () => {
  it('delivers each trade event of its pools as received, and tells when the pools are live or may have missed events', () => {
    const seen: TradeEvent[] = [];
    const live: boolean[] = [];
    datafeed.onTrades(aggregateSymbol(POOL_A), {
      onTrade: (event) => seen.push(event),
      onLive: ({ resync }) => live.push(resync),
    });
    const others: TradeEvent[] = [];
    datafeed.onTrades(aggregateSymbol(POOL_B), (event) => others.push(event));
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.opened).toHaveLength(1);
    const source = ScriptedEventSource.last();
    source.emit('status', { state: 'connected', resync: false });
    expect(live).toEqual([false]);
    const first = trade(POOL_A, 2);
    source.emit('trade', first, 'boot.1');
    source.emit('trade', trade(POOL_B, 7), 'boot.2');
    source.emit('trade', trade(POOL_A.toUpperCase(), 3), 'boot.3');
    expect(seen).toEqual([first, trade(POOL_A.toUpperCase(), 3)]);
    expect(others).toEqual([trade(POOL_B, 7)]);
    // A drop the gateway replays without loss: not live "again".
    source.fail(ScriptedEventSource.CONNECTING);
    source.emit('status', { state: 'connected', resync: false });
    expect(live).toEqual([false]);
    // Events may have been lost upstream: told so.
    source.emit('status', { state: 'reconnecting', resync: false });
    source.emit('status', { state: 'connected', resync: true });
    expect(live).toEqual([false, true]);
  });

  it('tells a listener joining pools already live at once (in a microtask), without reconnecting', async () => {
    datafeed.onTrades(aggregateSymbol(POOL_A), () => {});
    vi.advanceTimersByTime(10);
    ScriptedEventSource.last().emit('status', { state: 'connected', resync: false });
    const live: boolean[] = [];
    const stop = datafeed.onTrades(aggregateSymbol(POOL_A), {
      onTrade: () => {},
      onLive: ({ resync }) => live.push(resync),
    });
    expect(live).toEqual([]);
    await Promise.resolve();
    expect(live).toEqual([false]);
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.opened).toHaveLength(1);
    // Unsubscribed before its microtask: never told.
    const late: boolean[] = [];
    datafeed.onTrades(aggregateSymbol(POOL_A), { onTrade: () => {}, onLive: ({ resync }) => late.push(resync) })();
    await Promise.resolve();
    expect(late).toEqual([]);
    stop();
  });

  it('stops delivering after the unsubscribe, and a listener that throws is reported without stopping the others', () => {
    const seen: number[] = [];
    const stop = datafeed.onTrades(aggregateSymbol(POOL_A), () => {
      throw new Error('listener bug');
    });
    datafeed.onTrades(aggregateSymbol(POOL_A), (event) => seen.push(event.current_price));
    vi.advanceTimersByTime(10);
    const source = ScriptedEventSource.last();
    source.emit('status', { state: 'connected', resync: false });
    source.emit('trade', trade(POOL_A, 2), 'boot.1');
    expect(seen).toEqual([2]);
    expect(warnings).toEqual(['A live listener threw: listener bug']);
    stop();
    source.emit('trade', trade(POOL_A, 3), 'boot.2');
    expect(seen).toEqual([2, 3]);
    expect(warnings).toHaveLength(1);
  });

  it('without an EventSource (no live updates at all): says so once, stays idle', () => {
    const logged: string[] = [];
    const historyOnly = new UdfDatafeed({
      fetch: () => Promise.reject(new Error('no fetch in this test')),
      EventSource: undefined,
      onWarning: (m) => logged.push(m),
    });
    const stops = [historyOnly.onTrades(aggregateSymbol(POOL_A), () => {}), historyOnly.onTrades([POOL_B], () => {})];
    let told = 0;
    historyOnly.onLiveStatus(() => told++);
    stops.forEach((stop) => stop());
    expect(historyOnly.liveStatus).toEqual({ state: 'idle', pools: [], resync: false });
    expect(logged).toEqual(['No EventSource available: live updates are off']);
    expect(told).toBe(0);
  });

  it('follows nothing for a symbol that does not stream (a DEX pool), and warns about malformed events', () => {
    const dex = { ...aggregateSymbol(POOL_B), exchange: 'Minswap', listed_exchange: 'Minswap' };
    datafeed.onTrades(dex, () => {});
    vi.advanceTimersByTime(10);
    expect(ScriptedEventSource.opened).toHaveLength(0);
    expect(datafeed.liveStatus.state).toBe('idle');
    const seen: TradeEvent[] = [];
    datafeed.onTrades(aggregateSymbol(POOL_A), (event) => seen.push(event));
    vi.advanceTimersByTime(10);
    ScriptedEventSource.last().emit('trade', { pool_id: POOL_A, price: 'high' }, 'boot.1');
    expect(seen).toEqual([]);
    expect(warnings).toEqual(['Live updates: Ignored a malformed trade event from the gateway']);
  });
});
