import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type ClientRequest } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { streamLineSchema, type TradeEvent } from '../../src/shared/api/stream';
import { parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import { buildMarket } from '../../src/service/market/load';
import type { Market } from '../../src/service/market/model';
import { wholeBase, wholePrice } from '../../src/service/market/units';
import { KeyStore } from '../../src/service/auth/keys';
import { openReaderStore } from '../../src/service/store/open';
import type { Store, TradeRecord } from '../../src/service/store/ports';
import { holdTable } from '../support/postgres-faults';
import { liveStatuses, SseReader } from '../support/sse';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { readStream, type StreamReader } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

/**
 * A cluster of real processes on a real PostgreSQL 15 and Redis 7: one ingest node (the simulator, the
 * single writer) and two API nodes. What the nodes share must hold across them: committed trades
 * reach streams on both, in order; answers agree; a key's one stream connection and its request
 * budget are the cluster's; nodes and engines can fail and come back.
 */
const KEYS = {
  a: 'cluster-ent-key-a',
  b: 'cluster-ent-key-b',
  c: 'cluster-ent-key-c',
  d: 'cluster-pro-key-d',
  free: 'cluster-free-key-1',
};
let pg: TestPostgres;
let redis: TestRedis;
let env: Record<string, string>;
let ingest: ServerProcess;
let api1: ServerProcess;
let api2: ServerProcess;
let aggregates: string[] = [];

const ingestArgs = ['--role', 'ingest', '--pools', '80', '--days', '0.2', '--test-controls'];
const get = (origin: string, path: string, key: string = KEYS.a) =>
  fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
const stream = async (origin: string, key: string, pools: readonly string[]): Promise<StreamReader> =>
  readStream(
    await fetch(`${origin}/api/v1/tokens/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(pools),
    }),
  );
const block = async () =>
  (await (await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).json()) as { trades: number };

/** A stream over a plain socket (node:http, as a program's client): its first line, and the request to destroy (the client's abort). */
function rawStream(
  origin: string,
  key: string,
  pools: readonly string[],
): Promise<{ first: string; req: ClientRequest }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/api/v1/tokens/stream',
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const newline = text.indexOf('\n');
          if (newline !== -1) resolve({ first: text.slice(0, newline), req });
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(JSON.stringify(pools));
  });
}

/** Whether `key` can open a stream on `origin` now (its first line is a ping, not a refusal); closes it again. */
async function streamsAgain(origin: string, key: string): Promise<boolean> {
  const again = await stream(origin, key, aggregates.slice(0, 3));
  const line = await again.nextLine(5_000);
  await again.cancel();
  return line === JSON.stringify({ s: 'ok' });
}

/** Collects a stream's trade events as they come (pings skipped) until stopped. */
function collectEvents(reader: StreamReader): { events: TradeEvent[]; stop(): void } {
  const events: TradeEvent[] = [];
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const line = await reader.nextLine(60_000).catch(() => undefined);
      if (line === undefined) return;
      const parsed = streamLineSchema.parse(JSON.parse(line));
      if ('pool_id' in parsed) events.push(parsed);
    }
  })();
  return {
    events,
    stop: () => {
      stopped = true;
      void reader.cancel().catch(() => undefined);
    },
  };
}

/**
 * Waits until `delivered` holds `expected` (the store's trades as events) and checks they came as one
 * run, in order, each once; only a block committed between opening the stream and reading the store
 * (a live one) may come before it.
 */
async function expectDelivered(delivered: { events: TradeEvent[] }, expected: readonly TradeEvent[]): Promise<void> {
  const first = JSON.stringify(expected[0]);
  let start = -1;
  await vi.waitUntil(
    () => {
      start = delivered.events.findIndex((e) => JSON.stringify(e) === first);
      return start >= 0 && delivered.events.length >= start + expected.length;
    },
    { timeout: 20_000, interval: 50 },
  );
  // Only what came before the store was read (a live block: a few trades) precedes the run.
  expect(start).toBeLessThan(50);
  expect(delivered.events.slice(start, start + expected.length)).toEqual(expected);
}

/** Pool IDs by series (row id), from the store. */
async function poolNames(store: Store): Promise<Market> {
  return buildMarket(await store.market.load());
}

/**
 * The stream event a stored trade makes (the service's own mapping: its Aggregate's state change, stored raw and
 * sent in whole units of the pair's decimals).
 */
function eventOf(t: TradeRecord, market: Market): TradeEvent {
  const aggregate = market.poolsById.get(t.agg);
  if (!aggregate)
    return {
      block_time: t.blockTime,
      pool_id: '',
      current_price: 0,
      previous_price: 0,
      current_tvl: 0,
      previous_tvl: 0,
      volume: 0,
    };
  const { pair } = aggregate;
  return {
    block_time: t.blockTime,
    pool_id: aggregate.poolId,
    current_price: wholePrice(pair, t.aggPrice),
    previous_price: wholePrice(pair, t.aggPrevPrice),
    current_tvl: wholeBase(pair, t.aggTvl),
    previous_tvl: wholeBase(pair, t.aggPrevTvl),
    volume: wholeBase(pair, t.volume),
  };
}

/** A node's readiness answer (/readyz): its status and checks. */
const readiness = async (origin: string) => {
  const answer = await fetch(`${origin}/readyz`);
  return { status: answer.status, checks: ((await answer.json()) as { checks: Record<string, string> }).checks };
};

/** An API node's link to the writer (its /healthz `cluster`). */
const cluster = async (origin: string) =>
  ((await (await fetch(`${origin}/healthz`)).json()) as { cluster: { gaps: number; redis: boolean; resyncs: number } })
    .cluster;

const lastSeq = async (store: Store) => (await store.trades.list()).at(-1)?.seq ?? 0;

const historyPath = (pool: string) => {
  const now = Math.floor(Date.now() / 1000);
  return `/api/v1/history?symbol=${pool}&resolution=1min&from=${now - 86_400}&to=${now + 600}&include_tvl=true`;
};

/**
 * `count` blocks committed by a writer that tells no API node (the service in-process on the cluster's
 * database, without Redis), while the ingest node is down; returns the seq range of their trades.
 */
async function unannouncedBlocks(count: number): Promise<{ from: number; to: number }> {
  const store = await openReaderStore(env.DATABASE_URL ?? '');
  // Its own catch-up at start is unannounced too.
  const from = await lastSeq(store).finally(() => store.close());
  const dir = mkdtempSync(join(tmpdir(), 'cluster-rogue-'));
  const config = parseServiceConfig(
    { 'data-dir': dir, pools: '80', days: '0.2' },
    { DATABASE_URL: env.DATABASE_URL, TOKEN_API_KEYS: env.TOKEN_API_KEYS },
  );
  const runtime = await createServiceRuntime(config);
  try {
    for (let i = 0; i < count; i++) await runtime.simulator.forceBlock(Date.now() / 1000);
    const to = (await runtimeInternals(runtime).store.trades.list()).at(-1)?.seq ?? 0;
    expect(to).toBeGreaterThan(from);
    return { from, to };
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const url = await pg.createDatabase('cluster');
  env = {
    DATABASE_URL: url,
    REDIS_URL: redis.url,
    STREAM_LEASE_SECONDS: '2',
    GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '30',
    TOKEN_API_KEYS: `${KEYS.a}:enterprise,${KEYS.b}:enterprise,${KEYS.c}:enterprise,${KEYS.d}:pro,${KEYS.free}:free`,
  };
  ingest = await startServerProcess({ args: ingestArgs, env });
  [api1, api2] = await Promise.all([
    startServerProcess({ args: ['--role', 'api'], env }),
    startServerProcess({ args: ['--role', 'api'], env }),
  ]);
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

  it("fans committed trades out to stream clients on both API nodes: the store's trades, in order, none lost", async () => {
    const [s1, s2] = await Promise.all([
      stream(api1.origin, KEYS.a, aggregates),
      stream(api2.origin, KEYS.b, aggregates),
    ]);
    await Promise.all([s1.nextLine(5_000), s2.nextLine(5_000)]);
    const [d1, d2] = [collectEvents(s1), collectEvents(s2)];
    const store = await openReaderStore(env.DATABASE_URL ?? '');
    try {
      const from = await lastSeq(store);
      for (let i = 0; i < 5; i++) await block();
      const names = await poolNames(store);
      const expected = (await store.trades.list({ afterSeq: from })).map((t) => eventOf(t, names));
      expect(expected.length).toBeGreaterThanOrEqual(5);
      for (const delivered of [d1, d2]) await expectDelivered(delivered, expected);
    } finally {
      d1.stop();
      d2.stop();
      await store.close();
    }
  }, 60_000);

  it('answers /history and /tokens/current the same on both nodes', async () => {
    const pool = aggregates[0] ?? '';
    const now = Math.floor(Date.now() / 1000);
    for (const path of [
      `/api/v1/history?symbol=${pool}&resolution=5min&from=${now - 86_400}&to=${now + 60}&include_tvl=true`,
      `/api/v1/tokens/current?pool=${pool}`,
    ]) {
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
    expect(await second.readToEnd(5_000)).toEqual([
      JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' }),
    ]);
    await first.cancel();
    // Released on api1: the key connects again on the other node, and on the same one.
    await vi.waitUntil(() => streamsAgain(api2.origin, KEYS.c), { timeout: 10_000, interval: 200 });
    await vi.waitUntil(() => streamsAgain(api1.origin, KEYS.c), { timeout: 10_000, interval: 200 });
  }, 30_000);

  it('hands a key’s stream over across the nodes: 50 aborts each followed at once by a stream on the other node, none refused', async () => {
    let refused = 0;
    let current = await rawStream(api1.origin, KEYS.d, aggregates.slice(0, 2));
    expect(current.first).toBe(JSON.stringify({ s: 'ok' }));
    for (let i = 1; i <= 50; i++) {
      // The client's abort and its next stream leave together: the next reaches the other node before the close reaches the first.
      current.req.destroy();
      current = await rawStream((i % 2 === 0 ? api1 : api2).origin, KEYS.d, aggregates.slice(i % 3, (i % 3) + 2));
      if (current.first !== JSON.stringify({ s: 'ok' })) refused++;
    }
    current.req.destroy();
    expect(refused).toBe(0);
  }, 60_000);

  it('shares a free key’s budget: the 429 comes after the plan’s count across both nodes together, as on one process', async () => {
    let allowed = 0;
    let refused: Response | undefined;
    const started = Date.now();
    for (let i = 0; i < 200 && !refused; i++) {
      const response = await get(i % 2 === 0 ? api1.origin : api2.origin, '/api/v1/groups', KEYS.free);
      if (response.status === 429) refused = response;
      else allowed++;
    }
    const spent = (Date.now() - started) / 1000;
    // 60 a one-minute window, counted once for both nodes (a node of its own would allow 60 more).
    expect(allowed).toBe(60);
    // The headers one process answers with (tests/service/rate-limit.test.ts): the window closes a
    // minute after its first request, and Retry-After says when.
    const retry = Number(refused?.headers.get('Retry-After'));
    expect(retry).toBeGreaterThanOrEqual(Math.floor(60 - spent - 1));
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused?.headers.get('RateLimit-Reset')).toBe(String(retry));
    expect(refused?.headers.get('RateLimit-Limit')).toBe('60');
    expect(refused?.headers.get('RateLimit-Remaining')).toBe('0');
    expect(priceErrorSchema.parse(await refused?.json()).errmsg).toMatch(/Rate limit exceeded/);
  }, 30_000);

  it('limits a browser address on /gw/v1 across both nodes', async () => {
    let allowed = 0;
    let refused: Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const response = await fetch(`${i % 2 === 0 ? api1.origin : api2.origin}/gw/v1/groups`);
      if (response.status === 429) refused = response;
      else allowed++;
      await response.arrayBuffer();
    }
    // GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS=30 here: one budget (a node of its own would allow 30 more);
    // the earlier tests' requests from this address in the same minute count too.
    expect(allowed).toBeGreaterThan(20);
    expect(allowed).toBeLessThanOrEqual(30);
    expect(refused?.headers.get('RateLimit-Limit')).toBe('30');
    expect(Number(refused?.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
  }, 30_000);

  it("keeps serving on one API node when the other is killed -9; the dead node's stream lease expires", async () => {
    const held = await stream(api1.origin, KEYS.c, aggregates.slice(0, 3));
    await held.nextLine(5_000);
    expect(await (await stream(api2.origin, KEYS.c, aggregates.slice(0, 3))).readToEnd(5_000)).toEqual([
      JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' }),
    ]);
    await api1.stop();
    expect((await get(api2.origin, '/api/v1/groups')).status).toBe(200);
    // A route the store answers, not only memory.
    const history = await get(api2.origin, historyPath(aggregates[0] ?? ''));
    expect(history.status).toBe(200);
    expect(((await history.json()) as { s: string; t: number[] }).t.length).toBeGreaterThan(0);
    // Nobody releases the dead node's lease: it expires (STREAM_LEASE_SECONDS=2 here, 30 by default).
    await vi.waitUntil(() => streamsAgain(api2.origin, KEYS.c), { timeout: 15_000, interval: 500 });
    api1 = await startServerProcess({ args: ['--role', 'api'], env });
  }, 60_000);

  it('loses or doubles nothing when the writer is killed -9 mid-block and restarted; the API nodes then answer as the store', async () => {
    const reader = await stream(api2.origin, KEYS.b, aggregates);
    await reader.nextLine(5_000);
    const delivered = collectEvents(reader);
    const store = await openReaderStore(env.DATABASE_URL ?? '');
    try {
      const firstSeq = await lastSeq(store);
      const probe = aggregates.slice(0, 6);
      // Answers the nodes cache: after the restart they must not be stale.
      const paths = probe.flatMap((pool) => [`/api/v1/tokens/current?pool=${pool}`, historyPath(pool)]);
      for (const path of paths)
        for (const origin of [api1.origin, api2.origin]) expect((await get(origin, path)).status).toBe(200);
      for (let i = 0; i < 3; i++) await block();

      // Mid-block: the writer's commit waits inside its transaction (trades written, its state not yet),
      // held up by a lock on sim_state; the writer dies there.
      const hold = await holdTable(env.DATABASE_URL ?? '', 'sim_state');
      try {
        const inFlight = fetch(`${ingest.origin}/__test__/block`, { method: 'POST' }).catch(() => undefined);
        await vi.waitUntil(async () => (await hold.waiting()).length > 0, { timeout: 20_000, interval: 50 });
        await ingest.stop();
        await inFlight;
        await hold.release();
        // PostgreSQL ends the dead writer's session (and frees its lock) once it reads the closed socket.
        await vi.waitUntil(async () => !(await hold.writerLockHeld()), { timeout: 20_000, interval: 100 });
      } finally {
        await hold.close();
      }
      // The block in flight is wholly absent (its transaction never committed): no trade of a block at
      // or past the simulator state the store holds (trade ids are sim:<block height>:<n>).
      const height = (await store.sim.load())?.height ?? 0;
      const afterKill = await store.trades.list({ afterSeq: firstSeq });
      expect(afterKill.length).toBeGreaterThan(0);
      expect(afterKill.filter((t) => Number(/^sim:(\d+):/.exec(t.eventId)?.[1]) >= height)).toEqual([]);

      // Commits the API nodes are never told of (as a writer killed between a commit and its message):
      // a writer of its own, without Redis, trades while the ingest node is down.
      const unannounced = await unannouncedBlocks(5);
      ingest = await startServerProcess({ args: ingestArgs, env });
      for (let i = 0; i < 3; i++) await block();

      // Nothing lost or doubled: every trade in the store once; the stream delivered each trade the
      // announced commits made, in order, and nothing else (the unannounced ones are a gap, not replayed).
      const trades = await store.trades.list({ afterSeq: firstSeq });
      const all = await store.trades.list();
      expect(new Set(all.map((t) => t.eventId)).size).toBe(all.length);
      expect(await store.trades.count()).toBe(all.length);
      const names = await poolNames(store);
      const expected = trades
        .filter((t) => t.seq <= unannounced.from || t.seq > unannounced.to)
        .map((t) => eventOf(t, names));
      await expectDelivered(delivered, expected);
      delivered.stop();

      // The API nodes reloaded on the new writer: their answers equal a node started now, fresh from the store.
      const fresh = await startServerProcess({ args: ['--role', 'api'], env });
      try {
        const touched = [
          ...new Set(
            trades
              .filter((t) => t.seq > unannounced.from && t.seq <= unannounced.to)
              .map((t) => names.poolsById.get(t.agg)?.poolId ?? ''),
          ),
        ].slice(0, 4);
        const compare = [
          ...paths,
          ...touched.flatMap((pool) => [`/api/v1/tokens/current?pool=${pool}`, historyPath(pool)]),
        ];
        // Live blocks may land between the reads: compare until one round agrees.
        await vi.waitUntil(
          async () => {
            for (const path of compare) {
              const [a, b, c] = await Promise.all(
                [api1.origin, api2.origin, fresh.origin].map(async (origin) =>
                  JSON.stringify(await (await get(origin, path)).json()),
                ),
              );
              if (a !== c || b !== c) return false;
            }
            return true;
          },
          { timeout: 30_000, interval: 500 },
        );
      } finally {
        await fresh.stop();
      }

      const bars = await store.bars.all();
      await store.bars.rebuild();
      expect(await store.bars.all()).toEqual(bars);
    } finally {
      await store.close();
    }
  }, 180_000);

  it("resumes streams after a Redis restart, with the gap marked, and tells the gateway's browsers to resync", async () => {
    const s1 = await stream(api1.origin, KEYS.a, aggregates);
    await s1.nextLine(5_000);
    const delivered = collectEvents(s1);
    const browser = new SseReader(await fetch(`${api1.origin}/gw/v1/live?pools=${aggregates.slice(0, 3).join(',')}`));
    await browser.until(() => liveStatuses(browser).some((s) => s.state === 'connected'), 10_000);
    expect(liveStatuses(browser).some((s) => s.resync)).toBe(false);
    // A key's one stream, held on api1 across the restart; its lease is the key that appears in Redis.
    const probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    const others = await probe.keys('tps:lease:*');
    const held = await stream(api1.origin, KEYS.c, aggregates.slice(0, 3));
    await held.nextLine(5_000);
    const leases = (await probe.keys('tps:lease:*')).filter((key) => !others.includes(key));
    expect(leases).toHaveLength(1);
    const before = (await cluster(api1.origin)).gaps;
    expect(await readiness(api1.origin)).toEqual({ status: 200, checks: { postgres: 'ok', redis: 'ok' } });
    await redis.stop();
    // No commits reach it without Redis: not ready (for the load balancer), until it is back.
    await vi.waitUntil(async () => (await readiness(api1.origin)).status === 503, { timeout: 10_000, interval: 50 });
    expect(await readiness(api1.origin)).toEqual({ status: 503, checks: { postgres: 'ok', redis: 'not connected' } });
    await redis.start();
    await vi.waitUntil(
      async () => {
        const state = await cluster(api1.origin);
        return state.redis && state.gaps > before;
      },
      { timeout: 20_000, interval: 200 },
    );
    // Publishing reconnects too: blocks until one's events reach the stream (every block trades on some Aggregate).
    await vi
      .waitUntil(
        async () => {
          if (delivered.events.length > 0) return true;
          await block();
          return false;
        },
        { timeout: 20_000, interval: 300 },
      )
      .catch((error: unknown) => {
        console.log(api1.output().slice(-3000), ingest.output().slice(-3000));
        throw error;
      });
    delivered.stop();
    expect((await readiness(api1.origin)).status).toBe(200);
    // The node's gateway heard of the gap: its browsers are told to resync, and stay live.
    await browser.until(() => liveStatuses(browser).some((s) => s.resync), 10_000);
    expect(liveStatuses(browser).at(-1)).toEqual({ state: 'connected', resync: true });
    browser.cancel();
    // Redis came back empty; the open streams took their leases back, so the key's second stream is refused.
    await vi.waitUntil(
      async () => {
        const current = await probe.keys('tps:lease:*');
        return leases.every((key) => current.includes(key));
      },
      {
        timeout: 10_000,
        interval: 100,
      },
    );
    probe.disconnect();
    expect(await (await stream(api2.origin, KEYS.c, aggregates.slice(0, 3))).readToEnd(5_000)).toEqual([
      JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' }),
    ]);
    await held.cancel();
    await vi.waitUntil(() => streamsAgain(api2.origin, KEYS.c), { timeout: 10_000, interval: 200 });
  }, 60_000);

  it('ends a stream whose lease another connection holds by then (the key never has two)', async () => {
    const probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    try {
      // Every lease and its holder (a node's connection token).
      const leases = async () => {
        const keys = await probe.keys('tps:lease:*');
        const holders = keys.length > 0 ? await probe.mget(...keys) : [];
        return new Map(keys.map((key, i) => [key, holders[i]]));
      };
      const before = await leases();
      const held = await stream(api1.origin, KEYS.c, aggregates.slice(0, 3));
      await held.nextLine(5_000);
      // This connection's lease: a key with a holder it did not have before. Slots are numbered, so
      // the slot a connection of the test before released meanwhile is the same key with a new holder.
      const lease = await vi.waitUntil(
        async () => [...(await leases())].find(([key, holder]) => holder !== null && before.get(key) !== holder)?.[0],
        { timeout: 5_000, interval: 50 },
      );
      // As if Redis had lost it and another node's connection had taken the slot.
      await probe.set(lease ?? '', 'another-node:another-connection', 'PX', 60_000);
      const rest = (await held.readToEnd(10_000)).filter((line) => line !== JSON.stringify({ s: 'ok' }));
      expect(rest.at(-1)).toBe(JSON.stringify({ s: 'error', errmsg: 'Connection limit exceeded' }));
      // The other connection's lease is untouched by this one's end.
      expect(await probe.get(lease ?? '')).toBe('another-node:another-connection');
      await probe.del(lease ?? '');
    } finally {
      probe.disconnect();
    }
  }, 30_000);

  it('drops an API node’s cached /history when a commit message names its pool (the cache has no expiry)', async () => {
    const pool = aggregates[4] ?? '';
    const path = historyPath(pool);
    // Filled on api1 (chunks of bars, kept until a commit message names their buckets).
    const before = await (await get(api1.origin, path)).text();
    const forced = await fetch(`${ingest.origin}/__test__/block?pool=${pool}&trades=1`, { method: 'POST' });
    expect(forced.status).toBe(200);
    const after = await vi.waitUntil(
      async () => {
        const text = await (await get(api1.origin, path)).text();
        return text !== before ? text : false;
      },
      { timeout: 10_000, interval: 200 },
    );
    const newest = (body: string) => (JSON.parse(body) as { t: number[] }).t.at(-1) ?? 0;
    expect(newest(after)).toBeGreaterThanOrEqual(newest(before));
    // What the store holds: both nodes agree (asked together, as the market may trade meanwhile).
    await vi.waitUntil(
      async () => {
        const [a, b] = await Promise.all([get(api1.origin, path), get(api2.origin, path)]);
        return (await a.text()) === (await b.text());
      },
      { timeout: 10_000, interval: 200 },
    );
  }, 30_000);

  it('answers 503 in each family’s shape while PostgreSQL is down (never a hang or a 500), and recovers', async () => {
    // A key stored in the database (as `npm run keys -- create` makes one): checked there at each request.
    const keys = await openReaderStore(env.DATABASE_URL ?? '');
    const stored = await new KeyStore(keys.keys).create('enterprise', 'cluster test').finally(() => keys.close());
    await pg.stop();
    try {
      // Not ready: neither an API node (its store) nor the writer (its store, its lock's session).
      expect(await readiness(api1.origin)).toEqual({ status: 503, checks: { postgres: 'not answering', redis: 'ok' } });
      await vi.waitUntil(async () => (await readiness(ingest.origin)).status === 503, {
        timeout: 10_000,
        interval: 100,
      });
      expect((await readiness(ingest.origin)).checks).toEqual({ store: 'not answering' });
      const now = Math.floor(Date.now() / 1000);
      const history = await get(
        api1.origin,
        `/api/v1/history?symbol=${aggregates[1]}&resolution=1min&from=${now - 7 * 86_400}&to=${now - 6 * 86_400}`,
      );
      expect(history.status).toBe(503);
      expect(priceErrorSchema.parse(await history.json()).s).toBe('error');
      const tokens = await get(api2.origin, `/api/v1/tokens/current?pool=${aggregates[2]}`);
      expect(tokens.status).toBe(503);
      expect(tokenErrorSchema.parse(await tokens.json()).detail[0]?.type).toBe('service_unavailable');
      // Through the gateway (the browser's way in): the same 503 in the price family's shape.
      const gateway = await fetch(
        `${api2.origin}/gw/v1/history?symbol=${aggregates[3]}&resolution=1min&from=${now - 7 * 86_400}&to=${now - 6 * 86_400}`,
      );
      expect(gateway.status).toBe(503);
      expect(priceErrorSchema.parse(await gateway.json()).s).toBe('error');
      // The stream family: a stored key cannot be checked, so the stream is refused with a 503 and its
      // one error line (text/event-stream, as the stream's refusals are)...
      const refused = await stream(api1.origin, stored.key, aggregates.slice(0, 2));
      expect(refused.response.status).toBe(503);
      expect(refused.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const lines = await refused.readToEnd(8_000);
      expect(lines).toHaveLength(1);
      expect(streamLineSchema.parse(JSON.parse(lines[0] ?? '{}'))).toMatchObject({
        s: 'error',
        errmsg: expect.any(String),
      });
      // ...while a configured key (held in memory) streams on: a stream needs no store.
      const open = await stream(api1.origin, KEYS.b, aggregates.slice(0, 2));
      expect(await open.nextLine(8_000)).toBe(JSON.stringify({ s: 'ok' }));
      await open.cancel();
    } finally {
      await pg.start();
    }
    await vi
      .waitUntil(
        async () =>
          (await get(api1.origin, '/api/v1/groups')).status === 200 &&
          (await get(api1.origin, `/api/v1/tokens/current?pool=${aggregates[2]}`)).status === 200,
        {
          timeout: 30_000,
          interval: 500,
        },
      )
      .catch((error: unknown) => {
        console.log(api1.output().slice(-4000));
        throw error;
      });
    // The writer survived PostgreSQL's stop (its lock session was cut), took its lock back and commits again.
    await vi
      .waitUntil(async () => (await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).status === 200, {
        timeout: 30_000,
        interval: 500,
      })
      .catch((error: unknown) => {
        console.log(ingest.output().slice(-4000));
        throw error;
      });
    // The stored key streams again; everyone is ready again.
    await vi.waitUntil(() => streamsAgain(api1.origin, stored.key), { timeout: 15_000, interval: 500 });
    for (const origin of [api1.origin, api2.origin, ingest.origin])
      await vi.waitUntil(async () => (await readiness(origin)).status === 200, { timeout: 15_000, interval: 200 });
    expect(ingest.output()).toMatch(/the writer lost its PostgreSQL session/);
    expect(ingest.output()).toMatch(/the writer lock is held again/);
    // And it still holds it: a second writer is refused.
    await expect(startServerProcess({ args: ingestArgs, env })).rejects.toThrow(/is in use by another writer/);
  }, 120_000);
});
