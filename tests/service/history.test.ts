import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { historyResponseSchema, type HistoryResponse } from '../../src/shared/api/history';
import { rollupBars, type Bar } from '../../src/shared/bars';
import { RESOLUTION_SECONDS, RESOLUTIONS } from '../../src/shared/resolutions';
import { asSeconds } from '../../src/shared/time';
import type { Pool } from '../../src/service/market/model';
import { barsOf, historyPath, type HistoryParams } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { expectClose } from '../support/expect-close';
import {
  aggregateStep,
  baseUnit,
  busiestPools,
  forceTradesOn,
  poolStep,
  referenceBars,
  storedTrades,
  wholeStep,
} from '../support/market';
import { createTestService, type TestService } from '../support/service';

let service: TestService;
let aggregate: Pool;
let dexPool: Pool;
/** A range that holds the whole history: from before its start to after now. */
let from: number;
let to: number;

beforeAll(async () => {
  service = await createTestService();
  ({ aggregate, dexPool } = await busiestPools(service.runtime));
  to = service.clock.seconds() + 1;
  from = to - 4 * 86_400;
});
afterAll(async () => service.close());

async function history(params: HistoryParams): Promise<HistoryResponse> {
  return historyResponseSchema.parse(await service.getJson(historyPath(params)));
}

async function historyError(params: HistoryParams, status: number): Promise<string> {
  const response = await service.request(historyPath(params));
  expect(response.status, JSON.stringify(params)).toBe(status);
  return priceErrorSchema.parse(await response.json()).errmsg;
}

describe('GET /history bars', () => {
  it.each(RESOLUTIONS)(
    'builds %s bars of an Aggregate pool from its stored trades by the bar rule',
    async (resolution) => {
      const expected = referenceBars(
        (await storedTrades(service.runtime, { agg: aggregate.id })).map(aggregateStep).map(wholeStep(aggregate)),
        resolution,
        baseUnit(aggregate),
      );
      const body = await history({ symbol: aggregate.poolId, resolution, from, to, include_tvl: true });
      expect(expected.length).toBeGreaterThan(0);
      expect(barsOf(body)).toEqual(expected);
    },
  );

  it.each(RESOLUTIONS)('builds %s bars of a DEX pool from its stored trades by the bar rule', async (resolution) => {
    const expected = referenceBars(
      (await storedTrades(service.runtime, { pool: dexPool.id })).map(poolStep).map(wholeStep(dexPool)),
      resolution,
      baseUnit(dexPool),
    );
    const body = await history({ symbol: dexPool.poolId, resolution, from, to, include_tvl: true });
    expect(barsOf(body)).toEqual(expected);
  });

  it('has no bar for a bucket without trades, and bar times on UTC bucket starts', async () => {
    const trades = await storedTrades(service.runtime, { agg: aggregate.id });
    const minutes = new Set(trades.map((t) => Math.floor(t.blockTime / 60) * 60));
    const body = await history({ symbol: aggregate.poolId, resolution: '1min', from, to });
    expect(new Set(body.t)).toEqual(minutes);
    for (const resolution of RESOLUTIONS) {
      const bars = await history({ symbol: aggregate.poolId, resolution, from, to });
      for (const t of bars.t) expect(t % RESOLUTION_SECONDS[resolution]).toBe(0);
      expect(bars.v.every((v) => v > 0)).toBe(true);
    }
  });

  it('rolls fine bars up into every coarser resolution', async () => {
    for (const pool of [aggregate, dexPool]) {
      const fine = barsOf(await history({ symbol: pool.poolId, resolution: '1min', from, to, include_tvl: true })).map(
        (b): Bar => ({
          time: asSeconds(b.t),
          open: b.o,
          high: b.h,
          low: b.l,
          close: b.c,
          volume: b.v,
          tvl: b.tvl ?? Number.NaN,
        }),
      );
      for (const resolution of RESOLUTIONS) {
        const coarse = barsOf(await history({ symbol: pool.poolId, resolution, from, to, include_tvl: true }));
        const rolled = rollupBars(fine, resolution);
        expect(coarse.map((b) => b.t)).toEqual(rolled.map((b) => b.time));
        coarse.forEach((bar, i) => {
          const r = ensureDefined(rolled[i]);
          expect([bar.o, bar.h, bar.l, bar.c, bar.tvl]).toEqual([r.open, r.high, r.low, r.close, r.tvl]);
          // Volumes: the service sums exact integers; the rollup sums rounded decimals.
          expectClose(bar.v, r.volume, 1e-12);
        });
      }
    }
  });

  it('includes tvl only when include_tvl is true', async () => {
    const base = { symbol: aggregate.poolId, resolution: '60min', from, to } as const;
    expect(await history(base)).not.toHaveProperty('tvl');
    expect(await history({ ...base, include_tvl: false })).not.toHaveProperty('tvl');
    expect(await history({ ...base, include_tvl: 'False' })).not.toHaveProperty('tvl');
    const withTvl = await history({ ...base, include_tvl: true });
    expect(ensureDefined(withTvl.tvl).length).toBe(withTvl.t.length);
    expect(ensureDefined((await history({ ...base, include_tvl: '1' })).tvl)).toEqual(withTvl.tvl);
    // As a FastAPI service parses booleans: any letter case, yes/no, on/off.
    for (const spelling of ['TRUE', 'True', 'yes', 'on', 'Y'])
      expect(ensureDefined((await history({ ...base, include_tvl: spelling })).tvl)).toEqual(withTvl.tvl);
    for (const spelling of ['FALSE', 'no', 'off', '0'])
      expect(await history({ ...base, include_tvl: spelling })).not.toHaveProperty('tvl');
    // TVL is in base units: twice the base reserve, so the last bar's tvl is the pool's TVL now.
    expect(withTvl.tvl?.at(-1)).toBe((2 * aggregate.baseReserve) / 10 ** aggregate.pair.base.decimals);
  });
});

describe('GET /history ranges', () => {
  let times: number[];
  beforeAll(async () => {
    times = (await history({ symbol: aggregate.poolId, resolution: '1min', from, to })).t;
  });

  it('treats from as inclusive and to as exclusive on bar start times', async () => {
    const t0 = ensureDefined(times[10]);
    const t1 = ensureDefined(times[11]);
    const at = (f: number, t: number) =>
      history({ symbol: aggregate.poolId, resolution: '1min', from: f, to: t }).then((b) => b.t);
    expect(await at(t0, t0 + 1)).toEqual([t0]);
    expect(await at(t0, t1)).toEqual([t0]);
    expect(await at(t0, t1 + 1)).toEqual([t0, t1]);
    expect(await at(t0 + 1, t1 + 1)).toEqual([t1]);
    expect(await at(t0, t0)).toEqual([]);
  });

  it('answers ok with empty arrays when nothing traded in the range', async () => {
    const empty = await history({
      symbol: aggregate.poolId,
      resolution: '1min',
      from: 1_000_000,
      to: 2_000_000,
      include_tvl: true,
    });
    expect(empty).toEqual({ s: 'ok', t: [], o: [], h: [], l: [], c: [], v: [], tvl: [] });
    const future = await history({
      symbol: aggregate.poolId,
      resolution: '1d',
      from: to + 86_400,
      to: to + 10 * 86_400,
    });
    expect(future).toEqual({ s: 'ok', t: [], o: [], h: [], l: [], c: [], v: [] });
  });

  it('with countback returns the last N bars that start before to, and ignores from', async () => {
    const end = ensureDefined(times[40]);
    const expected = times.filter((t) => t < end).slice(-5);
    for (const f of [undefined, end - 60, end + 10_000, 'not-a-number']) {
      const body = await history({ symbol: aggregate.poolId, resolution: '1min', from: f, to: end, countback: 5 });
      expect(body.t, String(f)).toEqual(expected);
    }
    const all = await history({ symbol: aggregate.poolId, resolution: '1min', to: end, countback: 100_000 });
    expect(all.t).toEqual(times.filter((t) => t < end));
    const full = await history({ symbol: aggregate.poolId, resolution: '1min', from, to: end });
    expect(barsOf(await history({ symbol: aggregate.poolId, resolution: '1min', to: end, countback: 3 }))).toEqual(
      barsOf(full).slice(-3),
    );
  });

  it('accepts the ticker in upper case', async () => {
    const lower = await history({ symbol: aggregate.poolId, resolution: '15min', from, to });
    const upper = await history({ symbol: aggregate.poolId.toUpperCase(), resolution: '15min', from, to });
    expect(upper).toEqual(lower);
  });

  it('floors fractional timestamps to whole seconds', async () => {
    const t0 = ensureDefined(times[3]);
    expect(
      (await history({ symbol: aggregate.poolId, resolution: '1min', from: `${t0}.9`, to: `${t0 + 1}.5` })).t,
    ).toEqual([t0]);
  });
});

describe('GET /history errors', () => {
  const ok = () => ({ symbol: aggregate.poolId, resolution: '1min', from, to });

  it('answers 400 {"s":"error"} to a missing or bad parameter', async () => {
    const cases: HistoryParams[] = [
      { ...ok(), symbol: undefined },
      { ...ok(), symbol: '' },
      { ...ok(), resolution: undefined },
      { ...ok(), resolution: '1h' },
      { ...ok(), resolution: '1' },
      { ...ok(), resolution: '1D' },
      { ...ok(), from: undefined },
      { ...ok(), to: undefined },
      { ...ok(), from: 'yesterday' },
      { ...ok(), to: '1e9' },
      { ...ok(), from: -5 },
      { ...ok(), to: '' },
      { ...ok(), from: to + 1 },
      { ...ok(), to: '9'.repeat(30) },
      { ...ok(), countback: 0 },
      { ...ok(), countback: -1 },
      { ...ok(), countback: 'ten' },
      { ...ok(), countback: 100_001 },
      { ...ok(), countback: '2.5' },
      { ...ok(), include_tvl: 'maybe' },
      { ...ok(), include_tvl: '2' },
      { ...ok(), include_tvl: '' },
    ];
    for (const params of cases) expect(await historyError(params, 400)).not.toBe('');
  });

  it('names the bad parameter in errmsg', async () => {
    expect(await historyError({ ...ok(), resolution: '2min' }, 400)).toMatch(/resolution/);
    expect(await historyError({ ...ok(), from: 'x' }, 400)).toMatch(/from/);
    expect(await historyError({ ...ok(), to: undefined }, 400)).toMatch(/to/);
    expect(await historyError({ ...ok(), countback: 0 }, 400)).toMatch(/countback/);
    expect(await historyError({ ...ok(), include_tvl: 'maybe' }, 400)).toMatch(/include_tvl/);
  });

  it('answers 404 {"s":"error"} to an unknown symbol', async () => {
    for (const symbol of ['ADA.NOPE_Minswap_Pool1', 'ab'.repeat(28), 'zz', aggregate.poolId.slice(2)]) {
      expect(await historyError({ ...ok(), symbol }, 404)).toContain(symbol);
    }
  });

  it('repeats only the start of a very long unknown symbol in errmsg', async () => {
    const errmsg = await historyError({ ...ok(), symbol: 'a'.repeat(3000) }, 404);
    expect(errmsg).toBe(`Unknown symbol: ${'a'.repeat(100)}… (3000 characters)`);
  });
});

describe('GET /history after new trades', () => {
  it('serves the bars of trades committed after an earlier answer (no stale cache)', async () => {
    const end = to + 86_400;
    const query = (resolution: (typeof RESOLUTIONS)[number]) => ({
      symbol: aggregate.poolId,
      resolution,
      from,
      to: end,
      include_tvl: true,
    });
    const expectFresh = async () => {
      const trades = await storedTrades(service.runtime, { agg: aggregate.id });
      for (const resolution of RESOLUTIONS) {
        expect(barsOf(await history(query(resolution))), resolution).toEqual(
          referenceBars(trades.map(aggregateStep).map(wholeStep(aggregate)), resolution, baseUnit(aggregate)),
        );
        const last = await history({ symbol: aggregate.poolId, resolution, to: end, countback: 2, include_tvl: true });
        expect(barsOf(last)).toEqual(
          referenceBars(trades.map(aggregateStep).map(wholeStep(aggregate)), resolution, baseUnit(aggregate)).slice(-2),
        );
      }
    };
    await expectFresh();
    // Into the last existing minute (a bar changes), then ten minutes on (a new bar), then a day on (a new chunk).
    await forceTradesOn(service.runtime, [aggregate], service.clock.seconds());
    await expectFresh();
    await forceTradesOn(service.runtime, [aggregate], service.clock.seconds() + 600);
    await expectFresh();
    await forceTradesOn(service.runtime, [aggregate], service.clock.seconds() + 86_000);
    await expectFresh();
  });
});
