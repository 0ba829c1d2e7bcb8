import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bar } from '../../src/shared/bars';
import type { LibrarySymbolInfo, ResolutionString } from '../../src/datafeed/tradingview-types';
import { FoldingListener } from '../../src/datafeed/folded-bars';
import { chartResolution } from '../../src/shared/resolutions';
import { asSeconds } from '../../src/shared/time';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { createHarness, historyBars, onReady, resolveSymbol, type Harness } from './harness';

/**
 * 30 minutes, 4 hours and a week are not served by /history: the datafeed builds them from 15-minute,
 * 1-hour and daily bars. Checked against a fold of the finer bars written here from the calendar (UTC
 * half hours, four-hour blocks from midnight, ISO weeks from Monday), live bars included.
 */

let h: Harness;
let pool: Pool;
let info: LibrarySymbolInfo;

beforeAll(async () => {
  h = await createHarness({ pools: 120, days: 20 });
  pool = ensureDefined((await aggregatesByActivity(h.tp.runtime))[0]);
  info = await resolveSymbol(h.datafeed, pool.poolId);
});
afterAll(async () => h.close());

/** Bars as the library has them (ms) in the wire's seconds. */
const inSeconds = (ticks: Awaited<ReturnType<typeof historyBars>>): Bar[] =>
  ticks.map((b) => ({ ...b, time: asSeconds(b.time / 1000), volume: b.volume ?? 0 }));

/** The bucket of `time` as a calendar says it (UTC), independent of the table's arithmetic. */
function calendarBucket(time: number, resolution: string): number {
  const d = new Date(time * 1000);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
  if (resolution === '30') return day + d.getUTCHours() * 3600 + (d.getUTCMinutes() >= 30 ? 1800 : 0);
  if (resolution === '240') return day + Math.floor(d.getUTCHours() / 4) * 4 * 3600;
  // ISO weeks start on Monday: getUTCDay() is 0 on Sunday.
  return day - ((d.getUTCDay() + 6) % 7) * 86_400;
}

/** The reference fold: the fine bars of each bucket merged by the bar rule, volumes summed in millionths. */
function referenceFold(fine: readonly Bar[], resolution: string): Bar[] {
  const groups = new Map<number, Bar[]>();
  for (const bar of fine) {
    const bucket = calendarBucket(bar.time, resolution);
    groups.set(bucket, [...(groups.get(bucket) ?? []), bar]);
  }
  return [...groups].map(([time, bars]) => {
    const first = ensureDefined(bars[0]);
    const last = ensureDefined(bars.at(-1));
    return {
      time: asSeconds(time),
      open: first.open,
      high: Math.max(...bars.map((b) => b.high)),
      low: Math.min(...bars.map((b) => b.low)),
      close: last.close,
      volume: bars.reduce((sum, b) => sum + Math.round(b.volume * 1e6), 0) / 1e6,
      tvl: last.tvl,
    };
  });
}

const FOLDS = [
  ['30', '15min', 900],
  ['240', '60min', 3600],
  ['1W', '1d', 86_400],
] as const;

describe('resolutions folded in the datafeed', () => {
  it('are announced with the others, finest first', async () => {
    const config = await onReady(h.datafeed);
    expect(config.supported_resolutions).toEqual(['1', '5', '15', '30', '60', '240', '1D', '1W']);
  });

  it.each(FOLDS)('%s: every bar is the fold of the %s bars of its bucket', async (resolution, fine) => {
    const entry = ensureDefined(chartResolution(resolution));
    const now = Math.floor(Date.now() / 1000);
    const to = calendarBucket(now, resolution) + entry.seconds;
    const from = to - 40 * entry.seconds;
    const { bars } = await h.datafeed.bars(info, resolution as ResolutionString, { from, to, countBack: 0 });
    expect(bars.length).toBeGreaterThan(2);
    const server = await historyBars(h.tp, pool.poolId, fine, Math.max(0, from), to);
    const expected = referenceFold(inSeconds(server), resolution).filter((b) => b.time >= from);
    expect(bars).toEqual(expected);
  });

  it.each(FOLDS)('%s: a countback gives whole bars only, as many as asked', async (resolution, fine) => {
    const entry = ensureDefined(chartResolution(resolution));
    const now = Math.floor(Date.now() / 1000);
    const to = calendarBucket(now, resolution) + entry.seconds;
    const countBack = 3;
    const { bars } = await h.datafeed.bars(info, resolution as ResolutionString, { from: to, to, countBack });
    expect(bars.length).toBeGreaterThanOrEqual(countBack);
    const first = ensureDefined(bars[0]);
    // The oldest bar folded from every fine bar of its bucket, not from the ones a countback reached.
    const server = await historyBars(h.tp, pool.poolId, fine, first.time, to);
    expect(bars).toEqual(referenceFold(inSeconds(server), resolution));
  });

  it('follows trades live: the newest 4-hour bar is the fold of the hour bars after each trade', async () => {
    const now = Math.floor(Date.now() / 1000);
    const to = calendarBucket(now, '240') + 4 * 3600;
    await h.datafeed.bars(info, '240' as ResolutionString, { from: to - 10 * 4 * 3600, to, countBack: 10 });
    const ticks: Bar[] = [];
    const stop = h.datafeed.onBars(info, '240' as ResolutionString, { onBar: (bar) => ticks.push(bar) });
    try {
      for (let i = 0; i < 2; i++) {
        const before = ticks.length;
        await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
        await vi.waitFor(() => expect(ticks.length).toBeGreaterThan(before), { timeout: 15_000 });
      }
      const last = ensureDefined(ticks.at(-1));
      const server = await historyBars(h.tp, pool.poolId, '60min', last.time, last.time + 4 * 3600);
      const expected = referenceFold(inSeconds(server), '240');
      await vi.waitFor(() => expect(ticks.at(-1)).toEqual(expected.at(-1)));
    } finally {
      stop();
    }
  });
});

describe('a folding listener', () => {
  const hour = (hours: number, close: number): Bar => ({
    time: asSeconds(Date.UTC(2026, 0, 5, hours) / 1000),
    open: close - 1,
    high: close + 1,
    low: close - 2,
    close,
    volume: 1.5,
    tvl: 100 + hours,
  });
  const entry = ensureDefined(chartResolution('240'));

  it('folds each fine bar with the earlier ones of its bucket, and starts a new bar with a new bucket', () => {
    const out: Bar[] = [];
    const listener = new FoldingListener(
      entry,
      { onBar: (bar) => out.push(bar) },
      [hour(0, 10), hour(1, 11)],
      undefined,
    );
    listener.onBar(hour(2, 12));
    listener.onBar({ ...hour(2, 9), low: 1 });
    listener.onBar(hour(4, 20));
    expect(out.map((b) => [b.time, b.open, b.low, b.close, b.volume])).toEqual([
      [hour(0, 0).time, 9, 8, 12, 4.5],
      [hour(0, 0).time, 9, 1, 9, 4.5],
      [hour(4, 0).time, 19, 18, 20, 1.5],
    ]);
  });

  it('folds a rollback into the bucket it holds, and asks for everything again before it', () => {
    const resets: (unknown | undefined)[] = [];
    const listener = new FoldingListener(
      entry,
      { onBar: () => undefined, onReset: (replacement) => resets.push(replacement) },
      [hour(4, 10), hour(5, 11)],
      undefined,
    );
    listener.onReset({ from: hour(5, 0).time, bars: [hour(5, 30)] });
    expect(resets[0]).toEqual({
      from: hour(4, 0).time,
      bars: [{ ...hour(4, 10), close: 30, high: 31, tvl: 105, volume: 3 }],
    });
    listener.onReset({ from: hour(1, 0).time, bars: [] });
    expect(resets[1]).toBeUndefined();
    expect(resets).toHaveLength(2);
  });

  it('holds live bars until the fine bars of the bucket are loaded when it had none', async () => {
    const out: Bar[] = [];
    let load: (bars: Bar[]) => void = () => undefined;
    const listener = new FoldingListener(
      entry,
      { onBar: (bar) => out.push(bar) },
      undefined,
      () => new Promise((ok) => (load = ok)),
    );
    listener.onBar(hour(6, 7));
    expect(out).toEqual([]);
    load([hour(4, 5), hour(5, 6)]);
    await vi.waitFor(() => expect(out).toHaveLength(1));
    expect(out[0]).toMatchObject({ time: hour(4, 0).time, open: 4, close: 7, volume: 4.5 });
  });
});
