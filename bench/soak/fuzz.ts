import fc from 'fast-check';
import { Client, request } from 'undici';
import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import {
  deepestSchema,
  extensionIndexSchema,
  groupStatsSchema,
  liquiditySchema,
  marketSourceResponseSchema,
  pairPoolsResponseSchema,
  tokenInfoSchema,
  tokenNamesSchema,
  tradesResponseSchema,
} from '../../src/shared/api/extensions';
import { streamLineSchema } from '../../src/shared/api/stream';
import {
  udfConfigSchema,
  udfHistoryResponseSchema,
  udfSearchItemSchema,
  udfSymbolSchema,
} from '../../src/shared/api/udf';
import { gatewayInfoSchema } from '../../src/shared/api/gateway';
import { groupsResponseSchema } from '../../src/shared/api/groups';
import { historyResponseSchema } from '../../src/shared/api/history';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenLogoSchema, tokenStatsSchema } from '../../src/shared/api/tokens';
import type { SoakServer } from './server';

/** One generated request. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The endpoint it was generated for (for the report). */
  readonly endpoint: string;
  /** Sent with its path exactly as written (dot segments, `\`), through undici's dispatcher API. */
  readonly raw?: boolean;
}

export interface FuzzResult {
  readonly requests: number;
  /** Requests our HTTP client refused to send (invalid header or path characters): not sent, not counted. */
  readonly unsendable: number;
  readonly status5xx: number;
  readonly badShape: number;
  readonly hangs: number;
  /** A few examples of each kind of failure. */
  readonly examples: readonly string[];
  readonly byStatus: Readonly<Record<string, number>>;
}

const HANG_MS = 5_000;

/** Odd values any parameter may get: empty, huge, unicode, encoded separators, numbers of every kind. */
const ODD = [
  '',
  ' ',
  '-1',
  '0',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '0x10',
  '1.5',
  '%00',
  '%2F..%2F',
  '..',
  '%2e%2e',
  '%5C',
  '\\',
  '%',
  '%%',
  '%zz',
  '\u0000',
  '𝕊𝕟𝕖𝕜',
  '\uFEFF',
  '<script>',
  "' OR 1=1 --",
  '9'.repeat(400),
  'a'.repeat(20_000),
  'A.B.C',
  'ADA.',
  '.ADA',
  'true',
  'null',
  '[]',
  '{}',
];

/** What a parameter gets: a real value, or noise. */
function value(real: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
  );
}

/** A query string from optional parameters, each encoded, or (sometimes) sent raw. */
function query(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const entries = Object.entries(params).map(([name, arb]) =>
    fc.option(fc.tuple(fc.constant(name), arb, fc.boolean()), { freq: 3 }),
  );
  return fc
    .tuple(
      ...entries,
      fc.option(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), fc.constant(false))),
    )
    .map((pairs) => {
      const parts = pairs
        .filter((p): p is [string, string, boolean] => p !== null)
        .map(
          ([k, v, raw]) =>
            `${encodeURIComponent(k)}=${raw ? v.replace(/[\s#?&]/g, encodeURIComponent) : encodeURIComponent(v)}`,
        );
      return parts.length === 0 ? '' : `?${parts.join('&')}`;
    });
}

function authHeader(key: string): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ Authorization: `Bearer ${key}` }) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          'Bearer',
          'Bearer ',
          `bearer ${key}`,
          `Bearer  ${key} `,
          `Basic ${key}`,
          `Bearer ${key}x`,
          `Bearer ${'k'.repeat(8_000)}`,
          `Bearer ${key},Bearer x`,
          'Token abc',
          `Bearer\t${key}`,
        )
        .map((v) => ({ Authorization: v })),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((v) => ({ Authorization: v })) },
  );
}

const METHOD = fc.oneof(
  { weight: 12, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
);

/** Everything the fuzzer needs to know about the market: real values to mix with noise. */
export interface FuzzSeeds {
  readonly key: string;
  readonly groups: readonly string[];
  readonly symbols: readonly string[];
  readonly pools: readonly string[];
  /** Aggregate pool IDs (the only ones a stream accepts). */
  readonly aggregates: readonly string[];
  readonly tokens: readonly string[];
}

export function generator(seeds: FuzzSeeds): fc.Arbitrary<FuzzRequest> {
  const group = value(seeds.groups);
  const symbol = value(seeds.symbols);
  const pool = value(seeds.pools);
  const token = value(seeds.tokens);
  const resolution = value(['1min', '5min', '15min', '60min', '1d', '1D', '1', '1w']);
  const time = value(['1700000000', String(Math.floor(Date.now() / 1000)), '0', '99999999999']);
  const flag = value(['true', 'false', '1', '0', 'yes', 'TRUE']);
  const streamBody = fc.oneof(
    fc.array(pool, { maxLength: 12 }).map((p) => JSON.stringify(p)),
    fc.constantFrom(
      '',
      '{}',
      'null',
      '"x"',
      '[1,2]',
      '[[]]',
      '[',
      'not json',
      `[${'"x",'.repeat(50_000)}"x"]`,
      JSON.stringify(Array.from({ length: 20_000 }, () => 'a'.repeat(56))),
    ),
    fc.json({ maxDepth: 3 }),
    fc.string({ unit: 'binary', maxLength: 64 }),
  );
  // Endpoint templates: [name, prefix family, path and query arbitrary, needs auth, method, body].
  const api = (prefix: string, authed: boolean): fc.Arbitrary<FuzzRequest>[] => {
    const headers = authed ? authHeader(seeds.key) : fc.constant({});
    const get = (endpoint: string, path: fc.Arbitrary<string>) =>
      fc.tuple(path, headers, METHOD).map(([p, h, m]): FuzzRequest => ({
        method: m || 'GET',
        path: `${prefix}${p}`,
        headers: h,
        endpoint: `${prefix}${endpoint}`,
      }));
    return [
      get('/groups', fc.constantFrom('/groups', '/groups/', '/groups//')),
      get(
        '/symbol_info',
        query({ group }).map((q) => `/symbol_info${q}`),
      ),
      get(
        '/history',
        query({
          symbol,
          resolution,
          from: time,
          to: time,
          countback: value(['1', '300', '5000', '5001']),
          include_tvl: flag,
        }).map((q) => `/history${q}`),
      ),
      get(
        '/tokens/current',
        query({ policy: token, pool }).map((q) => `/tokens/current${q}`),
      ),
      get(
        '/tokens/logo/{token}',
        token.map((t) => `/tokens/logo/${encodeURIComponent(t)}`),
      ),
      get(
        '/{unknown}',
        fc.string({ maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`),
      ),
      get(
        '/{raw}',
        fc.constantFrom(
          '/%2e%2e/healthz',
          '/tokens/%2e%2e/groups',
          '/tokens/..%2fgroups',
          '/history%00',
          '/groups%2F',
          '//groups',
          '/tokens/logo/',
          '/tokens/logo/%2F',
        ),
      ),
      fc
        .tuple(
          streamBody,
          headers,
          fc.constantFrom('application/json', 'text/plain', '', 'application/json; charset=utf-16'),
        )
        .map(([body, h, type]): FuzzRequest => ({
          method: 'POST',
          path: `${prefix}/tokens/stream`,
          headers: { ...h, ...(type ? { 'Content-Type': type } : {}) },
          body,
          endpoint: `${prefix}/tokens/stream`,
        })),
    ];
  };
  const extensions = (
    prefix: string,
    authed: boolean,
    paths: Record<string, fc.Arbitrary<string>>,
  ): fc.Arbitrary<FuzzRequest>[] => {
    const headers = authed ? authHeader(seeds.key) : fc.constant({});
    return Object.entries(paths).map(([endpoint, path]) =>
      fc.tuple(path, headers, METHOD).map(([p, h, m]): FuzzRequest => ({
        method: m || 'GET',
        path: `${prefix}${p}`,
        headers: h,
        endpoint: `${prefix}${endpoint}`,
      })),
    );
  };
  const trades = query({
    pool,
    before: value(['1700000000.1', '1700000000.123456', '1.1']),
    limit: value(['1', '50', '200', '201']),
  }).map((q) => `/trades${q}`);
  const pairPools = query({ pool }).map((q) => `/pair-pools${q}`);
  // The overview's rows: a whole group, or the pools a screen names (real IDs, noise, too many, separators).
  const poolList = fc.oneof(
    fc.array(pool, { maxLength: 8 }).map((p) => p.join(',')),
    fc.constantFrom(
      ',',
      'ab,',
      ',ab',
      'zz',
      'ab,,cd',
      Array.from({ length: 101 }, (_, i) => (i + 16).toString(16).padStart(2, '0')).join(','),
      'a'.repeat(130),
    ),
  );
  const groupStats = query({ group, pools: poolList }).map((q) => `/group-stats${q}`);
  const udfResolution = value(['1', '5', '15', '60', '1D', 'D', '1440', '1W', '30']);
  const udf: Record<string, fc.Arbitrary<string>> = {
    '/udf/config': fc.constantFrom('/udf/config', '/udf/config/'),
    '/udf/time': fc.constant('/udf/time'),
    '/udf/symbols': query({ symbol }).map((q) => `/udf/symbols${q}`),
    '/udf/symbol_info': query({ group }).map((q) => `/udf/symbol_info${q}`),
    '/udf/search': query({
      query: value(['ADA', 'snek', 'ada.']),
      type: value(['', 'spot']),
      exchange: group,
      limit: value(['30', '100', '0']),
    }).map((q) => `/udf/search${q}`),
    '/udf/history': query({
      symbol,
      resolution: udfResolution,
      from: time,
      to: time,
      countback: value(['0', '1', '300']),
    }).map((q) => `/udf/history${q}`),
  };
  // Paths sent exactly as written: dot segments and backslashes a client could send before any URL parsing.
  const rawPath = fc
    .tuple(
      fc.constantFrom('/api/v1', '/gw/v1', '/api/x', '/udf', '/gw/v1/udf'),
      fc.constantFrom(
        '/%2e%2e/healthz',
        '/./groups',
        '/../healthz',
        '/groups\\',
        '/a\\..\\groups',
        '/tokens/%2E%2E/current',
        '/%2e/history',
        '/.%2e/x',
        '//groups',
        '/config/..',
        '/history/.',
      ),
      authHeader(seeds.key),
      METHOD,
    )
    .map(([prefix, tail, h, m]): FuzzRequest => ({
      method: m || 'GET',
      path: `${prefix}${tail}`,
      headers: h,
      endpoint: `${prefix}/{raw path}`,
      raw: true,
    }));
  return fc.oneof(
    ...api('/api/v1', true),
    ...api('/gw/v1', false),
    ...extensions('/api/x', true, {
      '': fc.constantFrom('', '/'),
      '/liquidity': query({ group }).map((q) => `/liquidity${q}`),
      '/deepest': fc.constant('/deepest'),
      '/token-info': fc.constant('/token-info'),
      '/token-info/{unit}': token.filter((t) => t !== '').map((t) => `/token-info/${encodeURIComponent(t)}`),
      '/trades': trades,
      '/pair-pools': pairPools,
      '/market': fc.constant('/market'),
      '/group-stats': groupStats,
    }),
    ...extensions('/gw/v1', false, {
      '/info': fc.constant('/info'),
      '/liquidity': query({ group }).map((q) => `/liquidity${q}`),
      '/token-info': fc.constant('/token-info'),
      '/token-info/{unit}': token.filter((t) => t !== '').map((t) => `/token-info/${encodeURIComponent(t)}`),
      '/live': query({
        pools: fc.array(pool, { maxLength: 60 }).map((p) => p.join(',')),
        lastEventId: value(['1', 'x']),
      }).map((q) => `/live${q}`),
      '/trades': trades,
      '/pair-pools': pairPools,
      '/group-stats': groupStats,
      ...udf,
    }),
    ...extensions('', true, udf),
    rawPath,
  );
}

/** The schema a 2xx answer of an endpoint must satisfy (undefined: a stream, checked by its headers). */
function successSchema(endpoint: string): $ZodType | undefined {
  if (endpoint.endsWith('/udf/time')) return z.number();
  const tail = endpoint.replace(/^\/(api\/v1|gw\/v1|api\/x)/, '');
  const table: Record<string, $ZodType | undefined> = {
    '/groups': groupsResponseSchema,
    '/symbol_info': symbolInfoResponseSchema,
    '/history': historyResponseSchema,
    '/tokens/current': tokenStatsSchema,
    '/tokens/logo/{token}': tokenLogoSchema,
    '': extensionIndexSchema,
    '/liquidity': liquiditySchema,
    '/deepest': deepestSchema,
    '/token-info': tokenNamesSchema,
    '/token-info/{unit}': tokenInfoSchema,
    '/info': gatewayInfoSchema,
    '/trades': tradesResponseSchema,
    '/pair-pools': pairPoolsResponseSchema,
    '/market': marketSourceResponseSchema,
    '/group-stats': groupStatsSchema,
    '/udf/config': udfConfigSchema,
    '/udf/symbols': udfSymbolSchema,
    '/udf/symbol_info': symbolInfoResponseSchema,
    '/udf/search': z.array(udfSearchItemSchema),
    '/udf/history': udfHistoryResponseSchema,
  };
  return table[tail];
}

/** Any endpoint's success answer (for a request the client sent elsewhere than it was generated for). */
const anySuccessSchema = z.union([
  groupsResponseSchema,
  symbolInfoResponseSchema,
  historyResponseSchema,
  tokenStatsSchema,
  tokenLogoSchema,
  extensionIndexSchema,
  liquiditySchema,
  deepestSchema,
  tokenNamesSchema,
  tokenInfoSchema,
  gatewayInfoSchema,
  tradesResponseSchema,
  pairPoolsResponseSchema,
  marketSourceResponseSchema,
  groupStatsSchema,
  udfConfigSchema,
  udfSymbolSchema,
  z.array(udfSearchItemSchema),
  udfHistoryResponseSchema,
  z.number(),
  z.looseObject({ status: z.enum(['ok', 'degraded']) }),
]);

/** The error family of a path: `/tokens/...` answers FastAPI-style, everything else price-style. */
function errorSchema(path: string): $ZodType {
  return /^\/(api|gw)\/v1\/tokens(\/|$|\?)/.test(path) ? tokenErrorSchema : priceErrorSchema;
}

/** The first line of a stream, read for up to a second (the rest is left: the request is then aborted). */
async function firstStreamLine(body: AsyncIterable<Buffer>): Promise<string | undefined> {
  let text = '';
  const deadline = Date.now() + 1_000;
  const iterator = body[Symbol.asyncIterator]();
  while (!text.includes('\n') && Date.now() < deadline) {
    const chunk = await Promise.race([
      iterator.next(),
      new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))),
    ]);
    if (chunk === 'late' || chunk.done) break;
    text += chunk.value.toString('utf8');
  }
  const newline = text.indexOf('\n');
  return newline === -1 ? undefined : text.slice(0, newline);
}

/**
 * Sends `count` generated requests (`concurrency` at a time) and checks each answer: no 5xx, a body in
 * the documented shape for its status (the endpoint's schema on 2xx, the family's error shape
 * otherwise; streams by their content type), and an answer within 5 s.
 */
export async function fuzz(
  server: SoakServer,
  seeds: FuzzSeeds,
  count: number,
  seed: number,
  concurrency = 16,
): Promise<FuzzResult> {
  const samples = fc.sample(generator(seeds), { numRuns: count, seed });
  const examples: string[] = [];
  const byStatus: Record<string, number> = {};
  let status5xx = 0;
  let badShape = 0;
  let hangs = 0;
  let unsendable = 0;
  const seen = new Set<string>();
  // One example per kind of failure, endpoint and status, so a report shows each distinct defect once.
  const note = (kind: string, req: FuzzRequest, detail: string) => {
    const key = `${kind} ${req.method} ${req.endpoint} ${detail.slice(0, 3)}`;
    if (seen.has(key) || examples.length >= 40) return;
    seen.add(key);
    examples.push(`${kind} ${req.method} ${req.path.slice(0, 160)} -> ${detail.slice(0, 200)}`);
  };
  let next = 0;
  // Most requests go as browsers send them (the URL parsed: dot segments resolved, `\` made `/`), and
  // are judged for the path the server was sent; raw-path requests go through a client of their own
  // that sends the path exactly as written.
  const rawClient = new Client(server.origin);
  const worker = async () => {
    for (;;) {
      const index = next++;
      const req = samples[index];
      if (req === undefined) return;
      // The whole exchange (answer and body) within HANG_MS, whatever the client library does on abort.
      let settled = false;
      const attempt = (async () => {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), HANG_MS);
        try {
          const body =
            req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { body: req.body } : {};
          const response = req.raw
            ? await rawClient.request({
                path: req.path,
                method: req.method as 'GET',
                headers: req.headers,
                ...body,
                signal: abort.signal,
              })
            : await request(`${server.origin}${req.path}`, {
                method: req.method as 'GET',
                headers: req.headers,
                ...body,
                signal: abort.signal,
              });
          const status = response.statusCode;
          byStatus[status] = (byStatus[status] ?? 0) + 1;
          const type = String(response.headers['content-type'] ?? '');
          const streaming = /ndjson|event-stream/.test(type);
          if (streaming) {
            // An open stream: the API's first line must be one of the stream's kinds (the gateway's SSE
            // is judged by its headers); then hang up.
            if (req.path.includes('/tokens/stream') && !req.path.startsWith('/gw/')) {
              const line = await firstStreamLine(response.body).catch(() => undefined);
              let parsed: unknown;
              try {
                parsed = line === undefined ? undefined : JSON.parse(line);
              } catch {
                parsed = Symbol('not json');
              }
              if (line !== undefined && !streamLineSchema.safeParse(parsed).success) {
                badShape++;
                note('shape', req, `${status} stream line ${line}`);
              }
            }
            abort.abort();
            await response.body.text().catch(() => '');
          } else {
            const text = await response.body.text();
            if (status >= 500) {
              status5xx++;
              note('5xx', req, `${status} ${text}`);
            } else if (req.method === 'HEAD' || req.method === 'OPTIONS' || status === 204 || status === 304) {
              // No body to check.
            } else {
              const sent = req.raw
                ? { pathname: req.path.split('?')[0] ?? '', search: '' }
                : new URL(`${server.origin}${req.path}`);
              // The client resolved dot segments: a success is judged as an answer of whichever endpoint got the request.
              const moved = req.raw || sent.pathname !== (req.path.split('?')[0] ?? '');
              const schema =
                status < 300
                  ? moved
                    ? anySuccessSchema
                    : successSchema(req.endpoint)
                  : errorSchema(`${sent.pathname}${sent.search}`);
              let parsed: unknown;
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = Symbol('not json');
              }
              if (schema && !z.safeParse(schema, parsed).success) {
                badShape++;
                note('shape', req, `${status} ${type} ${text}`);
              }
            }
          }
        } catch (error) {
          const name = (error as { code?: string; name?: string }).code ?? (error as Error).name;
          if (abort.signal.aborted) {
            hangs++;
            note('hang', req, 'no answer within 5 s');
          } else if (name === 'UND_ERR_INVALID_ARG' || name === 'InvalidArgumentError' || name === 'TypeError') {
            unsendable++;
          } else {
            // A reset or closed socket without an answer counts like a 5xx: the client got nothing.
            status5xx++;
            note('reset', req, String(error));
          }
        } finally {
          clearTimeout(timer);
        }
      })().finally(() => (settled = true));
      await Promise.race([attempt, new Promise((resolve) => setTimeout(resolve, HANG_MS + 1_000))]);
      if (!settled) {
        hangs++;
        note('hang', req, 'no complete answer within 5 s');
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await rawClient.close().catch(() => undefined);
  return { requests: samples.length - unsendable, unsendable, status5xx, badShape, hangs, examples, byStatus };
}
