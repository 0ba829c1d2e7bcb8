import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMIT_CHANNEL, type CommitMessage } from '../../src/service/cluster/bus';
import { COMMIT_POSITION_META } from '../../src/service/store/ports';
import { parseServiceConfig } from '../../src/service/config';
import { LOGO_NONE } from '../../src/service/market/model';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';
import { holdTable } from '../support/postgres-faults';
import { runtimeInternals } from '../../src/service/runtime-internals';

/**
 * An API node in-process on a real PostgreSQL 15 and Redis 7, against a writer in-process that tells
 * it nothing by itself: the test publishes the commit messages, so it decides which arrive, which are
 * lost, and when, while a table lock holds the node's reload from the store in the middle.
 */
const KEY = 'api-node-test-key';
let pg: TestPostgres;
let redis: TestRedis;
let url: string;
let writer: ServiceRuntime;
let node: ServiceRuntime;
let bus: Redis;
const dirs: string[] = [];
let seq = 0;

const dir = () => {
  const made = mkdtempSync(join(tmpdir(), 'api-node-'));
  dirs.push(made);
  return made;
};

/** Publishes a message of a writer named "test"; `skip` leaves numbers out (lost messages: a gap). */
async function publish(message: Omit<CommitMessage, 'writer' | 'seq'>, skip = 0): Promise<void> {
  seq += 1 + skip;
  await bus.publish(COMMIT_CHANNEL, JSON.stringify({ writer: 'test', seq, ...message }));
}

const health = async () =>
  ((await (await node.app.request('/healthz')).json()) as { cluster: { resyncs: number; gaps: number } }).cluster;
const tokensCurrent = async (runtime: ServiceRuntime, pool: string) =>
  (
    await runtime.app.request(`/api/v1/tokens/current?pool=${pool}`, { headers: { Authorization: `Bearer ${KEY}` } })
  ).json();

/** Waits until the node's reload from the store is held up by the lock (it has begun its snapshot). */
async function reloadHeld(hold: { waiting(): Promise<number[]> }): Promise<void> {
  await vi.waitUntil(async () => (await hold.waiting()).length > 0, { timeout: 10_000, interval: 20 });
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  url = await pg.createDatabase('api_node');
  const env = { DATABASE_URL: url, TOKEN_API_KEYS: `${KEY}:enterprise` };
  writer = await createServiceRuntime(parseServiceConfig({ 'data-dir': dir(), pools: '60', days: '0.1' }, env));
  node = await createServiceRuntime(
    parseServiceConfig({ 'data-dir': dir(), role: 'api' }, { ...env, REDIS_URL: redis.url }),
  );
  bus = new Redis(redis.url);
  // Subscribed and loaded once.
  await vi.waitUntil(async () => (await health()).resyncs >= 1, { timeout: 10_000, interval: 50 });
  await publish({ records: [], reserves: [], resync: false });
}, 120_000);

afterAll(async () => {
  bus?.disconnect();
  await node?.close();
  await writer?.close();
  await Promise.all([pg?.destroy(), redis?.destroy()]);
  for (const made of dirs) rmSync(made, { recursive: true, force: true });
});

describe('an API node reloading from the store', () => {
  it('keeps what messages brought during a reload that its older snapshot lacks', async () => {
    const resyncs = (await health()).resyncs;
    // The reload's snapshot begins with its first read (tokens); it then waits at pairs.
    const hold = await holdTable(url, 'pairs');
    try {
      await publish({ records: [], reserves: [], resync: false }, 1);
      await reloadHeld(hold);
      // A block committed and announced while the reload waits: the snapshot does not hold it.
      const before = (await runtimeInternals(writer).store.trades.list()).at(-1)?.seq ?? 0;
      await writer.simulator.forceBlock(Date.now() / 1000);
      const trades = await runtimeInternals(writer).store.trades.list({ afterSeq: before });
      const pools = [...new Set(trades.flatMap((t) => [t.pool, t.agg]))]
        .map((id) => writer.market.poolsById.get(id))
        .filter((p) => p !== undefined);
      await publish({
        records: trades,
        reserves: pools.map((p) => ({ id: p.id, base: p.baseReserve, quote: p.quoteReserve })),
        resync: false,
      });
      const aggregate = writer.market.poolsById.get(trades[0]?.agg ?? -1)?.poolId ?? '';
      await vi.waitUntil(
        async () =>
          JSON.stringify(await tokensCurrent(node, aggregate)) ===
          JSON.stringify(await tokensCurrent(writer, aggregate)),
        { timeout: 5_000, interval: 20 },
      );
    } finally {
      await hold.close();
    }
    await vi.waitUntil(async () => (await health()).resyncs > resyncs, { timeout: 10_000, interval: 20 });
    // After the reload: the announced block is still there, for every pool it touched.
    for (const pool of writer.market.pools.values()) {
      if (pool.group !== 'Aggregate') continue;
      expect(await tokensCurrent(node, pool.poolId)).toEqual(await tokensCurrent(writer, pool.poolId));
    }
  });

  it('reloads again for a gap seen while a reload runs (that reload may have read the store before the missed commit)', async () => {
    const hold = await holdTable(url, 'pools');
    const unit = `${'ab'.repeat(28)}${Buffer.from(`gap${Date.now()}`).toString('hex')}`;
    try {
      await publish({ records: [], reserves: [], resync: false }, 1);
      await reloadHeld(hold);
      // Committed while the reload waits, after its snapshot began; its message is lost.
      runtimeInternals(writer).ingestor.addToken({
        unit,
        ticker: 'GAP',
        name: 'Gap token',
        decimals: 0,
        logoKind: LOGO_NONE,
      });
      await runtimeInternals(writer).ingestor.commit();
      await publish({ records: [], reserves: [], resync: false }, 1);
    } finally {
      await hold.close();
    }
    await vi.waitUntil(() => node.market.tokens.has(unit), { timeout: 10_000, interval: 20 });
  });

  it("applies no message its snapshot already holds: the writer's position is read in the same snapshot", async () => {
    // Reserves a message of an earlier commit carries must not replace the newer ones the store has.
    const aggregate = [...writer.market.pools.values()].find((p) => p.group === 'Aggregate');
    if (!aggregate) throw new Error('no Aggregate');
    const dex = aggregate.pair.pools.find((p) => p.group !== 'Aggregate');
    if (!dex) throw new Error('no DEX pool');
    const stale = { id: dex.id, base: dex.baseReserve * 2, quote: dex.quoteReserve * 2 };
    const first = (await health()).resyncs;
    const hold = await holdTable(url, 'pairs');
    try {
      await publish({ records: [], reserves: [], resync: false }, 1);
      await reloadHeld(hold);
      // A message whose commit the snapshot will hold: the store's position names it.
      await runtimeInternals(writer).ingestor.commit({ meta: { [COMMIT_POSITION_META]: `test#${seq + 1}` } });
      await publish({ records: [], reserves: [stale], resync: false });
    } finally {
      await hold.close();
    }
    // Its position was stamped after the snapshot began: the message is newer and stays applied.
    await vi.waitUntil(async () => (await health()).resyncs > first, { timeout: 10_000, interval: 20 });
    expect(node.market.poolsById.get(dex.id)?.baseReserve).toBe(stale.base);

    // Now one the snapshot holds: stamped before the reload begins, published while it waits.
    const resyncs = (await health()).resyncs;
    // The gap below takes number seq + 2; this commit is the next one's.
    await runtimeInternals(writer).ingestor.commit({ meta: { [COMMIT_POSITION_META]: `test#${seq + 3}` } });
    const second = await holdTable(url, 'pairs');
    try {
      await publish({ records: [], reserves: [], resync: false }, 1);
      await reloadHeld(second);
      await publish({ records: [], reserves: [{ ...stale, base: stale.base * 3 }], resync: false });
    } finally {
      await second.close();
    }
    await vi.waitUntil(async () => (await health()).resyncs > resyncs, { timeout: 10_000, interval: 20 });
    // The store's reserves (the writer's), not the message's.
    expect(node.market.poolsById.get(dex.id)?.baseReserve).toBe(dex.baseReserve);
  });
});
