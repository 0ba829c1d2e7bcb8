import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamStream, type UpstreamListener } from '../../src/gateway/live/upstream-stream';
import type { Upstream } from '../../src/gateway/upstream';

/**
 * The reconnect policy on its own, with fake timers: an upstream that refuses every connection
 * (a unit test of timing; the real service is exercised in live.test.ts and remote.test.ts).
 */
function refusingUpstream(log: { at: number; body: string }[]): Upstream {
  return {
    kind: 'remote',
    fetch: async (_path, init) => {
      log.push({ at: Date.now(), body: String(init?.body) });
      return new Response('{"s":"error","errmsg":"Connection limit exceeded"}\n', { headers: { 'Content-Type': 'text/event-stream' } });
    },
  };
}

function listener(): UpstreamListener & { down: number; live: number; idle: number } {
  return {
    down: 0,
    live: 0,
    idle: 0,
    onDown() {
      this.down++;
    },
    onIdle() {
      this.idle++;
    },
    onLive() {
      this.live++;
    },
    onEvent() {},
  };
}

describe('upstream reconnect policy', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('backs off exponentially with jitter, capped, and never gives up', async () => {
    const attempts: { at: number; body: string }[] = [];
    const events = listener();
    const stream = new UpstreamStream(
      { upstream: refusingUpstream(attempts), silenceMs: 90_000, debounceMs: 10, backoffInitialMs: 1000, backoffMaxMs: 8000, random: () => 1 - 1e-9 },
      events,
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(10 + 200_000);
    const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i]?.at ?? 0));
    // random() ~ 1 gives the top of each jitter band: 1 s, 2 s, 4 s, then the 8 s cap forever.
    expect(gaps.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(attempts.length).toBeGreaterThan(20);
    expect(events.down).toBe(1);
    stream.close();
  });

  it('jitters between half and all of the step', async () => {
    const attempts: { at: number; body: string }[] = [];
    const stream = new UpstreamStream(
      { upstream: refusingUpstream(attempts), silenceMs: 90_000, debounceMs: 0, backoffInitialMs: 1000, backoffMaxMs: 1000, random: () => 0 },
      listener(),
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(3000);
    const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i]?.at ?? 0));
    expect(gaps.length).toBeGreaterThanOrEqual(5);
    expect(new Set(gaps)).toEqual(new Set([500]));
    stream.close();
  });

  it('debounces changes of the union into one re-subscription with the latest set', async () => {
    const attempts: { at: number; body: string }[] = [];
    const stream = new UpstreamStream(
      { upstream: refusingUpstream(attempts), silenceMs: 90_000, debounceMs: 200, backoffInitialMs: 60_000, backoffMaxMs: 60_000, random: () => 0 },
      listener(),
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(50);
    stream.setPools(['aa', 'bb']);
    await vi.advanceTimersByTimeAsync(50);
    stream.setPools(['bb', 'cc', 'aa']);
    await vi.advanceTimersByTimeAsync(250);
    expect(attempts.map((a) => a.body)).toEqual(['["aa","bb","cc"]']);
    stream.close();
  });

  it('stops and does not reconnect when no pool is wanted any more', async () => {
    const attempts: { at: number; body: string }[] = [];
    const events = listener();
    const quiet = new UpstreamStream(
      { upstream: refusingUpstream(attempts), silenceMs: 90_000, debounceMs: 0, backoffInitialMs: 100, backoffMaxMs: 100, random: () => 0 },
      events,
    );
    quiet.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(10);
    quiet.setPools([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(attempts.length).toBe(1);
    expect(events.idle).toBe(1);
    quiet.close();
  });
});
