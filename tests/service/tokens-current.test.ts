import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenErrorSchema } from '../../src/shared/api/errors';
import { tokenStatsSchema, type TokenStats } from '../../src/shared/api/tokens';
import { poolPrice, type Pool } from '../../src/service/market/model';
import { fakeHex, tokensCurrentPath, UNKNOWN_POOL, UNKNOWN_TOKEN } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { expectClose } from '../support/expect-close';
import { baseUnit, busiestPools, storedTrades, wholeStep, type StoredTrade } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let aggregate: Pool;
let dexPool: Pool;

beforeAll(async () => {
  service = await createTestService();
  ({ aggregate, dexPool } = await busiestPools(service.runtime, { adaPairsOnly: true }));
});
afterAll(async () => service.close());

async function stats(params: { policy?: string; pool?: string }): Promise<TokenStats> {
  return tokenStatsSchema.parse(await service.getJson(tokensCurrentPath(params)));
}

async function tokenError(path: string, status: number) {
  const response = await service.request(path);
  expect(response.status, path).toBe(status);
  return tokenErrorSchema.parse(await response.json());
}

interface Side {
  price: (t: StoredTrade) => number;
  prevPrice: (t: StoredTrade) => number;
  tvl: (t: StoredTrade) => number;
  prevTvl: (t: StoredTrade) => number;
}
const AGG: Side = {
  price: (t) => t.aggPrice,
  prevPrice: (t) => t.aggPrevPrice,
  tvl: (t) => t.aggTvl,
  prevTvl: (t) => t.aggPrevTvl,
};
const POOL: Side = {
  price: (t) => t.price,
  prevPrice: (t) => t.prevPrice,
  tvl: (t) => t.tvl,
  prevTvl: (t) => t.prevTvl,
};

/**
 * The statistics the decisions define, computed from the stored trades alone (raw units: prices and TVLs in whole
 * units of `pool`'s decimals through `wholeStep`, volumes summed raw and divided once).
 */
function expectedStats(trades: readonly StoredTrade[], rawSide: Side, now: number, pool: Pool): TokenStats {
  const whole = wholeStep(pool);
  const scaled = (t: StoredTrade) =>
    whole({
      block_time: t.blockTime,
      previous_price: rawSide.prevPrice(t),
      current_price: rawSide.price(t),
      current_tvl: rawSide.tvl(t),
      volume: 0,
    });
  const side: Side = {
    price: (t) => scaled(t).current_price,
    prevPrice: (t) => scaled(t).previous_price,
    tvl: (t) => scaled(t).current_tvl,
    prevTvl: (t) =>
      whole({ block_time: 0, previous_price: 1, current_price: 1, current_tvl: rawSide.prevTvl(t), volume: 0 })
        .current_tvl,
  };
  const last = ensureDefined(trades.at(-1));
  const stateAt = (at: number) => {
    const before = trades.filter((t) => t.blockTime <= at).at(-1);
    if (before) return { price: side.price(before), tvl: side.tvl(before) };
    const after = ensureDefined(trades.find((t) => t.blockTime > at));
    return { price: side.prevPrice(after), tvl: side.prevTvl(after) };
  };
  const volume = (since: number) =>
    trades.filter((t) => t.blockTime > since).reduce((s, t) => s + t.volume, 0) / baseUnit(pool);
  const price = side.price(last);
  const tvl = side.tvl(last);
  const hour = stateAt(now - 3600);
  const day = stateAt(now - 86_400);
  return {
    current_price: price,
    current_tvl: tvl,
    hourly_price_change: (price / hour.price - 1) * 100,
    hourly_tvl_change: tvl - hour.tvl,
    hourly_volume: volume(now - 3600),
    daily_price_change: (price / day.price - 1) * 100,
    daily_tvl_change: tvl - day.tvl,
    daily_volume: volume(now - 86_400),
  };
}

function expectStats(actual: TokenStats, expected: TokenStats): void {
  for (const key of Object.keys(expected) as (keyof TokenStats)[]) expectClose(actual[key], expected[key], 1e-9, key);
}

describe('GET /tokens/current', () => {
  it('describes a token by policy as its Aggregate ADA pair: percent price changes, absolute TVL changes, volume sums', async () => {
    const body = await stats({ policy: aggregate.pair.quote.unit });
    const trades = await storedTrades(service.runtime, { agg: aggregate.id });
    expectStats(body, expectedStats(trades, AGG, service.clock.now() / 1000, aggregate));
    expect(body.daily_volume).toBeGreaterThan(body.hourly_volume);
    expect(body.hourly_volume).toBeGreaterThan(0);
  });

  it('describes an Aggregate pool by pool ID the same as its token by policy', async () => {
    expect(await stats({ pool: aggregate.poolId })).toEqual(await stats({ policy: aggregate.pair.quote.unit }));
  });

  it('describes one DEX pool by pool ID', async () => {
    const body = await stats({ pool: dexPool.poolId });
    const trades = await storedTrades(service.runtime, { pool: dexPool.id });
    expectStats(body, expectedStats(trades, POOL, service.clock.now() / 1000, dexPool));
  });

  it('gives prices in ADA per whole token and TVL in whole ADA (twice the ADA reserve)', async () => {
    const snek = await stats({ policy: '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b' });
    expect(snek.current_price).toBeGreaterThan(0.001);
    expect(snek.current_price).toBeLessThan(0.02);
    const body = await stats({ pool: dexPool.poolId });
    expect(body.current_tvl).toBe((2 * dexPool.baseReserve) / 1e6);
    expect(body.current_price).toBe(poolPrice(dexPool));
  });

  it('moves the windows with the clock: after a quiet day the changes and volumes are zero', async () => {
    const quiet = await createTestService({ days: 1 });
    try {
      const { aggregate: pool } = await busiestPools(quiet.runtime, { adaPairsOnly: true });
      const before = tokenStatsSchema.parse(await quiet.getJson(tokensCurrentPath({ pool: pool.poolId })));
      quiet.clock.advanceSeconds(2 * 3600);
      const later = tokenStatsSchema.parse(await quiet.getJson(tokensCurrentPath({ pool: pool.poolId })));
      expect(later.current_price).toBe(before.current_price);
      expect(later.hourly_volume).toBe(0);
      expect(later.hourly_price_change).toBe(0);
      expect(later.hourly_tvl_change).toBe(0);
      expect(later.daily_volume).toBeGreaterThan(0);
      quiet.clock.advanceSeconds(25 * 3600);
      const dayLater = tokenStatsSchema.parse(await quiet.getJson(tokensCurrentPath({ pool: pool.poolId })));
      expect(dayLater).toMatchObject({
        daily_volume: 0,
        daily_price_change: 0,
        daily_tvl_change: 0,
        current_tvl: before.current_tvl,
      });
    } finally {
      quiet.close();
    }
  });

  it('accepts hex in upper case', async () => {
    expect(await stats({ policy: aggregate.pair.quote.unit.toUpperCase() })).toEqual(
      await stats({ policy: aggregate.pair.quote.unit }),
    );
    expect(await stats({ pool: dexPool.poolId.toUpperCase() })).toEqual(await stats({ pool: dexPool.poolId }));
  });
});

describe('GET /tokens/current on a market that changes', () => {
  it('answers 404 for a known token without an ADA pool, and describes a new pool without trades by its reserves', async () => {
    const { market } = service.runtime;
    const { ingestor } = runtimeInternals(service.runtime);
    const token = ingestor.addToken({
      unit: `${fakeHex(28, 'b')}41424344`,
      ticker: 'ABCD',
      name: 'Test',
      decimals: 6,
      logoKind: 0,
    });
    await ingestor.commit();
    const lonely = await tokenError(tokensCurrentPath({ policy: token.unit }), 404);
    expect(lonely.detail[0]?.msg).toMatch(/ADA pool/);

    const ada = ensureDefined(market.tokens.get(''));
    const pair = ingestor.ensurePair(ada, token);
    const pool = ingestor.addPool(pair, {
      poolId: fakeHex(28, 'f'),
      group: 'Minswap',
      baseReserve: 5_000e6,
      quoteReserve: 20_000e6,
      feeBps: 30,
      simulated: false,
    });
    await ingestor.commit();
    const body = await stats({ policy: token.unit.toUpperCase() });
    expect(body).toEqual({
      current_price: 0.25,
      current_tvl: 10_000,
      hourly_price_change: 0,
      hourly_tvl_change: 0,
      hourly_volume: 0,
      daily_price_change: 0,
      daily_tvl_change: 0,
      daily_volume: 0,
    });
    expect(await stats({ pool: pool.poolId })).toEqual(body);
  });
});

describe('GET /tokens/current errors', () => {
  it('answers 422 when both policy and pool are given', async () => {
    const body = await tokenError(
      tokensCurrentPath({ policy: aggregate.pair.quote.unit, pool: aggregate.poolId }),
      422,
    );
    expect(body.detail[0]?.loc[0]).toBe('query');
    await tokenError(tokensCurrentPath({ policy: '', pool: '' }), 422);
  });

  it('answers 422 when neither is given', async () => {
    const body = await tokenError(tokensCurrentPath({}), 422);
    expect(body.detail[0]?.type).toBe('missing');
  });

  it.each([
    ['empty', ''],
    ['too short', fakeHex(27)],
    ['odd length', `${fakeHex(28)}a`],
    ['not hex', `${fakeHex(28)}zz`],
    ['too long', fakeHex(61)],
    ['with spaces', ` ${fakeHex(28)}`],
  ])('answers 422 to a malformed policy (%s)', async (_case, policy) => {
    const body = await tokenError(tokensCurrentPath({ policy }), 422);
    expect(body.detail[0]?.loc).toEqual(['query', 'policy']);
    expect(body.detail[0]?.type).toBe('value_error');
  });

  it.each([
    ['empty', ''],
    ['odd length', 'abc'],
    ['not hex', 'xyz0'],
    ['too long', fakeHex(65)],
  ])('answers 422 to a malformed pool (%s)', async (_case, pool) => {
    const body = await tokenError(tokensCurrentPath({ pool }), 422);
    expect(body.detail[0]?.loc).toEqual(['query', 'pool']);
  });

  it('answers 404 to an unknown token or pool', async () => {
    expect((await tokenError(tokensCurrentPath({ policy: UNKNOWN_TOKEN }), 404)).detail[0]?.loc).toEqual([
      'query',
      'policy',
    ]);
    expect((await tokenError(tokensCurrentPath({ pool: UNKNOWN_POOL }), 404)).detail[0]?.loc).toEqual([
      'query',
      'pool',
    ]);
  });
});
