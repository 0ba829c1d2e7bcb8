import { wholePrice } from '../../../src/service/market/units';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotTime } from '../../../src/service/chain/block';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { parseServiceConfig } from '../../../src/service/config';
import { createServiceRuntime } from '../../../src/service/runtime';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import type { ServiceRuntime } from '../../../src/service/service-runtime';
import { historyResponseSchema } from '../../../src/shared/api/history';
import { registryValue } from '../../support/metrics';
import { syntheticBlocks, syntheticPoolId, syntheticPools, type ChainCursor } from '../../support/synthetic-chain';

/**
 * Issue 45: a rollback drops only the cached /history it touches — the chunks of the pools it put back
 * (and their Aggregates) from the point's time on — not the whole cache: a storm of rollbacks on one
 * pool leaves every other chart's history cached. What it drops is read again and equals the store.
 */
const KEY = 'rollback-cache-key-0001';
const START: ChainCursor = { slot: 120_000_000, id: 'ee'.repeat(32), height: 0 };
let dir: string;
let runtime: ServiceRuntime;
let ingest: ChainIngest;
const registry = new Registry();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rollback-cache-'));
  runtime = await createServiceRuntime(
    parseServiceConfig(
      { 'data-dir': dir, source: 'none', 'store-check': 'off' },
      { TOKEN_API_KEYS: `${KEY}:enterprise` },
    ),
    { nowMs: () => (slotTime(START.slot) + 3_600) * 1000, metrics: registry },
  );
  ingest = await ChainIngest.open(runtimeInternals(runtime).ingestor, runtimeInternals(runtime).store.market);
  ingest.startAt(START);
});
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const lookups = async (result: 'hit' | 'miss') =>
  (await registryValue(registry, 'cdx_history_cache_lookups_total', { result })) ?? 0;

async function history(poolId: string, resolution: '1min' | '1d') {
  const from = slotTime(START.slot) - 86_400;
  const to = slotTime(START.slot) + 86_400;
  const answer = await runtime.app.request(
    `/api/v1/history?symbol=${poolId}&resolution=${resolution}&from=${from}&to=${to}`,
    { headers: { Authorization: `Bearer ${KEY}` } },
  );
  expect(answer.status).toBe(200);
  return historyResponseSchema.parse(await answer.json());
}

describe('a rollback and the /history cache', () => {
  it("drops the chunks of the pools it put back from its point on, and keeps every other pool's", async () => {
    const pools = syntheticPools(2);
    const cursor = { ...START };
    // Both pools created, then both trade, then only the first one does.
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 4, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 5, { updates: 1, sequential: true }),
    ];
    for (const block of chain) await ingest.applyBlock(fromOgmiosBlock(block));
    const [busy, quiet] = pools.map((pool) => syntheticPoolId(pool));
    const market = runtime.market;
    const aggregateOf = (poolId: string) => market.pools.get(poolId)?.pair.aggregate.poolId ?? '';
    const charts = [busy, aggregateOf(busy ?? ''), quiet, aggregateOf(quiet ?? '')] as string[];
    const before = new Map<string, unknown>();
    for (const poolId of charts)
      for (const resolution of ['1min', '1d'] as const)
        before.set(`${poolId}:${resolution}`, await history(poolId, resolution));
    // The last five blocks traded the busy pool alone: undo them.
    const point = chain[4];
    expect(await ingest.rollBackTo({ slot: point?.slot ?? 0, id: point?.id ?? '' })).toBe(5);
    const [hits, misses] = [await lookups('hit'), await lookups('miss')];
    // The quiet pool and its Aggregate: every chunk still cached, the same answer.
    for (const poolId of charts.slice(2))
      for (const resolution of ['1min', '1d'] as const)
        expect(await history(poolId, resolution)).toEqual(before.get(`${poolId}:${resolution}`));
    expect(await lookups('miss')).toBe(misses);
    expect(await lookups('hit')).toBeGreaterThan(hits);
    // The busy pool and its Aggregate: read again, without the undone trades, as the store has them.
    const cut = slotTime(point?.slot ?? 0);
    for (const poolId of charts.slice(0, 2)) {
      const after = await history(poolId, '1min');
      expect(after).not.toEqual(before.get(`${poolId}:1min`));
      expect(after.t.every((t) => t <= cut)).toBe(true);
      const pool = market.pools.get(poolId);
      const stored = await runtimeInternals(runtime).store.bars.range(pool?.id ?? -1, '1min', 0, cut + 86_400);
      expect(after.t).toEqual(stored.map((row) => row[0]));
      // Stored raw, served in whole units of the decimals known (market/units.ts).
      expect(after.c).toEqual(stored.map((row) => (pool ? wholePrice(pool.pair, row[4] ?? NaN) : NaN)));
    }
    expect(await lookups('miss')).toBeGreaterThan(misses);
  });
});
