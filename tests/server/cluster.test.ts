import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { streamLineSchema } from '../../src/shared/api/stream';
import { openReaderStore } from '../../src/service/store/open';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { readStream, type StreamReader } from '../support/stream';

/**
 * A cluster of real processes on a real PostgreSQL 15 and Redis 7: one ingest node (the simulator, the
 * single writer) and two API nodes. What the nodes share must hold across them: committed trades
 * reach streams on both, in order; answers agree; a key's one stream connection and its request
 * budget are the cluster's; nodes and engines can fail and come back.
 */
const KEYS = { a: 'cluster-ent-key-a', b: 'cluster-ent-key-b', c: 'cluster-ent-key-c', free: 'cluster-free-key-1' };
let pg: TestPostgres;
let redis: TestRedis;
let env: Record<string, string>;
let ingest: ServerProcess;
let api1: ServerProcess;
let api2: ServerProcess;
let aggregates: string[] = [];

const ingestArgs = ['--role', 'ingest', '--pools', '80', '--days', '0.2', '--test-controls'];
const get = (origin: string, path: string, key: string = KEYS.a) => fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
const stream = async (origin: string, key: string, pools: readonly string[]): Promise<StreamReader> =>
  readStream(await fetch(`${origin}/api/v1/tokens/stream`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(pools) }));
const block = async () => (await (await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).json()) as { trades: number };

/** Whether `key` can open a stream on `origin` now (its first line is a ping, not a refusal); closes it again. */
async function streamsAgain(origin: string, key: string): Promise<boolean> {
  const again = await stream(origin, key, aggregates.slice(0, 3));
  const line = await again.nextLine(5_000);
  await again.cancel();
  return line === JSON.stringify({ s: 'ok' });
}

/** Trade events of a stream until `count` arrived (pings skipped). */
async function events(reader: StreamReader, count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const line = await reader.nextLine(20_000);
    if (line === undefined) throw new Error(`the stream ended after ${out.length} events`);
    const parsed = streamLineSchema.parse(JSON.parse(line));
    if ('pool_id' in parsed) out.push(line);
  }
  return out;
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const url = await pg.createDatabase('cluster');
  env = { DATABASE_URL: url, REDIS_URL: redis.url, STREAM_LEASE_SECONDS: '2', TOKEN_API_KEYS: `${KEYS.a}:enterprise,${KEYS.b}:enterprise,${KEYS.c}:enterprise,${KEYS.free}:free` };
  ingest = await startServerProcess({ args: ingestArgs, env });
  [api1, api2] = await Promise.all([startServerProcess({ args: ['--role', 'api'], env }), startServerProcess({ args: ['--role', 'api'], env })]);
  const info = (await (await get(api1.origin, '/api/v1/symbol_info?group=Aggregate')).json()) as { ticker: string[] };
  aggregates = info.ticker;
}, 180_000);

afterAll(async () => {
  await Promise.all([ingest?.stop(), api1?.stop(), api2?.stop()]);
  await Promise.all([pg?.destroy(), redis?.destroy()]);
});

describe('a cluster: one ingest node, two API nodes, PostgreSQL and Redis', () => {
  it('serves only health on the ingest node; the API nodes serve the API and the gateway', async () => {
    expect((await fetch(`${ingest.origin}/healthz`)).status).toBe(200);
    expect((await get(ingest.origin, '/api/v1/groups')).status).toBe(404);
    expect((await get(api1.origin, '/api/v1/groups')).status).toBe(200);
    expect((await fetch(`${api2.origin}/gw/v1/info`)).status).toBe(200);
    expect(aggregates.length).toBeGreaterThan(10);
  });

  it('fans a committed trade out to stream clients on both API nodes, in order, none lost', async () => {
    const [s1, s2] = await Promise.all([stream(api1.origin, KEYS.a, aggregates), stream(api2.origin, KEYS.b, aggregates)]);
    let trades = 0;
    for (let i = 0; i < 5; i++) trades += (await block()).trades;
    const [e1, e2] = await Promise.all([events(s1, trades), events(s2, trades)]);
    expect(e1).toEqual(e2);
    await Promise.all([s1.cancel(), s2.cancel()]);
  }, 60_000);

  it('answers /history and /tokens/current the same on both nodes', async () => {
    const pool = aggregates[0] ?? '';
    const now = Math.floor(Date.now() / 1000);
    for (const path of [`/api/v1/history?symbol=${pool}&resolution=5min&from=${now - 86_400}&to=${now + 60}&include_tvl=true`, `/api/v1/tokens/current?pool=${pool}`]) {
      const [a, b] = await Promise.all([get(api1.origin, path), get(api2.origin, path)]);
      if (a.status !== 200) console.log(api1.output().slice(-3000));
      expect(a.status).toBe(200);
      expect(await a.json()).toEqual(await b.json());
    }
  });

  it('holds one stream connection per key across the cluster; the key connects again once the first closes', async () => {
    const first = await stream(api1.origin, KEYS.c, aggregates.slice(0, 3));
    await first.nextLine(5_000);
    const second = await stream(api2.origin, KEYS.c, aggregates.slice(0, 3));
    expect(await second.readToEnd(5_000)).toEqual([JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' })]);
    await first.cancel();
    await vi.waitUntil(() => streamsAgain(api2.origin, KEYS.c), { timeout: 10_000, interval: 200 });
  }, 30_000);

  it('shares a free key’s budget: the 429 comes after the plan’s count across both nodes together', async () => {
    let allowed = 0;
    let refused: Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const response = await get(i % 2 === 0 ? api1.origin : api2.origin, '/api/v1/groups', KEYS.free);
      if (response.status === 429) refused = response;
      else allowed++;
    }
    expect(allowed).toBe(60);
    expect(refused?.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(refused?.headers.get('RateLimit-Limit')).toBe('60');
    expect(priceErrorSchema.parse(await refused?.json()).errmsg).toMatch(/Rate limit exceeded/);
  }, 30_000);

  it('keeps serving on one API node when the other is killed -9; the dead node\'s stream lease expires', async () => {
    const held = await stream(api1.origin, KEYS.c, aggregates.slice(0, 3));
    await held.nextLine(5_000);
    expect(await (await stream(api2.origin, KEYS.c, aggregates.slice(0, 3))).readToEnd(5_000)).toEqual([JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' })]);
    await api1.stop();
    expect((await get(api2.origin, '/api/v1/groups')).status).toBe(200);
    // Nobody releases the dead node's lease: it expires (STREAM_LEASE_SECONDS=2 here, 30 by default).
    await vi.waitUntil(() => streamsAgain(api2.origin, KEYS.c), { timeout: 15_000, interval: 500 });
    api1 = await startServerProcess({ args: ['--role', 'api'], env });
  }, 60_000);

  it('loses or doubles nothing when the writer is killed -9 mid-block and restarted: bars equal a rebuild', async () => {
    const s2 = await stream(api2.origin, KEYS.b, aggregates);
    const blocks = Array.from({ length: 5 }, () => fetch(`${ingest.origin}/__test__/block`, { method: 'POST' }).catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await ingest.stop();
    await Promise.all(blocks);
    ingest = await startServerProcess({ args: ingestArgs, env });
    // The stream carries on across the writer's restart (a resync, marked in health).
    const trades = (await block()).trades;
    expect((await events(s2, trades)).length).toBe(trades);
    await s2.cancel();
    const store = await openReaderStore(env.DATABASE_URL ?? '');
    try {
      const list = await store.trades.list();
      expect(new Set(list.map((t) => t.eventId)).size).toBe(list.length);
      const bars = await store.bars.all();
      await store.bars.rebuild();
      expect(await store.bars.all()).toEqual(bars);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('resumes streams after a Redis restart, with the gap marked', async () => {
    const s1 = await stream(api1.origin, KEYS.a, aggregates);
    await redis.stop();
    await redis.start();
    await vi.waitUntil(async () => ((await (await fetch(`${api1.origin}/healthz`)).json()) as { cluster: { gaps: number; redis: boolean } }).cluster.gaps > 0, { timeout: 20_000, interval: 200 });
    // Publishing reconnects too: blocks until events flow again.
    let got = 0;
    await vi.waitUntil(
      async () => {
        const trades = (await block()).trades;
        got = (await events(s1, trades).catch(() => [])).length;
        return got > 0;
      },
      { timeout: 20_000, interval: 500 },
    );
    expect(got).toBeGreaterThan(0);
    await s1.cancel();
  }, 60_000);

  it('answers 503 in each family’s shape while PostgreSQL is down (never a hang or a 500), and recovers', async () => {
    await pg.stop();
    try {
      const now = Math.floor(Date.now() / 1000);
      const history = await get(api1.origin, `/api/v1/history?symbol=${aggregates[1]}&resolution=1min&from=${now - 7 * 86_400}&to=${now - 6 * 86_400}`);
      expect(history.status).toBe(503);
      expect(priceErrorSchema.parse(await history.json()).s).toBe('error');
      const tokens = await get(api2.origin, `/api/v1/tokens/current?pool=${aggregates[2]}`);
      expect(tokens.status).toBe(503);
      expect(tokenErrorSchema.parse(await tokens.json()).detail[0]?.type).toBe('service_unavailable');
    } finally {
      await pg.start();
    }
    await vi.waitUntil(async () => (await get(api1.origin, '/api/v1/groups')).status === 200 && (await get(api1.origin, `/api/v1/tokens/current?pool=${aggregates[2]}`)).status === 200, {
      timeout: 30_000,
      interval: 500,
    }).catch((error: unknown) => {
      console.log(api1.output().slice(-4000));
      throw error;
    });
    // The writer survived PostgreSQL's stop (its lock session was cut), took its lock back and commits again.
    await vi.waitUntil(async () => (await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).status === 200, { timeout: 30_000, interval: 500 }).catch((error: unknown) => {
      console.log(ingest.output().slice(-4000));
      throw error;
    });
    expect(ingest.output()).toMatch(/the writer lost its PostgreSQL session/);
    expect(ingest.output()).toMatch(/the writer lock is held again/);
    // And it still holds it: a second writer is refused.
    await expect(startServerProcess({ args: ingestArgs, env })).rejects.toThrow(/is in use by another writer/);
  }, 120_000);
});
