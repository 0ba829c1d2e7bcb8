import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyResponseSchema, type HistoryResponse } from '../../src/shared/api/history';
import { RESOLUTIONS, type Resolution } from '../../src/shared/resolutions';
import { API, createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';
import { ensureDefined } from '../support/ensure';
import { baseUnit, wholeStep } from '../support/market';

/**
 * /history is served from cached, pre-serialised chunks: it must always equal the bars in the store,
 * whatever the range's edges, and follow every commit.
 */
let service: TestService;
let series: { id: number; poolId: string }[];

beforeAll(async () => {
  service = await createTestService({ pools: 200, days: 6 });
  const market = service.runtime.market;
  const busiest = [...market.pairs.values()].sort((a, b) => b.aggregate.baseReserve - a.aggregate.baseReserve)[0];
  if (!busiest) throw new Error('no pairs');
  series = [busiest.aggregate, ...busiest.pools].map((p) => ({ id: p.id, poolId: p.poolId }));
});

afterAll(async () => service.close());

/** The bars straight from the store, in the wire's shape. */
async function fromStore(
  id: number,
  resolution: Resolution,
  from: number,
  to: number,
  includeTvl: boolean,
): Promise<HistoryResponse> {
  const rows = await runtimeInternals(service.runtime).store.bars.range(id, resolution, from, to);
  // Stored raw: prices and TVLs in whole units of the pair's decimals, volumes divided by its base unit.
  const pool = ensureDefined(service.runtime.market.poolsById.get(id));
  const whole = (r: (typeof rows)[number], price: number) =>
    wholeStep(pool)({ block_time: r[0], previous_price: price, current_price: price, current_tvl: r[6], volume: 0 });
  const body: HistoryResponse = {
    s: 'ok',
    t: rows.map((r) => r[0]),
    o: rows.map((r) => whole(r, r[1]).current_price),
    h: rows.map((r) => whole(r, r[2]).current_price),
    l: rows.map((r) => whole(r, r[3]).current_price),
    c: rows.map((r) => whole(r, r[4]).current_price),
    v: rows.map((r) => r[5] / baseUnit(pool)),
  };
  if (includeTvl) body.tvl = rows.map((r) => whole(r, 1).current_tvl);
  return body;
}

async function history(poolId: string, resolution: Resolution, from: number, to: number, includeTvl: boolean) {
  const response = await service.request(
    `${API}/history?symbol=${poolId}&resolution=${resolution}&from=${from}&to=${to}&include_tvl=${includeTvl}`,
  );
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
  return historyResponseSchema.parse(await response.json());
}

describe('history served from cached chunks', () => {
  it('equals the stored bars for ranges cutting through chunks anywhere', async () => {
    const now = service.clock.seconds();
    const start = now - 6 * 86_400;
    const edges = [
      start - 1000,
      start + 37,
      start + 86_400,
      start + 86_400 * 2 + 59,
      now - 7_777,
      now - 61,
      now,
      now + 3600,
    ];
    for (const resolution of RESOLUTIONS) {
      for (const s of series.slice(0, 2)) {
        for (let i = 0; i < edges.length; i++) {
          for (let j = i + 1; j < edges.length; j++) {
            const from = edges[i] ?? 0;
            const to = edges[j] ?? 0;
            const includeTvl = (i + j) % 2 === 0;
            expect(await history(s.poolId, resolution, from, to, includeTvl)).toEqual(
              await fromStore(s.id, resolution, from, to, includeTvl),
            );
          }
        }
      }
    }
  });

  it('follows live trades: a cached range shows the new bars after each commit', async () => {
    const [aggregate] = series;
    if (!aggregate) throw new Error('no series');
    const from = service.clock.seconds() - 86_400;
    const to = () => service.clock.seconds() + 86_400;
    for (const resolution of RESOLUTIONS) await history(aggregate.poolId, resolution, from, to(), true);
    const tradesOf = async () =>
      (await runtimeInternals(service.runtime).store.trades.list({ agg: aggregate.id })).length;
    const before = await tradesOf();
    let changes = 0;
    for (let block = 0; block < 2000 && changes < 8; block++) {
      service.clock.advanceSeconds(37);
      const seen = await tradesOf();
      await service.runtime.simulator.forceBlock(service.clock.seconds());
      if ((await tradesOf()) === seen) continue;
      changes++;
      for (const resolution of RESOLUTIONS) {
        expect(await history(aggregate.poolId, resolution, from, to(), true)).toEqual(
          await fromStore(aggregate.id, resolution, from, to(), true),
        );
      }
    }
    expect((await tradesOf()) - before).toBeGreaterThanOrEqual(8);
  });

  it('serves countback from the cache: the last N bars before to', async () => {
    const [aggregate] = series;
    if (!aggregate) throw new Error('no series');
    const to = service.clock.seconds() - 3 * 3600 + 17;
    const response = await service.request(
      `${API}/history?symbol=${aggregate.poolId}&resolution=5min&to=${to}&countback=50`,
    );
    const body = historyResponseSchema.parse(await response.json());
    const all = await fromStore(aggregate.id, '5min', 0, to, false);
    expect(body.t).toEqual(all.t.slice(-50));
    expect(body.c).toEqual(all.c.slice(-50));
  });
});
