import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createPlatform, type Platform } from '../../src/server/platform';
import { NODE_SERVER_OPTIONS } from '../../src/node/response-sink';
import { parseServiceConfig } from '../../src/service/config';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { ensureDefined } from '../support/ensure';
import { lastSeq, pairWithPools, storedTrades } from '../support/market';

/** The test-only market control of the composed server (`--test-controls`): POST /__test__/block. */

let platform: Platform;
let runtime: ServiceRuntime;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-test-controls-'));
  platform = await createPlatform({
    service: parseServiceConfig({ 'data-dir': dir, pools: '200', days: '1', seed: '11' }, {}),
    gateway: DEFAULT_GATEWAY_CONFIG,
    testControls: true,
  });
  runtime = ensureDefined(platform.runtime, 'the embedded service');
});
afterAll(async () => {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

const block = async (query = '') => {
  const response = await platform.app.request(`/__test__/block${query}`, { method: 'POST' });
  return {
    status: response.status,
    body: (await response.json()) as { trades?: number; height?: number; s?: string; errmsg?: string },
  };
};

describe('POST /__test__/block', () => {
  it('makes a block as the schedule would (at least one trade, anywhere) without a query', async () => {
    const before = await lastSeq(runtime);
    const { status, body } = await block();
    expect(status).toBe(200);
    expect(body.trades).toBeGreaterThanOrEqual(1);
    expect((await storedTrades(runtime, { afterSeq: before })).length).toBe(body.trades);
  });

  it("puts exactly `trades` trades on an Aggregate pool's pair, spread over its DEX pools", async () => {
    const aggregate = await pairWithPools(runtime, 3);
    const before = await lastSeq(runtime);
    const { status, body } = await block(`?pool=${aggregate.poolId.toUpperCase()}&trades=40`);
    expect(status).toBe(200);
    expect(body.trades).toBe(40);
    const fresh = await storedTrades(runtime, { afterSeq: before });
    expect(fresh).toHaveLength(40);
    expect(fresh.every((t) => t.agg === aggregate.id)).toBe(true);
    const dexPools = new Set(aggregate.pair.pools.map((p) => p.id));
    expect(fresh.every((t) => dexPools.has(t.pool))).toBe(true);
    // 40 draws over 3 or more pools: more than one of them trades.
    expect(new Set(fresh.map((t) => t.pool)).size).toBeGreaterThan(1);
  });

  it('puts one trade on a DEX pool when no count is given', async () => {
    const dexPool = ensureDefined((await pairWithPools(runtime, 2)).pair.pools[1], 'a DEX pool');
    const before = await lastSeq(runtime);
    const { status, body } = await block(`?pool=${dexPool.poolId}`);
    expect(status).toBe(200);
    expect(body.trades).toBe(1);
    expect((await storedTrades(runtime, { afterSeq: before })).map((t) => t.pool)).toEqual([dexPool.id]);
  });

  it('refuses a bad query with 400, an unknown pool with 404, and trades nothing', async () => {
    const aggregate = await pairWithPools(runtime, 1);
    const before = await lastSeq(runtime);
    for (const [query, status, message] of [
      [`?pool=${aggregate.poolId}&trades=0`, 400, /trades must be a whole number from 1 to 1000/],
      [`?pool=${aggregate.poolId}&trades=1001`, 400, /trades must be/],
      [`?pool=${aggregate.poolId}&trades=2.5`, 400, /trades must be/],
      [`?pool=${aggregate.poolId}&trades=abc`, 400, /"abc"/],
      [`?pool=${aggregate.poolId}&trades=`, 400, /trades must be/],
      ['?trades=5', 400, /trades needs a pool/],
      ['?pool=', 400, /pool must be a pool ID/],
      ['?pool=nope', 404, /Unknown pool nope/],
    ] as const) {
      const answer = await block(query);
      expect(answer.status, query).toBe(status);
      expect(answer.body.s, query).toBe('error');
      expect(answer.body.errmsg, query).toMatch(message);
    }
    expect(await lastSeq(runtime)).toBe(before);
  });
});

describe('POST /__test__/block through a gateway in remote mode', () => {
  it("passes the query to the upstream's control, answers included", async () => {
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: platform.app.fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () =>
        resolve(s),
      );
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const front = await createPlatform({
      service: parseServiceConfig({ 'data-dir': join(dir, 'unused') }, {}),
      gateway: { ...DEFAULT_GATEWAY_CONFIG, upstreamUrl: origin, upstreamApiKey: 'unused-key-0001' },
      testControls: true,
    });
    try {
      const aggregate = await pairWithPools(runtime, 2);
      const before = await lastSeq(runtime);
      const response = await front.app.request(`/__test__/block?pool=${aggregate.poolId}&trades=7`, { method: 'POST' });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { trades: number }).trades).toBe(7);
      const fresh = await storedTrades(runtime, { afterSeq: before });
      expect(fresh.map((t) => t.agg)).toEqual(Array.from({ length: 7 }, () => aggregate.id));
      const refused = await front.app.request('/__test__/block?pool=nope', { method: 'POST' });
      expect(refused.status).toBe(404);
    } finally {
      await front.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
