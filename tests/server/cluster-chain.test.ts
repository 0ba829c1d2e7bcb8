import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExtendedStreamLine } from '../../src/shared/api/stream';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';
import { FakeOgmios } from '../support/fake-ogmios';
import type { OgmiosWireBlock } from '../support/prise';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { readStream, type StreamReader } from '../support/stream';
import {
  nextSyntheticBlock,
  syntheticBlocks,
  syntheticPoolId,
  syntheticPools,
  type ChainCursor,
} from '../support/synthetic-chain';

/**
 * A chain-fed cluster of real processes (PostgreSQL, Redis, an ingest node following a fake Ogmios, an
 * API node): a block that creates one pool and trades another (the market's structure changed, so the
 * API node reloads) still delivers its trade to the API node's streams, and a rollback reaches the API
 * node's streams that asked for it (`X-Stream-Extensions: rollback`), not the others.
 */
const KEY = 'cluster-chain-key-01';
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'ee'.repeat(32),
  height: 0,
  slot: 120_000_000,
  ancestor: 'genesis',
  transactions: [],
};

let pg: TestPostgres;
let redis: TestRedis;
let fake: FakeOgmios;
let ingest: ServerProcess;
let api: ServerProcess;
const pools = syntheticPools(3);
const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
let chain: OgmiosWireBlock[];

const OTHER_KEY = 'cluster-chain-key-02';
const stream = async (pool: string, extensions?: string, key = KEY): Promise<StreamReader> =>
  readStream(
    await fetch(`${api.origin}/api/v1/tokens/stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        ...(extensions ? { 'X-Stream-Extensions': extensions } : {}),
      },
      body: JSON.stringify([pool]),
    }),
  );
/** The next line that is not a ping. */
async function nextEvent(reader: StreamReader): Promise<ExtendedStreamLine> {
  for (;;) {
    const line = await reader.next(20_000);
    if (!('s' in line) || line.s !== 'ok') return line;
  }
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const url = await pg.createDatabase('cluster_chain');
  // The first two pools exist from the start; the third is created later, in a block that also trades the first.
  chain = [
    ANCHOR,
    ...syntheticBlocks(cursor, pools.slice(0, 2), 1, { updates: 2, sequential: true }),
    ...syntheticBlocks(cursor, pools.slice(0, 2), 2, { updates: 1, sequential: true }),
  ];
  fake = await FakeOgmios.start(chain);
  const env = { DATABASE_URL: url, REDIS_URL: redis.url, TOKEN_API_KEYS: `${KEY}:pro,${OTHER_KEY}:pro` };
  ingest = await startServerProcess({
    env,
    args: [
      '--role',
      'ingest',
      '--source',
      'chain',
      '--ogmios',
      fake.url,
      '--chain-start',
      `${ANCHOR.slot}.${ANCHOR.id}`,
    ],
  });
  api = await startServerProcess({ env, args: ['--role', 'api', '--source', 'chain'] });
  await vi.waitUntil(
    async () =>
      ((await (await fetch(`${ingest.origin}/healthz`)).json()) as { chain: { tipSlot: number } }).chain.tipSlot ===
      chain.at(-1)?.slot,
    { timeout: 30_000 },
  );
}, 90_000);
afterAll(async () => {
  await api?.stop();
  await ingest?.stop();
  await fake?.close();
  await Promise.all([pg?.destroy(), redis?.destroy()]);
});

/** The Aggregate pool of a synthetic pool, as the API node lists it. */
async function aggregateOf(index: number): Promise<string> {
  const poolId = syntheticPoolId(pools[index] as (typeof pools)[number]);
  const answer = (await (
    await fetch(`${api.origin}/api/x/pair-pools?pool=${poolId}`, { headers: { Authorization: `Bearer ${KEY}` } })
  ).json()) as { aggregate: { pool_id: string } };
  return answer.aggregate.pool_id;
}

describe('a chain-fed cluster', () => {
  it("delivers a block's trades to the API node's streams when the block also creates a pool (the node reloads)", async () => {
    const aggregate = await aggregateOf(0);
    const reader = await stream(aggregate);
    expect(await reader.next()).toEqual({ s: 'ok' });
    // One block: a swap on pool 0 and pool 2 first seen (created).
    const block = nextSyntheticBlock(cursor, [pools[0], pools[2]] as typeof pools, { updates: 2, sequential: true });
    fake.extend([block]);
    expect(await nextEvent(reader)).toMatchObject({ pool_id: aggregate, block_time: block.slot + 1_591_566_291 });
    await reader.cancel();
  });

  it("tells the API node's streams that asked of a rollback, naming the point, and not the others", async () => {
    const aggregate = await aggregateOf(1);
    const asked = await stream(aggregate, 'rollback');
    const spec = await stream(aggregate, undefined, OTHER_KEY);
    expect(await asked.next()).toEqual({ s: 'ok' });
    expect(await spec.next()).toEqual({ s: 'ok' });
    const point = chain.at(-1) as OgmiosWireBlock;
    const later = nextSyntheticBlock(cursor, pools.slice(1, 2), { updates: 1, sequential: true });
    fake.extend([later]);
    expect(await nextEvent(asked)).toMatchObject({ pool_id: aggregate });
    fake.rollBackTo(point.slot);
    expect(await nextEvent(asked)).toEqual({
      s: 'rollback',
      slot: point.slot,
      id: point.id,
      block_time: point.slot + 1_591_566_291,
    });
    // The spec's client got the trade, and nothing of the rollback (pings aside).
    expect(await nextEvent(spec)).toMatchObject({ pool_id: aggregate });
    expect(spec.drainBuffered().filter((line) => !('s' in line) || line.s !== 'ok')).toEqual([]);
    await asked.cancel();
    await spec.cancel();
  });
});
