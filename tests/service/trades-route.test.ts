import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradesResponseSchema } from '../../src/shared/api/extensions';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { baseUnit, busiestPools, wholeStep } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** GET /api/x/trades: the trades tape's data, newest first, paged backwards, from the stored trades. */
let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 80, days: 0.5 });
});
afterAll(async () => service.close());

describe('GET /api/x/trades', () => {
  it('gives a DEX pool’s trades newest first, as stored, with side and amounts', async () => {
    const { dexPool } = await busiestPools(service.runtime);
    const body = tradesResponseSchema.parse(await service.getJson(`/api/x/trades?pool=${dexPool.poolId}&limit=5`));
    const stored = (await runtimeInternals(service.runtime).store.trades.list({ pool: dexPool.id }))
      .sort((a, b) => b.blockTime - a.blockTime || b.seq - a.seq)
      .slice(0, 5);
    expect(body.trades.map((t) => t.id)).toEqual(stored.map((t) => t.eventId));
    for (const [i, t] of body.trades.entries()) {
      const r = stored[i];
      if (!r) throw new Error('missing');
      // Stored raw, answered in whole units of the pair's decimals.
      const whole = wholeStep(dexPool)({
        block_time: r.blockTime,
        previous_price: r.prevPrice,
        current_price: r.price,
        current_tvl: r.tvl,
        volume: r.volume,
      });
      expect(t).toMatchObject({
        time: r.blockTime,
        pool_id: dexPool.poolId,
        group: dexPool.group,
        price: whole.current_price,
        previous_price: whole.previous_price,
        base_amount: r.volume / baseUnit(dexPool),
        tvl: whole.current_tvl,
      });
      expect(t.side).toBe(r.price >= r.prevPrice ? 'buy' : 'sell');
      expect(t.quote_amount).toBeCloseTo(t.base_amount / ((whole.current_price + whole.previous_price) / 2), 9);
    }
    expect(body.next).not.toBeNull();
  });

  it('pages backwards through every trade of an Aggregate (all its pools, with the DEX that traded), none twice', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&before=${cursor}`;
      const page = tradesResponseSchema.parse(
        await service.getJson(`/api/x/trades?pool=${aggregate.poolId}&limit=37${query}`),
      );
      for (const t of page.trades) {
        expect(aggregate.pair.pools.map((p) => p.poolId)).toContain(t.pool_id);
        seen.push(t.id);
      }
      cursor = page.next;
    } while (cursor !== null);
    const all = await runtimeInternals(service.runtime).store.trades.list({ agg: aggregate.id });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(all.length);
  });

  it('refuses bad input in the price family’s shape', async () => {
    for (const [query, status, message] of [
      ['', 400, /pool is required/],
      ['pool=xyz', 400, /hex pool ID/],
      ['pool=abcd&limit=0', 400, /at least 1/],
      ['pool=abcd&limit=501', 400, /at most 500/],
      ['pool=abcd&before=nope', 400, /cursor/],
      ['pool=abcd', 404, /Unknown pool/],
    ] as const) {
      const response = await service.request(`/api/x/trades?${query}`);
      expect(response.status, query).toBe(status);
      expect(priceErrorSchema.parse(await response.json()).errmsg).toMatch(message);
    }
    expect((await service.request('/api/x/trades?pool=abcd', { key: null })).status).toBe(401);
  });

  it('is listed in GET /api/x', async () => {
    const index = (await service.getJson('/api/x')) as { routes: string[] };
    expect(index.routes).toContain('trades');
  });
});
