import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseServiceConfig } from '../src/service/config';
import { createServiceRuntime } from '../src/service/runtime';
import type { ServiceRuntime } from '../src/service/service-runtime';
import { startPostgres, startRedis } from '../tests/support/engines';
import { freePort } from '../tests/support/free-port';
import { median, percentile, type BenchRow } from './measure';
import { runtimeInternals } from '../src/service/runtime-internals';

/**
 * The cluster suite (docs/scaling.md): /history's store read on PostgreSQL against SQLite for the same
 * answer; then real processes on a real PostgreSQL 15 and Redis 7 (one ingest node, one or two API
 * nodes): commit-to-client stream fan-out latency and requests/s with one and with two API nodes.
 */
const KEY = 'bench-cluster-key';
/** A plan without a practical limit, so the load measures the nodes, not the (shared) rate limit. */
const PLANS = JSON.stringify({
  bench: { requestsPerMinute: 100_000_000, poolsPerStream: 10_000, streamsPerKey: 100_000 },
});
/** Stream connections of the fan-out over two API nodes, half on each. */
const FANOUT_STREAMS = 200;
const FANOUT_BLOCKS = 40;

async function waitHealthy(origin: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`a node exited during start (${origin})`);
    try {
      if ((await fetch(`${origin}/healthz`)).status === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`${origin} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function node(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-node-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/cli/serve.ts', '--port', String(port), '--data-dir', dir, ...args],
    {
      env: { ...process.env, NODE_ENV: 'test', ...env },
      stdio: 'ignore',
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitHealthy(origin, child);
  return { origin, child };
}

/** Store read of the busiest Aggregate's 1min bars over the whole backfill, median of 30. */
async function historyRead(runtime: ServiceRuntime): Promise<number> {
  const [busiest] = await runtimeInternals(runtime).store.trades.busiestAggregates(1);
  const series = busiest?.series ?? 0;
  const times: number[] = [];
  for (let i = 0; i < 33; i++) {
    const started = performance.now();
    await runtimeInternals(runtime).store.bars.range(series, '1min', 0, 2 ** 31);
    if (i >= 3) times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Cold /history answers (first request of each of the 20 busiest Aggregates), median server time, and
 * each answer's body (identity, asked again once timed) by pool ID, to check both stores give the same.
 */
async function historyCold(
  runtime: ServiceRuntime,
  nowSeconds: number,
): Promise<{ ms: number; bodies: Map<string, string> }> {
  const busiest = await runtimeInternals(runtime).store.trades.busiestAggregates(20);
  const times: number[] = [];
  const bodies = new Map<string, string>();
  for (const { series } of busiest) {
    const pool = runtime.market.poolsById.get(series);
    if (!pool) continue;
    const path = `/api/v1/history?symbol=${pool.poolId}&resolution=1min&from=0&to=${nowSeconds}&include_tvl=true`;
    const started = performance.now();
    const response = await runtime.app.request(path, {
      headers: { Authorization: `Bearer ${KEY}`, 'Accept-Encoding': 'gzip, deflate' },
    });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    bodies.set(
      pool.poolId,
      await (await runtime.app.request(path, { headers: { Authorization: `Bearer ${KEY}` } })).text(),
    );
  }
  return { ms: median(times), bodies };
}

/** Requests/s over `paths` taken in turn by `concurrency` clients, spread over `origins`, for `seconds`. */
async function requestsPerSecond(
  origins: readonly string[],
  paths: readonly string[],
  seconds: number,
  concurrency: number,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const origin = origins[i % origins.length] as string;
      for (let n = i; Date.now() < until; n++) {
        const response = await fetch(`${origin}${paths[n % paths.length] ?? ''}`, {
          headers: { Authorization: `Bearer ${KEY}`, 'Accept-Encoding': 'gzip, deflate' },
        });
        await response.arrayBuffer();
        if (response.status === 200) done++;
      }
    }),
  );
  return done / seconds;
}

/** One stream connection counting its trade events and noting when each block's first one came. */
interface Listener {
  events: number;
  firstAt: number | undefined;
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
}

async function listen(origin: string, pools: readonly string[]): Promise<Listener> {
  const response = await fetch(`${origin}/api/v1/tokens/stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(pools),
  });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no stream');
  const listener: Listener = { events: 0, firstAt: undefined, reader };
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const now = performance.now();
      // A chunk holds whole lines of a commit; counting "pool_id" counts its events.
      const events = decoder.decode(value, { stream: true }).split('pool_id').length - 1;
      if (events > 0) {
        listener.firstAt ??= now;
        listener.events += events;
      }
    }
  })();
  return listener;
}

export async function clusterBench(options: { log: (line: string) => void }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  try {
    // /history on PostgreSQL vs SQLite: the same market (seed, size, days) in each.
    const market = { pools: '2000', days: '7', seed: '3' };
    const nowMs = () => 1_790_000_000_000;
    const open = async (databaseUrl?: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
      dirs.push(dir);
      const config = parseServiceConfig(
        { 'data-dir': dir, ...market },
        {
          TOKEN_API_KEYS: `${KEY}:bench`,
          TOKEN_API_PLANS: PLANS,
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        },
      );
      return createServiceRuntime(config, { nowMs });
    };
    options.log('cluster: the same market on SQLite and on PostgreSQL...');
    const sqlite = await open();
    const sqliteCold = await historyCold(sqlite, nowMs() / 1000);
    const sqliteMs = await historyRead(sqlite);
    await sqlite.close();
    const postgres = await open(await pg.createDatabase('history'));
    const pgCold = await historyCold(postgres, nowMs() / 1000);
    const pgMs = await historyRead(postgres);
    await postgres.close();
    const ratio = pgCold.ms / sqliteCold.ms;
    // "For the same answer": each pool's body from PostgreSQL equals SQLite's, byte for byte.
    const same = [...sqliteCold.bodies].filter(([pool, body]) => pgCold.bodies.get(pool) === body).length;
    rows.push(
      {
        suite: 'cluster',
        name: '/history cold (uncached), 20 busiest Aggregates, 7 days of 1min bars + TVL, deflate: SQLite, median',
        value: Number(sqliteCold.ms.toFixed(2)),
        unit: 'ms',
      },
      { suite: 'cluster', name: '… the same answers from PostgreSQL', value: Number(pgCold.ms.toFixed(2)), unit: 'ms' },
      {
        suite: 'cluster',
        name: '… PostgreSQL ÷ SQLite',
        value: Number(ratio.toFixed(2)),
        unit: '×',
        target: '<= 2',
        pass: ratio <= 2,
      },
      {
        suite: 'cluster',
        name: '… answers equal (PostgreSQL body = SQLite body, identity)',
        value: same,
        unit: `of ${sqliteCold.bodies.size}`,
        target: 'all',
        pass: same === sqliteCold.bodies.size && sqliteCold.bodies.size > 0,
      },
      {
        suite: 'cluster',
        name: 'bars store read alone (busiest Aggregate, 10,080 rows): SQLite / PostgreSQL',
        value: Number((pgMs / sqliteMs).toFixed(2)),
        unit: '×',
        note: `${sqliteMs.toFixed(2)} ms / ${pgMs.toFixed(2)} ms: the row transfer and parse of node-postgres`,
      },
    );

    // Real processes: one ingest node, then one and two API nodes.
    const env = {
      DATABASE_URL: await pg.createDatabase('cluster'),
      REDIS_URL: redis.url,
      TOKEN_API_KEYS: `${KEY}:bench`,
      TOKEN_API_PLANS: PLANS,
    };
    options.log('cluster: starting an ingest node and two API nodes...');
    const ingest = await node(['--role', 'ingest', '--pools', '300', '--days', '1', '--test-controls'], env);
    children.push(ingest.child);
    const api1 = await node(['--role', 'api'], env);
    children.push(api1.child);
    const info = (await (
      await fetch(`${api1.origin}/api/v1/symbol_info?group=Aggregate`, { headers: { Authorization: `Bearer ${KEY}` } })
    ).json()) as { ticker: string[] };

    // Fan-out latency: from asking the writer for a block to its first event on an API node's stream.
    const response = await fetch(`${api1.origin}/api/v1/tokens/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(info.ticker.slice(0, 1000)),
    });
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no stream');
    const decoder = new TextDecoder();
    let buffered = '';
    const nextEvent = async (): Promise<void> => {
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.includes('pool_id')) return;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
    };
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      buffered = '';
      const started = performance.now();
      const eventSeen = nextEvent();
      await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' });
      await eventSeen;
      latencies.push(performance.now() - started);
      // Drain the rest of the block's events before the next.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await reader.cancel();
    rows.push(
      {
        suite: 'cluster',
        name: 'stream fan-out, block asked → first event on an API node, p50',
        value: Number(median(latencies).toFixed(1)),
        unit: 'ms',
        note: 'includes the block commit on PostgreSQL',
      },
      { suite: 'cluster', name: '… p99', value: Number(percentile(latencies, 99).toFixed(1)), unit: 'ms' },
    );

    // A mix as an app's users make it: history (day of 5min bars), current stats and symbol_info.
    const now = Math.floor(Date.now() / 1000);
    const pools = info.ticker.slice(0, 20);
    const mix = pools.flatMap((pool, i) => [
      `/api/v1/history?symbol=${pool}&resolution=5min&from=${now - 86_400}&to=${now}&include_tvl=true`,
      `/api/v1/tokens/current?pool=${pool}`,
      i % 4 === 0 ? '/api/v1/symbol_info?group=Aggregate' : `/api/v1/tokens/current?pool=${pool}`,
    ]);
    const path = `/api/v1/tokens/current?pool=${info.ticker[0]}`;
    options.log('cluster: requests/s with one API node...');
    const one = await requestsPerSecond([api1.origin], [path], 10, 64);
    const oneMix = await requestsPerSecond([api1.origin], mix, 10, 64);
    const api2 = await node(['--role', 'api'], env);
    children.push(api2.child);
    options.log('cluster: requests/s with two API nodes...');
    const two = await requestsPerSecond([api1.origin, api2.origin], [path], 10, 64);
    const twoMix = await requestsPerSecond([api1.origin, api2.origin], mix, 10, 64);

    // Fan-out to many connections on two nodes: each block's first event at each of 200 streams.
    options.log(`cluster: fan-out to ${FANOUT_STREAMS} streams over two API nodes...`);
    const listeners = await Promise.all(
      Array.from({ length: FANOUT_STREAMS }, (_, i) => listen(i % 2 === 0 ? api1.origin : api2.origin, info.ticker)),
    );
    const fanout: number[] = [];
    const commits: number[] = [];
    for (let i = 0; i < FANOUT_BLOCKS; i++) {
      for (const l of listeners) l.firstAt = undefined;
      const before = listeners.map((l) => l.events);
      const started = performance.now();
      const { trades } = (await (await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).json()) as {
        trades: number;
      };
      commits.push(performance.now() - started);
      const deadline = performance.now() + 10_000;
      // Every stream has every event of the block (every trade is on an Aggregate all of them follow).
      while (listeners.some((l, j) => l.events - (before[j] ?? 0) < trades)) {
        if (performance.now() > deadline) throw new Error('fan-out: a stream missed events of a block');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      for (const l of listeners) fanout.push((l.firstAt ?? started) - started);
    }
    for (const l of listeners) await l.reader.cancel().catch(() => undefined);
    rows.push(
      {
        suite: 'cluster',
        name: `stream fan-out, ${FANOUT_STREAMS} streams over two API nodes (all Aggregates each): block asked → first event at each stream, p50`,
        value: Number(median(fanout).toFixed(1)),
        unit: 'ms',
        note: `${FANOUT_BLOCKS} blocks; includes the commit on PostgreSQL (median ${median(commits).toFixed(1)} ms until the writer answered)`,
      },
      { suite: 'cluster', name: '… p99', value: Number(percentile(fanout, 99).toFixed(1)), unit: 'ms' },
    );
    const rss = (child: ChildProcess) => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      } catch {
        return 0;
      }
    };
    rows.push(
      {
        suite: 'cluster',
        name: 'API node RSS after the load (300-pool market)',
        value: Math.round(rss(api1.child)),
        unit: 'MiB',
      },
      { suite: 'cluster', name: 'ingest node RSS', value: Math.round(rss(ingest.child)), unit: 'MiB' },
      {
        suite: 'cluster',
        name: 'requests/s, /tokens/current, 64 clients, one API node',
        value: Math.round(one),
        unit: 'req/s',
        note: 'this machine: 2 cores shared by clients, nodes and engines',
      },
      { suite: 'cluster', name: '… two API nodes', value: Math.round(two), unit: 'req/s' },
      {
        suite: 'cluster',
        name: 'requests/s, a mix (history 1 day of 5min + tokens/current + symbol_info, 20 pools), 64 clients, one API node',
        value: Math.round(oneMix),
        unit: 'req/s',
      },
      { suite: 'cluster', name: '… two API nodes', value: Math.round(twoMix), unit: 'req/s' },
    );
    return rows;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await Promise.all([pg.destroy(), redis.destroy()]);
  }
}
