import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';
import { FakeOgmios } from '../support/fake-ogmios';
import { freePort } from '../support/free-port';
import { checkRules, documentedRules, startPrometheus, type TestPrometheus } from '../support/prometheus';
import type { OgmiosWireBlock } from '../support/prise';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { nextSyntheticBlock, syntheticBlocks, syntheticPools, type ChainCursor } from '../support/synthetic-chain';

/**
 * The metrics as Prometheus sees them: a real Prometheus (its own config, data directory and port)
 * scrapes a chain-fed server following the fake Ogmios and a two-node cluster (an ingest node, and an
 * API node on --metrics-port) on a real PostgreSQL and Redis; its HTTP API is asked for a request
 * counter that grew, the chain's lag, the cluster's fan-out. Every metric scraped is documented in
 * docs/operations.md and every documented one scraped; its alert rules pass promtool, load, evaluate,
 * and name only metrics the servers export.
 */
const KEY = 'prometheus-test-key-01';
const TINY_KEY = 'prometheus-tiny-key-01';
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'ef'.repeat(32),
  height: 0,
  slot: 140_000_000,
  ancestor: 'genesis',
  transactions: [],
};

let pg: TestPostgres;
let redis: TestRedis;
let fake: FakeOgmios;
let chainServer: ServerProcess;
let ingest: ServerProcess;
let api: ServerProcess;
let apiMetricsPort: number;
let prometheus: TestPrometheus;
let chain: OgmiosWireBlock[];
const readyAnswers: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'prometheus-test-'));

const hostOf = (origin: string) => new URL(origin).host;
const get = (origin: string, path: string, key = KEY) =>
  fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
/** The one value of an instant query (undefined: no series). */
const one = async (expr: string) => (await prometheus.query(expr))[0]?.value;

beforeAll(async () => {
  // The chain: a block creating three Minswap V2 pools, 30 blocks of swaps a minute apart, and one whose
  // pool output cannot be decoded.
  const pools = syntheticPools(3);
  const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: ANCHOR.height };
  chain = [
    ANCHOR,
    ...syntheticBlocks(cursor, pools, 1, { updates: 3, sequential: true, slotStep: 60 }),
    ...syntheticBlocks(cursor, pools, 30, { updates: 1, slotStep: 60 }),
  ];
  const hostile = nextSyntheticBlock(cursor, pools, { updates: 1, slotStep: 60 });
  const output = (hostile.transactions[0] as { outputs: { datum?: string }[] }).outputs[0];
  if (!output) throw new Error('no pool output');
  output.datum = 'd87980';
  chain.push(hostile);
  [pg, redis, fake] = await Promise.all([startPostgres(), startRedis(), FakeOgmios.start(chain)]);
  fake.blockDelayMs = 100;
  const env = {
    DATABASE_URL: await pg.createDatabase('prometheus'),
    REDIS_URL: redis.url,
    TOKEN_API_KEYS: `${KEY}:enterprise,${TINY_KEY}:tiny`,
    TOKEN_API_PLANS: JSON.stringify({ tiny: { requestsPerMinute: 1, poolsPerStream: 1 } }),
  };
  apiMetricsPort = await freePort();
  ingest = await startServerProcess({
    args: ['--role', 'ingest', '--pools', '60', '--days', '0.1', '--test-controls'],
    env,
  });
  const apiStarted = startServerProcess({ args: ['--role', 'api', '--metrics-port', String(apiMetricsPort)], env });
  chainServer = await startServerProcess({
    args: ['--source', 'chain', '--ogmios', fake.url, '--chain-start', `${ANCHOR.slot}.${ANCHOR.id}`],
    env: { TOKEN_API_KEYS: `${KEY}:enterprise` },
  });
  // The chain-fed server is serving but catching up (a block every 100 ms, 32 minutes of chain): not ready until it has.
  await vi.waitUntil(
    async () => {
      const status = (await fetch(`${chainServer.origin}/readyz`)).status;
      readyAnswers.push(status);
      return status === 200;
    },
    { timeout: 60_000, interval: 20 },
  );
  api = await apiStarted;
  prometheus = await startPrometheus(
    {
      chain: { targets: [hostOf(chainServer.origin)] },
      ingest: { targets: [hostOf(ingest.origin)] },
      api: { targets: [`127.0.0.1:${apiMetricsPort}`] },
    },
    documentedRules(),
  );
}, 240_000);

afterAll(async () => {
  await prometheus?.stop();
  await Promise.all([chainServer?.stop(), ingest?.stop(), api?.stop()]);
  await Promise.all([pg?.destroy(), redis?.destroy(), fake?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('Prometheus scraping a chain-fed server and a cluster', () => {
  it('scrapes every node', async () => {
    await vi.waitUntil(async () => (await prometheus.query('up == 1')).length === 3, {
      timeout: 30_000,
      interval: 200,
    });
    const up = await prometheus.query('up');
    expect(up.map((s) => s.metric.job).sort()).toEqual(['api', 'chain', 'ingest']);
    await vi.waitUntil(async () => (await prometheus.query('cdx_ready == 1')).length === 3, {
      timeout: 30_000,
      interval: 200,
    });
    expect(await one('cdx_node_info{job="api",role="api",source="simulated"}')).toBe(1);
    expect(await one('cdx_node_info{job="chain",role="all",source="chain"}')).toBe(1);
    // The chain-fed server said "not ready" while it caught up, then "ready".
    expect(readyAnswers[0]).toBe(503);
    expect(readyAnswers.at(-1)).toBe(200);
  });

  it('sees a request counter grow', async () => {
    const series = 'cdx_http_requests_total{job="api",route="/api/v1/groups",status="200"}';
    for (let i = 0; i < 5; i++) expect((await get(api.origin, '/api/v1/groups')).status).toBe(200);
    await vi.waitUntil(async () => (await one(series)) === 5, { timeout: 20_000, interval: 200 });
    for (let i = 0; i < 3; i++) expect((await get(api.origin, '/api/v1/groups')).status).toBe(200);
    await vi.waitUntil(async () => (await one(series)) === 8, { timeout: 20_000, interval: 200 });
    await vi.waitUntil(async () => (await one(`increase(${series}[1m])`)) !== undefined, {
      timeout: 20_000,
      interval: 200,
    });
    expect(await one(`increase(${series}[1m])`)).toBeGreaterThan(0);
    // The public port of a node with --metrics-port has no /metrics.
    expect((await fetch(`${api.origin}/metrics`)).status).toBe(404);
  });

  it("has the chain's lag and tip as the server reports them", async () => {
    const last = chain.at(-1) as OgmiosWireBlock;
    const health = async () =>
      (
        (await (await fetch(`${chainServer.origin}/healthz`)).json()) as {
          chain: { tipSlot: number; lagSeconds: number; undecodable: number };
        }
      ).chain;
    await vi.waitUntil(async () => (await health()).tipSlot === last.slot, { timeout: 30_000, interval: 100 });
    await vi.waitUntil(async () => (await one('cdx_chain_tip_slot{job="chain"}')) === last.slot, {
      timeout: 20_000,
      interval: 200,
    });
    expect(await one('cdx_chain_lag_seconds{job="chain"}')).toBe((await health()).lagSeconds);
    expect(await one('cdx_chain_lag_seconds{job="chain"}')).toBe(0);
    expect(await one('cdx_chain_node_tip_slot{job="chain"}')).toBe(last.slot);
    expect(await one('cdx_chain_state{job="chain",state="live"}')).toBe(1);
    expect(await one('cdx_chain_blocks_total{job="chain"}')).toBe(chain.length - 1);
    expect(await one('cdx_chain_undecodable_outputs_total{job="chain",dex="MinswapV2"}')).toBe(1);
  });

  it('sees commits fan out from the writer to the API node through Redis', async () => {
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${ingest.origin}/__test__/block`, { method: 'POST' })).status).toBe(200);
    await vi.waitUntil(async () => ((await one('cdx_cluster_fanout_seconds_count{job="api"}')) ?? 0) >= 3, {
      timeout: 20_000,
      interval: 200,
    });
    expect(await one('cdx_cluster_publish_seconds_count{job="ingest"}')).toBeGreaterThanOrEqual(3);
    expect(await one('cdx_cluster_redis_connected{job="api"}')).toBe(1);
    expect(await one('cdx_store_commit_duration_seconds_count{job="ingest",result="ok"}')).toBeGreaterThanOrEqual(3);
    // The median fan-out on one machine is well under a second.
    expect(await one('histogram_quantile(0.5, cdx_cluster_fanout_seconds_bucket{job="api"})')).toBeLessThan(1);
  });

  it('scrapes exactly the metrics docs/operations.md lists', async () => {
    // A refusal by plan, so that the labelled counter has a series.
    expect((await get(api.origin, '/api/v1/groups', TINY_KEY)).status).toBe(200);
    expect((await get(api.origin, '/api/v1/groups', TINY_KEY)).status).toBe(429);
    await vi.waitUntil(async () => (await one('cdx_rate_limit_refusals_total{job="api",plan="tiny"}')) === 1, {
      timeout: 20_000,
      interval: 200,
    });
    const names = await prometheus.api<string[]>('/api/v1/label/__name__/values');
    const ours = new Set(names.filter((n) => n.startsWith('cdx_')).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    const doc = readFileSync(join(process.cwd(), 'docs/operations.md'), 'utf8');
    const documented = new Set([...doc.matchAll(/^\| `(cdx_[a-z_]+)` \|/gm)].map((m) => m[1] ?? ''));
    expect([...ours].sort()).toEqual([...documented].sort());
  });

  it('checks the documented alert rules with promtool, loads and evaluates them, on metrics the servers export', async () => {
    const file = join(dir, 'rules.yml');
    writeFileSync(file, documentedRules());
    const checked = checkRules(file);
    expect(checked.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(checked.status).toBe(0);
    type Rules = { groups: { rules: { name: string; query: string; health: string; lastError?: string }[] }[] };
    await vi.waitUntil(
      async () =>
        (await prometheus.api<Rules>('/api/v1/rules')).groups[0]?.rules.every((r) => r.health === 'ok') ?? false,
      { timeout: 20_000, interval: 200 },
    );
    const rules = (await prometheus.api<Rules>('/api/v1/rules')).groups.flatMap((g) => g.rules);
    expect(rules.length).toBe(Number(/SUCCESS: (\d+) rules found/.exec(checked.output)?.[1]));
    expect(rules.length).toBeGreaterThanOrEqual(10);
    const names = new Set(await prometheus.api<string[]>('/api/v1/label/__name__/values'));
    for (const rule of rules) {
      for (const [metric] of rule.query.matchAll(/\b(cdx|nodejs|process)_[a-z0-9_]+|\bup\b/g))
        expect(names, `${rule.name} uses ${metric}`).toContain(metric);
    }
    // Nothing fires on healthy nodes (a fresh start has no rate yet, no lag, nothing dropped).
    expect((await prometheus.query('ALERTS{alertstate="firing"}')).map((s) => s.metric.alertname)).toEqual([]);
  });
});
