import { describe, expect, it } from 'vitest';
import { Random } from '../../../src/service/market/random';
import { BarFold } from '../../../src/service/store/sqlite/bar-fold';
import { barsFromEvents, rollupBars, type BarEvent } from '../../../src/shared/bars';
import { RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../../src/shared/resolutions';

type Row = [number, number, number, number, number, number, number, number, number];

/** The rows `rebuild` writes for series' events: 1min bars folded, each coarser one rolled up from the one before. */
function rebuildRows(eventsBySeries: ReadonlyMap<number, BarEvent[]>): Row[] {
  const rows: Row[] = [];
  for (const series of [...eventsBySeries.keys()].sort((a, b) => a - b)) {
    let bars = barsFromEvents(eventsBySeries.get(series) ?? [], RESOLUTIONS[0] as Resolution);
    for (const resolution of RESOLUTIONS) {
      if (resolution !== RESOLUTIONS[0]) bars = rollupBars(bars, resolution);
      for (const b of bars)
        rows.push([series, RESOLUTION_SECONDS[resolution], b.time, b.open, b.high, b.low, b.close, b.volume, b.tvl]);
    }
  }
  return rows;
}

function written(fold: BarFold): Row[] {
  const rows: Row[] = [];
  fold.write((...row) => rows.push(row));
  return rows;
}

describe('BarFold', () => {
  it('writes exactly the bars a rebuild makes of the same events, in key order, past its first growth', () => {
    const random = new Random(5, 0x666f6c64);
    const fold = new BarFold();
    const events = new Map<number, BarEvent[]>();
    const times = new Map<number, number>();
    // 400 series with gaps in their ids, about 110,000 events: more 1min bars than the fold's first columns hold.
    for (let i = 0; i < 110_000; i++) {
      const series = 3 + 7 * random.int(400);
      // Equal times in a row, jumps over several buckets, a day's worth now and then.
      const step = random.chance(0.15) ? 0 : random.chance(0.05) ? 86_400 + random.int(9_000) : random.int(400);
      const time = (times.get(series) ?? 1_700_000_000 + random.int(86_400)) + step;
      times.set(series, time);
      const event: BarEvent = {
        block_time: time,
        previous_price: random.float() * 10 ** random.int(12),
        current_price: random.float() * 10 ** random.int(12),
        current_tvl: random.float() * 1e9,
        // Volumes whose sums pass 2^53: the order of the additions shows.
        volume: random.chance(0.1) ? Math.round(random.float() * 2 ** 60) : random.int(1_000_000),
      };
      const list = events.get(series) ?? [];
      list.push(event);
      events.set(series, list);
      fold.add(
        series,
        series % 2 === 0,
        event.block_time,
        event.previous_price,
        event.current_price,
        event.current_tvl,
        event.volume,
      );
    }
    expect(fold.outOfOrder).toBe(false);
    const expected = rebuildRows(events);
    expect(expected.filter((row) => row[1] === 60).length).toBeGreaterThan(65_536);
    expect(written(fold)).toEqual(expected);
  });

  it("counts the DEX trades folded after each series (an Aggregate's are its pools')", () => {
    const fold = new BarFold();
    for (let i = 0; i < 5; i++) fold.add(2, false, 1_700_000_000 + i, 1, 2, 3, 4);
    for (let i = 0; i < 5; i++) fold.add(9, true, 1_700_000_000 + i, 1, 2, 3, 4);
    for (let i = 0; i < 3; i++) fold.add(4, false, 1_700_000_000 + i, 1, 2, 3, 4);
    const counts: number[] = [];
    fold.write(
      () => undefined,
      (trades) => counts.push(trades),
    );
    expect(counts).toEqual([5, 8, 8]);
  });

  it('says so when a series gets a trade older than its latest', () => {
    const fold = new BarFold();
    fold.add(1, false, 1_700_000_100, 1, 2, 3, 4);
    fold.add(2, false, 1_700_000_000, 1, 2, 3, 4);
    fold.add(1, false, 1_700_000_100, 1, 2, 3, 4);
    expect(fold.outOfOrder).toBe(false);
    fold.add(1, false, 1_700_000_099, 1, 2, 3, 4);
    expect(fold.outOfOrder).toBe(true);
  });
});
