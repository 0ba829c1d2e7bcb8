import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { groupsResponseSchema } from '../../src/shared/api/groups';
import { historyResponseSchema } from '../../src/shared/api/history';
import { streamLineSchema } from '../../src/shared/api/stream';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenLogoSchema, tokenStatsSchema } from '../../src/shared/api/tokens';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { readStream } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let values: string[];

beforeAll(async () => {
  service = await createTestService({ days: 1 });
  const { aggregate, dexPool } = await busiestPools(service.runtime, { adaPairsOnly: true });
  const now = service.clock.seconds();
  // Meaningful values, so that random queries reach the deep code paths and not only validation.
  values = [
    aggregate.poolId,
    aggregate.poolId.toUpperCase(),
    dexPool.poolId,
    aggregate.pair.quote.unit,
    'ADA.SNEK_Aggregate_Pool1',
    '1min',
    '5min',
    '15min',
    '60min',
    '1d',
    String(now),
    String(now - 3600),
    String(now - 86_400),
    '0',
    '-1',
    '1.5',
    '1e3',
    '99999999999999999999',
    'true',
    'false',
    '1',
    'Aggregate',
    'Minswap',
    'aggregate',
    '',
  ];
});
afterAll(async () => service.close());

const PARAM_NAMES = ['symbol', 'resolution', 'from', 'to', 'countback', 'include_tvl', 'group', 'policy', 'pool'];
const GET_ENDPOINTS = ['/groups', '/symbol_info', '/history', '/tokens/current', '/tokens/logo/'];

/** A raw query-string piece: sometimes encoded, sometimes raw with the characters that break parsers. */
const rawText = fc.oneof(
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.string({ unit: fc.constantFrom('%', 'z', '2', '=', '&', '+', ';', 'E', '0', '[', ']', '\u00e9'), maxLength: 8 }),
);

const SUCCESS: Record<string, $ZodType> = {
  '/groups': groupsResponseSchema,
  '/symbol_info': symbolInfoResponseSchema,
  '/history': historyResponseSchema,
  '/tokens/current': tokenStatsSchema,
  '/tokens/logo/': tokenLogoSchema,
};

/** Checks a non-stream answer: no 5xx, and a body of a documented shape for its status and family. */
async function expectDocumented(response: Response, path: string, success?: $ZodType): Promise<void> {
  expect(response.status, path).toBeLessThan(500);
  const text = await response.text();
  if (response.status === 304) return;
  const body: unknown = JSON.parse(text);
  if (response.status === 200) {
    expect(success, `200 on ${path}`).toBeDefined();
    if (success) z.parse(success, body);
    return;
  }
  const pathname = new URL(path, 'http://x').pathname;
  if (pathname.startsWith(`${API}/tokens`)) {
    expect([401, 404, 405, 422, 429], path).toContain(response.status);
    tokenErrorSchema.parse(body);
  } else {
    expect([400, 401, 404, 405, 429], path).toContain(response.status);
    priceErrorSchema.parse(body);
  }
}

describe('random requests', () => {
  it('random query strings on every GET endpoint never give a 5xx and always give a documented body', async () => {
    const { aggregate } = await busiestPools(service.runtime, { adaPairsOnly: true });
    const now = service.clock.seconds();
    // Valid queries, then mutated: each parameter kept, given another value, or dropped; extra pairs added.
    const valid: Record<string, [string, string][]> = {
      '/groups': [],
      '/symbol_info': [['group', 'Aggregate']],
      '/history': [
        ['symbol', aggregate.poolId],
        ['resolution', '5min'],
        ['from', String(now - 86_400)],
        ['to', String(now)],
        ['include_tvl', 'true'],
        ['countback', '10'],
      ],
      '/tokens/current': [
        ['policy', aggregate.pair.quote.unit],
        ['pool', aggregate.poolId],
      ],
      '/tokens/logo/': [],
    };
    const value = fc.oneof(
      fc.constantFrom(...values.keys()).map((i) => encodeURIComponent(values[i] ?? '')),
      rawText,
    );
    const mutate = (pairs: [string, string][]) =>
      fc
        .tuple(
          ...pairs.map(([name, v]) =>
            fc.oneof(
              { weight: 3, arbitrary: fc.constant([`${name}=${encodeURIComponent(v)}`]) },
              { weight: 1, arbitrary: value.map((other) => [`${name}=${other}`]) },
              { weight: 1, arbitrary: fc.constant([] as string[]) },
            ),
          ),
        )
        .map((parts) => parts.flat());
    const extra = fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...PARAM_NAMES), rawText), value).map(([n, v]) => `${n}=${v}`),
      { maxLength: 2 },
    );
    const request = fc.constantFrom(...GET_ENDPOINTS).chain((endpoint) =>
      fc.record({
        endpoint: fc.constant(endpoint),
        parts: fc.tuple(mutate(valid[endpoint] ?? []), extra).map(([a, b]) => [...a, ...b]),
        token: fc.oneof(
          fc.constant(aggregate.pair.quote.unit),
          fc.constant(aggregate.pair.quote.unit.toUpperCase()),
          rawText,
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ endpoint, parts, token }) => {
        const search = parts.join('&');
        const path = `${API}${endpoint}${endpoint.endsWith('/') ? token || 'ab' : ''}${search ? `?${search}` : ''}`;
        await expectDocumented(await service.request(path), path, SUCCESS[endpoint]);
      }),
      { numRuns: 400 },
    );
  });

  it('random paths under /api/v1, GET and POST, never give a 5xx and always give a documented body', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'tokens',
        'logo',
        'current',
        'stream',
        'history',
        'groups',
        'symbol_info',
        'v1',
        '..',
        '.',
        '',
        'ab'.repeat(28),
      ),
      rawText,
      fc.string({ maxLength: 10 }),
    );
    const known = fc.constantFrom(
      'groups',
      'symbol_info',
      'history',
      'tokens',
      'tokens/current',
      'tokens/stream',
      'tokens/logo',
      `tokens/logo/${'ab'.repeat(28)}`,
    );
    const tail = fc.oneof(
      fc.constant(''),
      fc.constant('/'),
      rawText.map((q) => `?${q}`),
    );
    const route = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(known, fc.array(segment, { maxLength: 2 }), tail)
          .map(([k, extra, end]) => [k, ...extra].join('/') + end),
      },
      { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')) },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST'), route, async (method, rest) => {
        const path = `${API}/${rest}`;
        fc.pre(URL.canParse(path, 'http://x'));
        const response = await service.request(path, method === 'POST' ? { method, body: '[]' } : { method });
        const pathname = new URL(path, 'http://x').pathname;
        if (/^\/api\/v1\/tokens\/stream\/?$/.test(pathname)) {
          expect(response.status).toBeLessThan(500);
          for (const line of await readStream(response).readToEnd()) streamLineSchema.parse(JSON.parse(line));
          return;
        }
        const endpoint = GET_ENDPOINTS.find((e) =>
          e.endsWith('/') ? pathname.startsWith(`${API}${e}`) : pathname.replace(/\/$/, '') === `${API}${e}`,
        );
        await expectDocumented(response, path, endpoint ? SUCCESS[endpoint] : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('random stream bodies never give a 5xx and only ever give stream lines', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const id = fc.oneof(
      fc.constant(aggregate.poolId),
      fc.constant(aggregate.poolId.toUpperCase()),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 70 }),
      fc.string({ maxLength: 8 }),
    );
    const body = fc.oneof(
      fc.array(id, { maxLength: 4 }).map((ids) => JSON.stringify(ids)),
      fc.json({ maxDepth: 2 }),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await service.request(`${API}/tokens/stream`, {
          method: 'POST',
          body: text,
          headers: { 'Content-Type': 'application/json' },
        });
        expect(response.status).toBeLessThan(500);
        expect(response.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
        const stream = readStream(response);
        const first = streamLineSchema.parse(await stream.next());
        if ('s' in first && first.s === 'ok') await stream.cancel();
        else expect(await stream.readToEnd()).toEqual([]);
        expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
