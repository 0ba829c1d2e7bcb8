import { describe, expect, it } from 'vitest';
import { LiveSeries, VOLUME_SCALE, type BarsReplacement } from '../../src/datafeed/live-series';
import type { TradeEvent } from '../../src/shared/api/stream';
import { barsFromEvents, type Bar } from '../../src/shared/bars';
import { asSeconds } from '../../src/shared/time';

/**
 * A series after a chain rollback: its next sync loads from the rollback's bucket and hands its
 * listeners the server's bars in place of theirs, when they may differ.
 */
const POOL = 'bb'.repeat(28);
const T0 = 1_736_942_400; // 2025-01-15T12:00:00Z, a bucket start at every resolution

/** Trade events at `seconds` after T0, each starting where the last ended, from `price`. */
function trades(seconds: readonly number[], price = 1, factor = 1.01): TradeEvent[] {
  let p = price;
  return seconds.map((s) => {
    const event: TradeEvent = {
      block_time: T0 + s,
      pool_id: POOL,
      previous_price: p,
      current_price: p * factor,
      previous_tvl: 1000,
      current_tvl: 1000,
      volume: 0.5,
    };
    p *= factor;
    return event;
  });
}

function serverBars(events: readonly TradeEvent[]): Bar[] {
  return barsFromEvents(
    events.map((e) => ({ ...e, volume: Math.round(e.volume * VOLUME_SCALE) })),
    '1min',
  ).map((b) => ({ ...b, volume: b.volume / VOLUME_SCALE }));
}

function series(known: Bar | undefined) {
  const emitted: Bar[] = [];
  const resets: (BarsReplacement | undefined)[] = [];
  const s = new LiveSeries(
    POOL,
    '1min',
    known,
    { emit: (b) => emitted.push(b), reset: (r) => resets.push(r) },
    { anchorWaitMs: 1000 },
  );
  return { s, emitted, resets };
}

describe('LiveSeries after a rollback', () => {
  it('loads from the bucket of a rollback before its newest bar and replaces every bar from there', () => {
    // Bars at T0, T0+60, T0+120; the chain goes back to T0+30: the trades of T0+61 and T0+130 are undone.
    const before = trades([10, 61, 130]);
    const { s, resets, emitted } = series(serverBars(before).at(-1));
    expect(s.syncFrom).toBe(T0 + 120);
    s.noteRollback(asSeconds(T0 + 30));
    expect(s.syncFrom).toBe(T0);
    // The new chain: a trade at T0+70 at another price.
    const after = [...before.slice(0, 1), ...trades([70], before[0]?.current_price, 0.9)];
    const fetched = serverBars(after);
    s.completeSync(s.beginSync(), fetched, 'resync');
    expect(resets).toEqual([{ from: T0, bars: fetched }]);
    expect(s.currentBar).toEqual(fetched.at(-1));
    // Live bars continue from the server's newest.
    const next = trades([75], after.at(-1)?.current_price, 1.02);
    s.onEvent(next[0] as TradeEvent);
    expect(emitted.at(-1)?.close).toBe(next[0]?.current_price);
    expect(emitted.at(-1)?.time).toBe(T0 + 60);
    // Done: the next sync loads from the newest bar again.
    expect(s.syncFrom).toBe(T0 + 60);
  });

  it('replaces the newest bar when a rollback into it changed it, and nothing when it did not', () => {
    const before = trades([61, 70, 80]);
    const { s, resets } = series(serverBars(before).at(-1));
    s.noteRollback(asSeconds(T0 + 75));
    const fetched = serverBars(before.slice(0, 2));
    s.completeSync(s.beginSync(), fetched, 'resync');
    expect(resets).toEqual([{ from: T0 + 60, bars: fetched }]);

    // A rollback after the pool's last trade: its bars are as they were.
    s.noteRollback(asSeconds(T0 + 78));
    s.completeSync(s.beginSync(), fetched, 'resync');
    expect(resets).toHaveLength(1);
  });

  it('empties the bars from the newest on when the rollback undid every trade of it', () => {
    const before = trades([61, 70]);
    const { s, resets } = series(serverBars(before).at(-1));
    s.noteRollback(asSeconds(T0 + 60));
    s.completeSync(s.beginSync(), [], 'resync');
    expect(resets).toEqual([{ from: T0 + 60, bars: [] }]);
    expect(s.currentBar).toBeUndefined();
  });

  it('keeps the oldest of several rollbacks noted before a sync', () => {
    const { s } = series(serverBars(trades([200])).at(-1));
    s.noteRollback(asSeconds(T0 + 130));
    s.noteRollback(asSeconds(T0 + 65));
    s.noteRollback(asSeconds(T0 + 150));
    expect(s.syncFrom).toBe(T0 + 60);
  });
});
