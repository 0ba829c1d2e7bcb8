import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { gatewayInfoSchema, gatewayLiquiditySchema, gatewayTokenNamesSchema } from '../../src/shared/api/gateway';
import { symbolInfoResponseSchema, symbolInfoRows } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { parseSymbolName } from '../../src/shared/symbols';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { serveLoopback, type Loopback } from './support/loopback';

/**
 * The gateway in front of a real server process started with `--spec-only` (the spec's /api/v1 alone,
 * as the hosted API): the extension routes are derived from spec endpoints, paced, and within the
 * upstream's rate limit. A counting proxy between them records every request the gateway makes.
 */

const KEY = 'fallback-test-key-0001';
const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
const PER_MINUTE = 600;
const CANDIDATES = 4;

interface Seen {
  readonly path: string;
  readonly at: number;
  readonly status: number;
}

let server: ServerProcess;
let proxy: Loopback;
const seen: Seen[] = [];
let gateway: Gateway;

/** What the gateway asked the upstream, in order (the test's own requests go to the server directly). */
const asked = (prefix = '') => seen.filter((s) => s.path.startsWith(prefix));

async function direct(path: string): Promise<unknown> {
  const response = await fetch(`${server.origin}${path}`, { headers: { Authorization: `Bearer ${KEY}` } });
  expect(response.status, path).toBe(200);
  return response.json();
}

beforeAll(async () => {
  server = await startServerProcess({
    args: ['--pools', '150', '--days', '1', '--seed', '7', '--spec-only'],
    // A plan of 240 requests a minute: the gateway must stay within it while the test asks too.
    env: {
      TOKEN_API_KEYS: `${KEY}:small`,
      TOKEN_API_PLANS: JSON.stringify({ small: { requestsPerMinute: 240, poolsPerStream: 10 } }),
    },
  });
  proxy = await serveLoopback(async (request) => {
    const url = new URL(request.url);
    const at = Date.now();
    const response = await fetch(`${server.origin}${url.pathname}${url.search}`, {
      headers: request.headers,
      redirect: 'manual',
    });
    const body = await response.arrayBuffer();
    seen.push({ path: `${url.pathname}${url.search}`, at, status: response.status });
    const headers = new Headers(response.headers);
    // fetch() decoded the body.
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(body, { status: response.status, headers });
  });
  gateway = createGateway({
    config: {
      ...DEFAULT_GATEWAY_CONFIG,
      fallbackRequestsPerMinute: PER_MINUTE,
      fallbackCandidatesPerGroup: CANDIDATES,
    },
    upstream: remoteUpstream(proxy.origin, KEY),
  });
}, 90_000);

afterAll(async () => {
  gateway?.close();
  await proxy?.close();
  await server?.stop();
});

const get = (path: string) => gateway.app.request(`/gw/v1${path}`);

describe('extension routes over an upstream without /api/x', () => {
  it('the upstream really lacks them', async () => {
    const response = await fetch(`${server.origin}/api/x/liquidity?group=Aggregate`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(response.status).toBe(404);
  });

  it('derives token names from symbol_info: tickers from the symbol names, the decoded asset names for names', async () => {
    const response = await get('/token-info');
    expect(response.status).toBe(200);
    const names = gatewayTokenNamesSchema.parse(await response.json());
    const rows = symbolInfoRows(symbolInfoResponseSchema.parse(await direct('/api/v1/symbol_info?group=Aggregate')));
    const quotes = new Set(rows.map((r) => r.currency.toLowerCase()));
    for (const unit of quotes) expect(names.unit).toContain(unit);
    const snek = names.unit.indexOf(SNEK);
    expect(snek).toBeGreaterThanOrEqual(0);
    expect(names.ticker[snek]).toBe('SNEK');
    // The asset name 534e454b, as text: no registry name comes from spec endpoints.
    expect(names.name[snek]).toBe('SNEK');
    const row = rows.find((r) => r.currency === SNEK);
    expect(parseSymbolName(row?.symbol ?? '')?.quote).toBe('SNEK');
  });

  it('does not claim a source the upstream does not state (the hosted API says nothing of its data)', async () => {
    const info = gatewayInfoSchema.parse(await (await get('/info')).json());
    expect(info).toMatchObject({ source: 'remote', simulated: false });
    expect(info.market).toBeUndefined();
  });

  it("answers a single token's metadata with a 404 that says why: decimals are in no spec endpoint", async () => {
    const response = await get(`/token-info/${SNEK}`);
    expect(response.status).toBe(404);
    expect(priceErrorSchema.parse(await response.json()).errmsg).toMatch(/Not available from this upstream/);
  });

  it("learns the TVL of each group's broadest pairs, as /tokens/current gives it, and names the deepest of them", async () => {
    let liquidity = gatewayLiquiditySchema.parse(await (await get('/liquidity?group=Aggregate')).json());
    await vi.waitUntil(
      async () => {
        liquidity = gatewayLiquiditySchema.parse(await (await get('/liquidity?group=Aggregate')).json());
        return liquidity.ticker.length >= CANDIDATES;
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(liquidity.ticker).toHaveLength(CANDIDATES);
    for (const [i, pool] of liquidity.ticker.entries()) {
      const stats = tokenStatsSchema.parse(await direct(`/api/v1/tokens/current?pool=${pool}`));
      // The market trades live: a block may have moved it since.
      expect(liquidity.tvl[i]).toBeGreaterThan(stats.current_tvl * 0.9);
      expect(liquidity.tvl[i]).toBeLessThan(stats.current_tvl * 1.1);
    }
    const best = liquidity.ticker[liquidity.tvl_ada.indexOf(Math.max(...liquidity.tvl_ada))];
    await vi.waitUntil(
      async () => gatewayInfoSchema.parse(await (await get('/info')).json()).deepest?.Aggregate !== undefined,
      { timeout: 30_000, interval: 200 },
    );
    const info = gatewayInfoSchema.parse(await (await get('/info')).json());
    expect(info.deepest?.Aggregate).toBe(best);

    // On this market the broadest pair is also the deepest of every Aggregate pool.
    const rows = symbolInfoRows(symbolInfoResponseSchema.parse(await direct('/api/v1/symbol_info?group=Aggregate')));
    const adaRows = rows.filter((r) => r.baseCurrency === '');
    const tvls = await Promise.all(
      adaRows.map(
        async (r) => tokenStatsSchema.parse(await direct(`/api/v1/tokens/current?pool=${r.ticker}`)).current_tvl,
      ),
    );
    expect(info.deepest?.Aggregate).toBe(adaRows[tvls.indexOf(Math.max(...tvls))]?.ticker);
  });

  it('asks whether the upstream has /api/x once, not per browser request', async () => {
    for (let i = 0; i < 5; i++) await get('/liquidity?group=Minswap');
    expect(asked('/api/x').length).toBe(1);
  });

  it("never fans browsers' requests out: many browsers cost the same bounded set of upstream requests", async () => {
    const before = seen.length;
    await Promise.all(Array.from({ length: 40 }, () => get('/liquidity?group=Aggregate')));
    await Promise.all(Array.from({ length: 40 }, () => get('/token-info')));
    // Everything was learnt already (lifetimes of minutes): nothing new upstream.
    expect(seen.length - before).toBe(0);
    // In all: /api/x, /groups, one symbol_info per group, and at most CANDIDATES pools per group (and their bases' prices).
    const groups = asked('/api/v1/symbol_info').length;
    expect(asked('/api/v1/groups').length).toBe(1);
    expect(asked('/api/v1/tokens/current?pool=').length).toBeLessThanOrEqual(groups * CANDIDATES);
  });

  it('spaces its requests at the configured rate, never in a burst', () => {
    const starts = seen.filter((s) => !s.path.startsWith('/api/x')).map((s) => s.at);
    const spacing = 60_000 / PER_MINUTE;
    // Fixed windows of one request each: any two windows' length holds at most two requests.
    for (let i = 2; i < starts.length; i++)
      expect((starts[i] as number) - (starts[i - 2] as number)).toBeGreaterThanOrEqual(spacing - 5);
    expect(seen.every((s) => s.status !== 429)).toBe(true);
  });
});
