import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { priceErrorSchema, tokenErrorSchema } from '../../shared/api/errors';
import {
  deepestSchema,
  extensionIndexSchema,
  marketSourceResponseSchema,
  marketStatusSchema,
  liquiditySchema,
  tokenInfoSchema,
  tokenNamesSchema,
  tradesResponseSchema,
  pairPoolsResponseSchema,
  groupStatsSchema,
  spreadsSchema,
} from '../../shared/api/extensions';
import {
  groupStatsQuerySchema,
  historyQuerySchema,
  liquidityQuerySchema,
  pairPoolsQuerySchema,
  symbolInfoQuerySchema,
  tokenCurrentQuerySchema,
  tradesQuerySchema,
  spreadsQuerySchema,
} from '../../shared/api/queries';
import { groupsResponseSchema } from '../../shared/api/groups';
import {
  udfConfigSchema,
  udfHistoryQuerySchema,
  udfHistoryResponseSchema,
  udfQuotesQuerySchema,
  udfQuotesResponseSchema,
  udfSearchItemSchema,
  udfSearchQuerySchema,
  udfSymbolInfoQuerySchema,
  udfSymbolSchema,
  udfSymbolsQuerySchema,
} from '../../shared/api/udf';
import { historyResponseSchema } from '../../shared/api/history';
import {
  streamErrorSchema,
  streamPingSchema,
  streamRequestSchema,
  streamMetadataSchema,
  streamRollbackSchema,
  tradeEventSchema,
} from '../../shared/api/stream';
import { symbolInfoResponseSchema } from '../../shared/api/symbol-info';
import { tokenLogoSchema, tokenStatsSchema } from '../../shared/api/tokens';

/**
 * The service's OpenAPI 3.1 document, generated from the wire contract's zod schemas by zod-openapi
 * (never written by hand): every route of /api/v1, our extensions (/api/x, /udf) under their own tags,
 * both error families with their status codes, the stream's line kinds, the Bearer scheme. Served at
 * /openapi.json, with Swagger UI at /docs (README "The API, with curl"; docs/decisions.md "OpenAPI").
 */

const EXAMPLE_POOL = 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c';
const EXAMPLE_TOKEN = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';

const rateHeaders = {
  'RateLimit-Limit': { description: 'Requests per minute of the key’s plan.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in this minute.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the budget is full again.', schema: { type: 'integer' } },
} as const;

/** The error answers of a family: every status it uses, in its shape. */
function errors(family: 'price' | 'tokens', statuses: readonly number[]): ZodOpenApiResponsesObject {
  const schema = family === 'price' ? priceErrorSchema : tokenErrorSchema;
  const text: Record<number, string> = {
    400: 'Invalid parameters (or an invalid path: a raw `\\` or a dot segment).',
    401: 'No key, or an unknown or revoked key (`WWW-Authenticate: Bearer`).',
    404: 'Unknown symbol, group, pool or token; or an unknown path.',
    405: 'Wrong method for a known path (`Allow` lists the right ones).',
    422: 'Invalid parameters (FastAPI-style validation error).',
    429: 'The key’s plan allows no more requests this minute (`Retry-After`).',
    431: 'Request line and headers over 16 KiB together.',
    500: 'An unexpected error (never expected; reported by the soak suite).',
    503: 'The store cannot answer right now.',
  };
  const out: ZodOpenApiResponsesObject = {};
  for (const status of statuses) {
    out[String(status) as '400'] = {
      description: text[status] ?? 'Error',
      content: {
        'application/json': {
          schema,
          example:
            family === 'price'
              ? { s: 'error', errmsg: text[status] ?? 'Error' }
              : {
                  detail: [
                    {
                      loc: status === 422 ? ['query', 'policy'] : ['header', 'Authorization'],
                      msg: text[status] ?? 'Error',
                      type: status === 422 ? 'missing' : 'error',
                    },
                  ],
                },
        },
      },
      ...(status === 429
        ? {
            headers: {
              ...rateHeaders,
              'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
            },
          }
        : {}),
    };
  }
  return out;
}

/** The stream family's error answers: one `{"s":"error","errmsg":…}` line as the whole body. */
function streamErrors(statuses: readonly number[]): ZodOpenApiResponsesObject {
  const json = errors('price', statuses);
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, answer] of Object.entries(json)) {
    out[status as '400'] = {
      ...answer,
      content: {
        'text/event-stream': {
          schema: streamErrorSchema,
          example: { s: 'error', errmsg: 'Connection limit exceeded' },
        },
      },
    } as ZodOpenApiResponseObject;
  }
  return out;
}

const PRICE_ERRORS = [400, 401, 404, 405, 429, 431, 500, 503] as const;
const TOKEN_ERRORS = [400, 401, 404, 405, 422, 429, 431, 500, 503] as const;

const json = (schema: $ZodType, description: string, example?: unknown): ZodOpenApiResponseObject => ({
  description,
  headers: rateHeaders,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});

const notModified = { '304': { description: 'Not modified (`If-None-Match` matched the ETag).' } };

function get(operation: Omit<ZodOpenApiOperationObject, 'security'> & { tags: string[] }): {
  get: ZodOpenApiOperationObject;
} {
  return { get: { security: [{ bearer: [] }], ...operation } };
}

/** The OpenAPI document (built once; the schemas do not change at run time). */
export function openApiDocument(): object {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Token & Price Data Service',
      version: '1.0.0',
      description:
        'Cardano DEX prices: symbols, OHLCV history, token statistics and logos, and a live stream of pool state changes. ' +
        'Every route needs `Authorization: Bearer <API key>`. Errors come in two families: `{"s":"error","errmsg":…}` for the price routes ' +
        'and the stream, FastAPI-style `{"detail":[…]}` for the token routes. Routes outside /api/v1 are extensions of this server.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Prices', description: 'The spec’s UDF-style price endpoints.' },
      { name: 'Tokens', description: 'The spec’s token endpoints and the live stream.' },
      {
        name: 'Extensions',
        description: 'Ours, outside the spec: answered from the market in memory (a hosted service may lack them).',
      },
      { name: 'UDF', description: 'Ours: TradingView’s UDF protocol over the same data (docs/udf.md).' },
    ],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key of a plan (free, pro, enterprise).' },
      },
    },
    paths: {
      '/api/v1/groups': get({
        tags: ['Prices'],
        summary: 'The DEX groups',
        responses: {
          '200': json(groupsResponseSchema, 'Every group, Aggregate included.', {
            s: 'ok',
            d: { groups: [{ id: 'Minswap' }, { id: 'MinswapV2' }, { id: 'Aggregate' }] },
          }),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/v1/symbol_info': get({
        tags: ['Prices'],
        summary: 'Symbols of a group (columnar), or of every group without `group`',
        requestParams: { query: symbolInfoQuerySchema },
        responses: {
          '200': json(symbolInfoResponseSchema, 'Columnar symbol information; gzip when accepted; strong ETag.'),
          ...notModified,
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/v1/history': get({
        tags: ['Prices'],
        summary: 'OHLCV bars of a symbol',
        description:
          'Bars with from <= t < to (or the last `countback` bars before `to`); `include_tvl` adds the TVL column. Resolutions: 1min, 5min, 15min, 60min, 1d.',
        requestParams: { query: historyQuerySchema },
        responses: {
          '200': json(historyResponseSchema, 'Bars, oldest first (empty arrays when there are none).', {
            s: 'ok',
            t: [1700000040],
            o: [0.5],
            h: [0.52],
            l: [0.49],
            c: [0.51],
            v: [1200.5],
          }),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/v1/tokens/current': get({
        tags: ['Tokens'],
        summary: 'Statistics of a token’s ADA Aggregate pool (`policy`) or of a pool (`pool`)',
        requestParams: { query: tokenCurrentQuerySchema },
        responses: {
          '200': json(tokenStatsSchema, 'Price, TVL, and their 1 h and 24 h changes and volumes.', {
            current_price: 0.00371,
            current_tvl: 2000400,
            hourly_price_change: 0.27,
            hourly_tvl_change: 0.02,
            hourly_volume: 1200,
            daily_price_change: -2.1,
            daily_tvl_change: 0.5,
            daily_volume: 35000,
          }),
          ...errors('tokens', TOKEN_ERRORS),
        },
      }),
      '/api/v1/tokens/logo/{token}': get({
        tags: ['Tokens'],
        summary: 'A token’s logo',
        description:
          'The spec’s JSON string of base64 PNG (or null) for programs; the PNG bytes for browsers (a request with `Sec-Fetch-Dest` or `Origin` and no `Accept` but `*/*`) and for an `Accept` preferring an image type to application/json; a token without a logo is then a 404. An explicit `Accept` always wins (docs/decisions.md “Logos for browsers and for programs”).',
        requestParams: {
          path: z.object({
            token: z.string().meta({ description: 'Policy ID and hex asset name.', example: EXAMPLE_TOKEN }),
          }),
        },
        responses: {
          '200': {
            description: 'The logo.',
            headers: rateHeaders,
            content: {
              'application/json': { schema: tokenLogoSchema },
              'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
            },
          },
          ...notModified,
          ...errors('tokens', TOKEN_ERRORS),
        },
      }),
      '/api/v1/tokens/stream': {
        post: {
          tags: ['Tokens'],
          security: [{ bearer: [] }],
          summary: 'Live pool state changes of Aggregate pools',
          description:
            'A long-lived response, one JSON object per line: trade events, `{"s":"ok"}` pings every 20 s, and `{"s":"error","errmsg":…}` lines. ' +
            'A refusal (bad body, limits, authentication) is one error line on a 200 that then ends. One connection per key (plan: `streamsPerKey`): ' +
            'a stream whose key has every slot held waits up to 2 s (`STREAM_HANDOVER_MS`) for one to free, as when a client aborts its stream and opens the next at once, then is refused with `Connection limit exceeded`; `Prefer: wait=0` asks to be refused at once (docs/decisions.md “Stream”). ' +
            'Extension of this server: a stream opened with `X-Stream-Extensions: rollback` also gets `{"s":"rollback","slot":…,"id":…,"block_time":…}` when a chain-fed market rolled back to that block (every event after `block_time` was undone: reload the history after it); one opened with `X-Stream-Extensions: metadata` (both: `rollback, metadata`) also gets `{"s":"metadata","version":…,"units":[…]}` when what the service knows of those tokens changed (names, tickers, decimals: answers about them read anew in whole units of the new decimals; an empty list: any token); other streams never do (docs/chain.md).',
          requestBody: { content: { 'application/json': { schema: streamRequestSchema, example: [EXAMPLE_POOL] } } },
          responses: {
            '200': {
              description: 'The stream (each line one of the kinds below).',
              content: {
                'text/event-stream': {
                  schema: z.union([
                    tradeEventSchema,
                    streamPingSchema,
                    streamErrorSchema,
                    streamRollbackSchema,
                    streamMetadataSchema,
                  ]),
                },
              },
            },
            // Refusals the stream route makes itself are one error line in the stream's media type...
            ...streamErrors([404, 405, 429, 500, 503]),
            // ...while the server's own refusals before any route (raw path, oversized head) are JSON in
            // the token family's shape, as for every path under /api/v1/tokens (src/node).
            ...errors('tokens', [400, 431] as const),
          },
        },
      },
      '/api/x': get({
        tags: ['Extensions'],
        summary: 'The extension routes this service has',
        responses: { '200': json(extensionIndexSchema, 'Route names.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/liquidity': get({
        tags: ['Extensions'],
        summary: 'TVL of every symbol of a group',
        requestParams: { query: liquidityQuerySchema },
        responses: { '200': json(liquiditySchema, 'Columnar TVL.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/market': get({
        tags: ['Extensions'],
        summary: 'Where this service’s trades come from',
        description:
          'The simulator, the Cardano chain through Ogmios (with its state, tip and lag behind the node), or none (imported trades only). The gateway’s /gw/v1/info passes it on as `market`.',
        responses: { '200': json(marketSourceResponseSchema, 'The data source.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/status': {
        get: {
          security: [],
          tags: ['Extensions'],
          summary: 'How fresh the market is (no key needed)',
          description:
            'The source and its state, the last block applied and how far it is behind the node’s tip (slots and seconds), and per DEX group the pools known and, for a chain source, the pool outputs decoded and undecodable over the last hour and day of block time (docs/chain.md "Freshness").',
          responses: { '200': json(marketStatusSchema, 'Freshness and coverage.') },
        },
      },
      '/api/x/deepest': get({
        tags: ['Extensions'],
        summary: 'Each group’s deepest pool',
        responses: { '200': json(deepestSchema, 'Pool IDs by group.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/token-info': get({
        tags: ['Extensions'],
        summary: 'Every token’s ticker and name',
        responses: { '200': json(tokenNamesSchema, 'Columnar names.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/token-info/{unit}': get({
        tags: ['Extensions'],
        summary: 'One token’s metadata, and where it comes from',
        description:
          '`source` says who named the token: `cip68` (its reference NFT’s datum on chain), `registry` (the CIP-26 token registry) or `asset-name` (nothing but its asset name: unverified, anyone can mint a token named like another); `description` and `url` are there when its source gave them.',
        requestParams: { path: z.object({ unit: z.string().meta({ example: EXAMPLE_TOKEN }) }) },
        responses: { '200': json(tokenInfoSchema, 'The token.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/api/x/pair-pools': get({
        tags: ['Extensions'],
        summary: 'Where an Aggregate comes from: its pair’s DEX pools with TVL share, price deviation and 24 h volume',
        requestParams: { query: pairPoolsQuerySchema },
        responses: {
          '200': json(pairPoolsResponseSchema, 'The Aggregate and its pools, deepest first.'),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/x/group-stats': get({
        tags: ['Extensions'],
        summary:
          'Every pair of a group with price, 24 h change, 24 h volume and TVL (a market overview), in one request',
        description:
          'Columnar, one entry per symbol of the group; the numbers equal /api/v1/tokens/current’s for the same pool (`price` = current_price, `change_24h` = daily_price_change, `volume_24h` = daily_volume, `tvl` = current_tvl). ' +
          'The 24 h reference prices and volumes are at most 10 s old. `pools` names the rows wanted (up to 100). A gateway deriving the answer from spec endpoints leaves numbers it has not learnt yet null and says `complete: false`.',
        requestParams: { query: groupStatsQuerySchema },
        responses: {
          '200': json(groupStatsSchema, 'The group’s rows.', {
            s: 'ok',
            group: 'Aggregate',
            complete: true,
            ticker: [EXAMPLE_POOL],
            symbol: ['ADA.SNEK_Aggregate_Pool1'],
            base: [''],
            quote: [EXAMPLE_TOKEN],
            price: [0.00371],
            change_24h: [-2.4],
            volume_24h: [182000.5],
            tvl: [4000800],
            tvl_ada: [4000800],
          }),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/x/spreads': get({
        tags: ['Extensions'],
        summary: 'Every pair’s spread across its DEX pools, in one request (the market overview’s column)',
        description:
          'The largest price gap between two DEX pools of a pair whose TVL valued in ADA is at least `min_tvl`: (highest / lowest − 1) × 100, with the two pools. ' +
          'Null with fewer than two such pools. Columnar, one entry per pair; from the market in memory, at most 5 s old.',
        requestParams: { query: spreadsQuerySchema },
        responses: {
          '200': json(spreadsSchema, 'Each pair’s spread.', {
            s: 'ok',
            min_tvl: 10000,
            base: [''],
            quote: [EXAMPLE_TOKEN],
            aggregate: [EXAMPLE_POOL],
            spread_percent: [0.42],
            pools: [3],
            low: ['ab01'],
            high: ['cd02'],
          }),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/api/x/trades': get({
        tags: ['Extensions'],
        summary: 'A pool’s latest trades, newest first (the chart’s trades tape)',
        description:
          'The spec has no trades endpoint. For an Aggregate pool, the trades of every pool of its pair, with the DEX that traded. Page backwards with `before` = the previous page’s `next`.',
        requestParams: { query: tradesQuerySchema },
        responses: {
          '200': json(tradesResponseSchema, 'Trades, newest first.', {
            s: 'ok',
            trades: [
              {
                id: 'tx1#0',
                time: 1700000040,
                pool_id: EXAMPLE_POOL,
                group: 'MinswapV2',
                side: 'buy',
                price: 0.00371,
                previous_price: 0.0037,
                base_amount: 200,
                quote_amount: 53981.1,
                tvl: 2000400,
              },
            ],
            next: '1700000040.1234',
          }),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/udf/config': get({
        tags: ['UDF'],
        summary: 'UDF configuration',
        responses: { '200': json(udfConfigSchema, 'TradingView’s config object.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/udf/time': get({
        tags: ['UDF'],
        summary: 'Server time',
        responses: {
          '200': {
            description: 'Unix seconds.',
            content: { 'text/plain': { schema: { type: 'string', pattern: '^\\d+$' } } },
          },
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/udf/symbols': get({
        tags: ['UDF'],
        summary: 'TradingView symbol info',
        requestParams: { query: udfSymbolsQuerySchema },
        responses: { '200': json(udfSymbolSchema, 'LibrarySymbolInfo.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/udf/symbol_info': get({
        tags: ['UDF'],
        summary: 'Every symbol of a group (UDF group request)',
        description:
          'The same columnar answer as /api/v1/symbol_info?group=. /udf/config announces search instead (`supports_group_request: false`): the stock adapter asks groups by fixed exchange names.',
        requestParams: { query: udfSymbolInfoQuerySchema },
        responses: {
          '200': json(symbolInfoResponseSchema, 'Columnar symbol information.'),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/udf/search': get({
        tags: ['UDF'],
        summary: 'Symbol search',
        requestParams: { query: udfSearchQuerySchema },
        responses: { '200': json(z.array(udfSearchItemSchema), 'Matches.'), ...errors('price', PRICE_ERRORS) },
      }),
      '/udf/history': get({
        tags: ['UDF'],
        summary: 'Bars in TradingView’s resolution names',
        requestParams: { query: udfHistoryQuerySchema },
        responses: {
          '200': json(udfHistoryResponseSchema, 'Bars, or no_data with nextTime.'),
          ...errors('price', PRICE_ERRORS),
        },
      }),
      '/udf/quotes': get({
        tags: ['UDF'],
        summary: 'Quotes of up to 100 symbols (a watchlist)',
        description:
          'One entry per requested symbol, in order, `n` exactly as sent: the price now (`lp`) and the last 24 hours (change, open, high, low, volume in whole base units). An unknown symbol is an entry with `s: "error"`.',
        requestParams: { query: udfQuotesQuerySchema },
        responses: {
          '200': json(udfQuotesResponseSchema, 'TradingView’s quotes answer.'),
          ...errors('price', PRICE_ERRORS),
        },
      }),
    },
  });
}
