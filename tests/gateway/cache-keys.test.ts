import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { embeddedUpstream } from '../../src/gateway/upstream';
import { parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { spreadsSchema } from '../../src/shared/api/extensions';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';

/**
 * Issue 45: the gateway's cache could be bypassed without a key — its keys carried the raw query (a
 * group's letter case, any spelling of a number, parameters nobody reads), so each variant rebuilt or
 * re-compressed a whole-market list. Keys are now the validated, normalised parameters; and what the
 * cache cannot hold (a new `min_tvl` each time) is charged to the client address's list budget.
 */
let dir: string;
let runtime: ServiceRuntime;
let gateway: Gateway;
/** Upstream requests, by path and query. */
const calls: string[] = [];
const LIST_BUDGET = 6;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-cache-keys-'));
  runtime = await createServiceRuntime(parseServiceConfig({ 'data-dir': dir, pools: '200', days: '1', seed: '5' }, {}));
  gateway = createGateway({
    config: { ...DEFAULT_GATEWAY_CONFIG, listRequestsPerMinutePerAddress: LIST_BUDGET },
    upstream: embeddedUpstream((request) => {
      const url = new URL(request.url);
      calls.push(`${url.pathname}${url.search}`);
      return runtime.app.fetch(request);
    }, runtime.internalKey),
    // In-process requests have no socket: the client is whoever the test says.
    clientAddress: (c) => c.req.header('X-Test-Client') ?? 'client-a',
  });
});

afterAll(async () => {
  gateway.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** As a browser asks (gzip: the held answer's compressed copy is what a flood would make the gateway redo). */
const get = (path: string, client = 'client-a') =>
  gateway.app.request(`/gw/v1${path}`, { headers: { 'X-Test-Client': client, 'Accept-Encoding': 'gzip' } });
/** The answer's JSON (asked uncompressed). */
const json = async (path: string): Promise<unknown> =>
  (await gateway.app.request(`/gw/v1${path}`, { headers: { 'X-Test-Client': 'reader' } })).json();

/** Asks every variant, and returns the upstream requests they made. */
async function upstreamCallsOf(variants: readonly string[], client?: string): Promise<string[]> {
  calls.length = 0;
  for (const path of variants) {
    const answer = await get(path, client);
    expect(answer.status, path).toBe(200);
    await answer.arrayBuffer();
  }
  // The upstream's list of extension routes (`/api/x`, asked once) is no answer of these.
  return calls.filter((call) => call !== '/api/x');
}

describe('the gateway cache keys on the parsed request', () => {
  it('symbol_info: parameters nobody reads are not keyed, a group in any case is one answer', async () => {
    const variants = Array.from({ length: 30 }, (_, n) => `/symbol_info?cb=${n}`);
    expect(await upstreamCallsOf(variants)).toEqual(['/api/v1/symbol_info']);
    const group = [
      'group=Aggregate',
      'group=aggregate',
      'group=AGGREGATE&cb=1',
      'cb=2&group=aGgReGaTe',
      'group=%61ggregate',
    ];
    expect(await upstreamCallsOf(group.map((q) => `/symbol_info?${q}`))).toEqual([
      '/api/v1/symbol_info?group=Aggregate',
    ]);
    // The answer is the group's, whatever the spelling asked.
    const body = symbolInfoResponseSchema.parse(await json('/symbol_info?group=MINSWAP&x=1'));
    expect(new Set(body['exchange-listed'])).toEqual(new Set(['Minswap']));
  });

  it('group-stats and liquidity: the group case-folded, other parameters dropped', async () => {
    const lists = ['Aggregate', 'aggregate', 'AGGREGATE', 'AgGrEgAtE'].map((g, n) => `/group-stats?group=${g}&cb=${n}`);
    expect(await upstreamCallsOf(lists)).toEqual(['/api/x/group-stats?group=Aggregate']);
    const liquidity = ['Minswap', 'minswap', 'MINSWAP'].map((g, n) => `/liquidity?group=${g}&cb=${n}`);
    expect(await upstreamCallsOf(liquidity)).toEqual(['/api/x/liquidity?group=Minswap']);
  });

  it('spreads: min_tvl as a number (1e3, 1000.0, 01000 are one answer), other parameters dropped', async () => {
    const spellings = ['1000', '1e3', '1000.0', '01000', '1000&cb=9', '1E3&x=y'].map((v) => `/spreads?min_tvl=${v}`);
    expect(await upstreamCallsOf(spellings)).toEqual(['/api/x/spreads?min_tvl=1000']);
    expect(spreadsSchema.parse(await json('/spreads?min_tvl=1e3')).min_tvl).toBe(1000);
  });

  it('a token logo: one answer per token, whatever query or letter case', async () => {
    const unit = [...runtime.market.tokens.values()].find((t) => t.unit !== '')?.unit ?? '';
    const variants = [unit, unit.toUpperCase(), `${unit}?cb=1`, `${unit}?size=9`].map((u) => `/tokens/logo/${u}`);
    calls.length = 0;
    for (const path of variants) {
      const answer = await gateway.app.request(`/gw/v1${path}`, { headers: { Accept: 'application/json' } });
      expect([200, 404], path).toContain(answer.status);
    }
    expect(calls).toEqual([`/api/v1/tokens/logo/${unit}`]);
  });
});

describe("a client address's list budget", () => {
  it('charges only the whole-market answers the gateway has to fetch: past the budget, 429 in the price shape', async () => {
    // A spread list for a new min_tvl each time: every one is built, so each is charged.
    const statuses: number[] = [];
    for (let n = 1; n <= LIST_BUDGET + 4; n++) {
      const answer = await get(`/spreads?min_tvl=${n * 7}`, 'flooder');
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.headers.get('RateLimit-Limit')).toBe(String(LIST_BUDGET));
        expect(answer.headers.get('RateLimit-Remaining')).toBe('0');
        expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThan(0);
        expect(priceErrorSchema.parse(await answer.json()).errmsg).toMatch(
          new RegExp(
            `^Rate limit exceeded: ${LIST_BUDGET} whole-market answers the gateway has to build per minute per client address`,
          ),
        );
      } else await answer.arrayBuffer();
    }
    expect(statuses).toEqual([...Array<number>(LIST_BUDGET).fill(200), 429, 429, 429, 429]);
    // What the cache holds is free: the same address still gets it, and symbol_info in any spelling.
    expect((await get('/spreads?min_tvl=7', 'flooder')).status).toBe(200);
    expect((await get('/spreads?min_tvl=7.0&cb=3', 'flooder')).status).toBe(200);
    expect((await get('/symbol_info?cb=12345', 'flooder')).status).toBe(200);
    // Named rows of a group are not a whole-market answer.
    const pool = [...runtime.market.pools.values()].find((p) => p.group === 'Aggregate')?.poolId ?? '';
    expect((await get(`/group-stats?group=Aggregate&pools=${pool}`, 'flooder')).status).toBe(200);
    // Another address has its own budget.
    expect((await get('/spreads?min_tvl=12345', 'neighbour')).status).toBe(200);
    // And the REST budget's headers do not replace the list budget's on its refusal.
    const refused = await get('/spreads?min_tvl=99999', 'flooder');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('RateLimit-Limit')).toBe(String(LIST_BUDGET));
    expect(gateway.listRefusals).toBeGreaterThanOrEqual(5);
  });
});

describe("a client address's budget of held whole-market bytes", () => {
  it('charges the lists sent from the cache by their size: past the budget, 429 naming it; other addresses unaffected', async () => {
    // The size of the held answer asked below (uncompressed).
    const bytes = (await (await gateway.app.request('/gw/v1/symbol_info?group=Aggregate')).arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(1_000);
    const budget = Math.floor(2.5 * bytes);
    const limited = createGateway({
      config: { ...DEFAULT_GATEWAY_CONFIG, listBytesPerMinutePerAddress: budget },
      upstream: embeddedUpstream((request) => runtime.app.fetch(request), runtime.internalKey),
      clientAddress: (c) => c.req.header('X-Test-Client') ?? 'client-a',
    });
    try {
      const ask = (client: string) =>
        limited.app.request('/gw/v1/symbol_info?group=Aggregate&cb=' + Math.random(), {
          headers: { 'X-Test-Client': client, 'Accept-Encoding': 'gzip' },
        });
      // The first ask builds the list (the count budget pays); the next two are sent from the cache within 2.5 sizes.
      const statuses: number[] = [];
      for (let n = 0; n < 5; n++) {
        const answer = await ask('bytes-flooder');
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(answer.headers.get('RateLimit-Limit')).toBe(String(budget));
          expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThan(0);
          expect(priceErrorSchema.parse(await answer.json()).errmsg).toMatch(
            /^Rate limit exceeded: \d+ (KiB|MiB) of whole-market answers per minute per client address; retry in \d+ s$/,
          );
        } else await answer.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // Another address has its own budget; what is not a whole-market answer is not charged.
      expect((await ask('bytes-neighbour')).status).toBe(200);
      expect(
        (await limited.app.request('/gw/v1/groups', { headers: { 'X-Test-Client': 'bytes-flooder' } })).status,
      ).toBe(200);
      expect(limited.listRefusals).toBe(2);
    } finally {
      limited.close();
    }
  });
});

describe('a rollback sent to the browsers', () => {
  it('drops the held answers that carry prices (symbol_info, the whole-market lists), not the groups', async () => {
    const paths = ['/groups', '/symbol_info', '/spreads?min_tvl=500', '/group-stats?group=Aggregate'];
    await upstreamCallsOf(paths, 'rollback-reader');
    // Held: asked again, nothing goes upstream.
    expect(await upstreamCallsOf(paths, 'rollback-reader')).toEqual([]);
    gateway.hub.onRollback({ s: 'rollback', slot: 140_000_020, id: 'ab'.repeat(32), block_time: 1_731_566_311 }, {});
    expect(await upstreamCallsOf(paths, 'rollback-reader')).toEqual([
      '/api/v1/symbol_info',
      '/api/x/spreads?min_tvl=500',
      '/api/x/group-stats?group=Aggregate',
    ]);
  });
});
