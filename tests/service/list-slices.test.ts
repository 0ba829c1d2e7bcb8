import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../src/service/config';
import { forceTradesOn } from '../support/market';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { groupStatsSchema, spreadsSchema } from '../../src/shared/api/extensions';

/**
 * Issue 45: a whole-market list (the Aggregate's group-stats, 1.5 MB of JSON on the default market;
 * the spreads' prices) was made in one piece after each market change, 40-300 ms in which nothing
 * else was served: a flood asking lists kept every chart's /history waiting behind them. They are now
 * made in slices with the event loop served between them. Counted here as turns of the event loop
 * while one is made (not as time: a structural property, the same on any machine).
 */
let dir: string;
let runtime: ServiceRuntime;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'list-slices-'));
  runtime = await createServiceRuntime(
    parseServiceConfig({ 'data-dir': dir, pools: '6000', days: '1', seed: '3' }, {}),
  );
}, 120_000);
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The answer to `path`, and the turns the event loop made while it was made. */
async function turnsDuring(path: string): Promise<{ body: unknown; turns: number }> {
  let turns = 0;
  let counting = true;
  const turn = () => {
    turns++;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const answer = await runtime.app.request(path, { headers: { Authorization: `Bearer ${runtime.internalKey}` } });
  counting = false;
  expect(answer.status).toBe(200);
  return { body: await answer.json(), turns };
}

describe('whole-market lists are made in slices', () => {
  it("the Aggregate's group-stats: the event loop turns at least once per column and per 1,000 rows", async () => {
    const aggregate = [...runtime.market.pools.values()].filter((p) => p.group === 'Aggregate').length;
    expect(aggregate).toBeGreaterThan(2000);
    // A market change, so that the list is made now.
    const pool = [...runtime.market.pools.values()].find((p) => p.group === 'Aggregate');
    if (pool) await forceTradesOn(runtime, [pool], Math.floor(Date.now() / 1000));
    const { body, turns } = await turnsDuring('/api/x/group-stats?group=Aggregate');
    const stats = groupStatsSchema.parse(body);
    expect(stats.ticker).toHaveLength(aggregate);
    expect(turns).toBeGreaterThanOrEqual(9 + Math.floor(aggregate / 1000));
  });

  it("spreads: the pairs' prices are made with the event loop turning between slices", async () => {
    const pairs = runtime.market.pairs.size;
    expect(pairs).toBeGreaterThan(2000);
    const pool = [...runtime.market.pools.values()].find((p) => p.group === 'Aggregate');
    if (pool) await forceTradesOn(runtime, [pool], Math.floor(Date.now() / 1000));
    const { body, turns } = await turnsDuring('/api/x/spreads?min_tvl=1000');
    expect(spreadsSchema.parse(body).base).toHaveLength(pairs);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(pairs / 1000));
  });
});
