import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveSeries, VOLUME_SCALE, type SyncMode } from '../../src/datafeed/live-series';
import type { TradeEvent } from '../../src/shared/api/stream';
import { barsFromEvents, type Bar } from '../../src/shared/bars';
import { ensureDefined } from '../support/ensure';

const POOL = 'aa'.repeat(28);
const T0 = 1_736_942_400; // 2025-01-15T12:00:00Z, a bucket start at every resolution

/** A chain of trade events (each starts where the last ended), `seconds` after T0, volume 0.1 each. */
function chain(seconds: readonly number[], startPrice = 1, startTvl = 1000): TradeEvent[] {
  let price = startPrice;
  let tvl = startTvl;
  return seconds.map((s, i) => {
    const next = { price: price * (i % 2 === 0 ? 1.01 : 0.995), tvl: tvl + 7 };
    const event: TradeEvent = {
      block_time: T0 + s,
      pool_id: POOL,
      previous_price: price,
      current_price: next.price,
      previous_tvl: tvl,
      current_tvl: next.tvl,
      volume: 0.1 + i / 10,
    };
    price = next.price;
    tvl = next.tvl;
    return event;
  });
}

/** The server's bars of a run of events (integer micro volumes, divided once). */
function serverBars(events: readonly TradeEvent[]): Bar[] {
  return barsFromEvents(
    events.map((e) => ({ ...e, volume: Math.round(e.volume * VOLUME_SCALE) })),
    '1min',
  ).map((b) => ({ ...b, volume: b.volume / VOLUME_SCALE }));
}

function series(known?: Bar) {
  const emitted: Bar[] = [];
  let resets = 0;
  const s = new LiveSeries(
    POOL,
    '1min',
    known,
    { emit: (b) => emitted.push(b), reset: () => resets++ },
    { anchorWaitMs: 1000 },
  );
  return { s, emitted, resets: () => resets };
}

function sync(s: LiveSeries, fetched: readonly Bar[], mode: SyncMode = 'merge'): void {
  s.completeSync(s.beginSync(), fetched, mode);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LiveSeries', () => {
  it('builds the current bar by the bar rule, with volumes summed exactly, and rolls over', () => {
    const events = chain([1, 2, 3, 61, 62]);
    const { s, emitted } = series();
    sync(s, []);
    for (const e of events) s.onEvent(e);
    const expected = serverBars(events);
    expect(emitted.at(2)).toEqual(expected[0]);
    expect(emitted.at(-1)).toEqual(expected[1]);
    expect(ensureDefined(emitted.at(2)).volume).toBe(0.6); // 0.1 + 0.2 + 0.3, not 0.6000000000000001
    expect(ensureDefined(expected[1]).open).toBe(ensureDefined(expected[0]).close);
  });

  it('drops buffered events the snapshot already holds and applies the later ones', () => {
    const events = chain([1, 2, 3, 4, 5]);
    const { s, emitted } = series(serverBars(events.slice(0, 1))[0]);
    const token = s.beginSync();
    for (const e of events.slice(1, 4)) s.onEvent(e); // e2..e4 arrive while the snapshot (e1..e3) is loading
    s.completeSync(token, serverBars(events.slice(0, 3)), 'merge');
    s.onEvent(ensureDefined(events[4]));
    expect(emitted.at(-1)).toEqual(serverBars(events)[0]);
  });

  it('drops a snapshot trade that arrives after the snapshot, holding the earlier ones meanwhile', () => {
    const events = chain([1, 2, 3, 4]);
    const { s, emitted } = series();
    const token = s.beginSync();
    s.onEvent(ensureDefined(events[1])); // e2 buffered; e3 (in the snapshot) still in flight
    s.completeSync(token, serverBars(events.slice(0, 3)), 'merge');
    expect(emitted).toEqual(serverBars(events.slice(0, 3)));
    s.onEvent(ensureDefined(events[2]));
    s.onEvent(ensureDefined(events[3]));
    expect(emitted.at(-1)).toEqual(serverBars(events)[0]);
    expect(emitted).toHaveLength(2);
  });

  it('applies events that follow the snapshot at once', () => {
    const events = chain([1, 2, 70]);
    const { s, emitted } = series();
    sync(s, serverBars(events.slice(0, 2)));
    s.onEvent(ensureDefined(events[2]));
    expect(emitted.at(-1)).toEqual(serverBars(events)[1]);
  });

  it('applies held events when the chain never meets the snapshot (a liquidity change)', () => {
    vi.useFakeTimers();
    const before = chain([1]);
    const after = chain([2, 3], 2, 5000); // does not chain to `before`
    const { s, emitted } = series();
    sync(s, serverBars(before));
    for (const e of after) s.onEvent(e);
    expect(emitted).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(emitted).toHaveLength(3);
    expect(ensureDefined(emitted.at(-1)).close).toBe(ensureDefined(after[1]).current_price);
  });

  it('emits only bars at or after the chart newest one on merge', () => {
    const events = chain([1, 61, 121]);
    const bars = serverBars(events);
    const { s, emitted } = series(bars[1]);
    sync(s, bars.slice(1));
    expect(emitted).toEqual(bars.slice(1));
    const fresh = series();
    sync(fresh.s, bars.slice(1));
    expect(fresh.emitted).toEqual(bars.slice(2));
  });

  it('resets on resync only when the server bars differ from what it emitted', () => {
    const events = chain([1, 2, 3, 4]);
    const { s, emitted, resets } = series();
    sync(s, serverBars(events.slice(0, 1)));
    s.onEvent(ensureDefined(events[1]));
    sync(s, serverBars(events.slice(0, 2)), 'resync');
    expect(resets()).toBe(0);
    // Lost while the upstream was down: e3. The server has it.
    sync(s, serverBars(events.slice(0, 3)), 'resync');
    expect(resets()).toBe(1);
    expect(emitted.at(-1)).toEqual(serverBars(events.slice(0, 3))[0]);
    s.onEvent(ensureDefined(events[3]));
    expect(emitted.at(-1)).toEqual(serverBars(events)[0]);
  });

  it('does not count events buffered during a resync as a difference', () => {
    const events = chain([1, 2, 3]);
    const { s, emitted, resets } = series();
    sync(s, serverBars(events.slice(0, 1)));
    const token = s.beginSync();
    s.onEvent(ensureDefined(events[1])); // arrived after the reconnect, and is in the snapshot
    s.completeSync(token, serverBars(events.slice(0, 2)), 'resync');
    s.onEvent(ensureDefined(events[2]));
    expect(resets()).toBe(0);
    expect(emitted.at(-1)).toEqual(serverBars(events)[0]);
  });

  it('ignores the answer of a superseded sync', () => {
    const events = chain([1, 2]);
    const { s, emitted } = series();
    const stale = s.beginSync();
    const token = s.beginSync();
    s.completeSync(stale, serverBars(events.slice(0, 1)), 'merge');
    expect(emitted).toEqual([]);
    s.completeSync(token, serverBars(events), 'merge');
    expect(emitted).toEqual(serverBars(events));
  });
});
