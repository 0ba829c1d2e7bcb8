import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  isTradeEvent,
  tradeEventSchema,
  type ExtendedStreamLine as StreamLine,
  type TradeEvent,
} from '../../src/shared/api/stream';
import { historyResponseSchema } from '../../src/shared/api/history';
import { barsFromEvents } from '../../src/shared/bars';
import { RESOLUTIONS } from '../../src/shared/resolutions';
import type { Pool } from '../../src/service/market/model';
import { barsOf, historyPath } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { expectClose } from '../support/expect-close';
import {
  aggregatesByActivity,
  baseUnit,
  lastSeq,
  referenceBars,
  storedTrades,
  wholeStep,
  type PriceStep,
} from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { openStream, type StreamReader } from '../support/stream';

/** One second before a UTC midnight: every bucket from midnight on holds streamed trades only. */
const START_MS = Date.UTC(2025, 0, 15, 23, 59, 59);
const MIDNIGHT = Date.UTC(2025, 0, 16) / 1000;

let service: TestService;
let subscribed: Pool[];

beforeAll(async () => {
  service = await createTestService({ startMs: START_MS, days: 1 });
  subscribed = (await aggregatesByActivity(service.runtime)).slice(0, 3);
});
afterAll(async () => service.close());
afterEach(async () => {
  vi.useRealTimers();
});

/** Reads every line already sent, without waiting for more. */
async function readAvailable(stream: StreamReader): Promise<StreamLine[]> {
  const lines: StreamLine[] = [];
  for (;;) {
    try {
      lines.push(await stream.next(50));
    } catch {
      return lines;
    }
  }
}

describe('POST /tokens/stream framing', () => {
  it('answers text/event-stream with bare JSON lines and an immediate {"s":"ok"}', async () => {
    const stream = await openStream(service, [ensureDefined(subscribed[0]).poolId]);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('Cache-Control')).toMatch(/no-cache/);
    const line = await stream.nextLine();
    expect(line).toBe('{"s":"ok"}');
    expect(line).not.toMatch(/^data:/);
    await stream.cancel();
  });

  it('pings {"s":"ok"} every STREAM_PING_SECONDS (20 s by default) and nothing in between', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = await openStream(service, [ensureDefined(subscribed[0]).poolId]);
    expect(await stream.next()).toEqual({ s: 'ok' });
    vi.advanceTimersByTime(19_999);
    await expect(stream.next(30)).rejects.toThrow(/no stream data/);
    vi.advanceTimersByTime(1);
    expect(await stream.next()).toEqual({ s: 'ok' });
    vi.advanceTimersByTime(60_000);
    expect(await readAvailable(stream)).toEqual([{ s: 'ok' }, { s: 'ok' }, { s: 'ok' }]);
    await stream.cancel();
  });

  it('honours a configured ping interval', async () => {
    const fast = await createTestService({ days: 0.05, pingSeconds: 0.05 });
    try {
      const [pool] = await aggregatesByActivity(fast.runtime);
      const stream = await openStream(fast, [ensureDefined(pool).poolId]);
      const started = performance.now();
      for (let i = 0; i < 3; i++) expect(await stream.next(1000)).toEqual({ s: 'ok' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
      await stream.cancel();
    } finally {
      await fast.close();
    }
  });
});

describe('POST /tokens/stream trade events', () => {
  let events: TradeEvent[];
  let before: number;

  beforeAll(async () => {
    // Upper-case IDs are accepted; events name pools in lower case.
    const stream = await openStream(
      service,
      subscribed.map((p) => p.poolId.toUpperCase()),
    );
    expect(await stream.next()).toEqual({ s: 'ok' });
    before = await lastSeq(service.runtime);
    // An hour of live trading: one commit per block, as the live simulator does.
    service.clock.advanceSeconds(3600);
    await service.runtime.simulator.runUntil(service.clock.seconds(), undefined, 1);
    const lines = await readAvailable(stream);
    events = lines.filter(isTradeEvent);
    expect(lines.length - events.length).toBeLessThanOrEqual(1);
    await stream.cancel();
  });

  it('sends one event per trade of a subscribed Aggregate pool, with its Aggregate values, in order', async () => {
    const ids = new Set(subscribed.map((p) => p.id));
    const trades = await storedTrades(service.runtime, { afterSeq: before });
    const mine = trades.filter((t) => ids.has(t.agg));
    expect(trades.length).toBeGreaterThan(mine.length);
    expect(mine.length).toBeGreaterThan(20);
    // Stored raw, sent in whole units of the pair's decimals.
    const expected = mine.map((t): TradeEvent => {
      const aggregate = ensureDefined(service.runtime.market.poolsById.get(t.agg));
      const whole = wholeStep(aggregate);
      const now = whole({
        block_time: t.blockTime,
        previous_price: t.aggPrevPrice,
        current_price: t.aggPrice,
        current_tvl: t.aggTvl,
        volume: 0,
      });
      const before = whole({
        block_time: t.blockTime,
        previous_price: 1,
        current_price: 1,
        current_tvl: t.aggPrevTvl,
        volume: 0,
      });
      return {
        block_time: t.blockTime,
        pool_id: aggregate.poolId,
        current_price: now.current_price,
        previous_price: now.previous_price,
        current_tvl: now.current_tvl,
        previous_tvl: before.current_tvl,
        volume: t.volume / baseUnit(aggregate),
      };
    });
    expect(events).toEqual(expected);
    for (const event of events) tradeEventSchema.parse(event);
  });

  it('names only subscribed pools, in lower case', async () => {
    const ids = new Set(subscribed.map((p) => p.poolId));
    for (const event of events) expect(ids.has(event.pool_id)).toBe(true);
    expect(new Set(events.map((e) => e.pool_id)).size).toBe(subscribed.length);
  });

  it('chains: each event of a pool starts where the previous one ended', async () => {
    for (const pool of subscribed) {
      const mine = events.filter((e) => e.pool_id === pool.poolId);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i]?.previous_price).toBe(mine[i - 1]?.current_price);
        expect(mine[i]?.previous_tvl).toBe(mine[i - 1]?.current_tvl);
      }
    }
  });

  it.each(RESOLUTIONS)('lets a client rebuild the %s bars of /history exactly from the events', async (resolution) => {
    const to = service.clock.seconds() + 1;
    for (const pool of subscribed) {
      const mine = events.filter((e) => e.pool_id === pool.poolId && e.block_time >= MIDNIGHT);
      // Volumes are whole base units of raw ones: summed as raw units they add up exactly.
      const steps: PriceStep[] = mine.map((e) => ({ ...e, volume: Math.round(e.volume * baseUnit(pool)) }));
      const body = historyResponseSchema.parse(
        await service.getJson(historyPath({ symbol: pool.poolId, resolution, from: MIDNIGHT, to, include_tvl: true })),
      );
      expect(barsOf(body)).toEqual(referenceBars(steps, resolution, baseUnit(pool)));
      // The shared fold (float volume sums) agrees but for rounding in the volume.
      const folded = barsFromEvents(mine, resolution);
      expect(folded.map((b) => [b.time, b.open, b.high, b.low, b.close, b.tvl])).toEqual(
        barsOf(body).map((b) => [b.t, b.o, b.h, b.l, b.c, b.tvl]),
      );
      folded.forEach((b, i) => expectClose(b.volume, body.v[i] ?? Number.NaN, 1e-12));
    }
  });
});
