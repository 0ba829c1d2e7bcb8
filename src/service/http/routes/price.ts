import { Hono } from 'hono';
import type { GroupsResponse } from '../../../shared/api/groups';
import { historyQuerySchema, symbolInfoQuerySchema } from '../../../shared/api/queries';
import { ALL_GROUPS } from '../../../shared/groups';
import { isPoolId } from '../../../shared/id-rules';
import type { Market, Pool } from '../../market/model';
import type { SymbolNames } from '../../market/symbols';
import type { BarStore } from '../../store/ports';
import { echo, priceError } from '../errors';
import { guard, type GuardOptions, type ServiceEnv } from '../guard';
import type { HistoryCache } from '../history-cache';
import type { SymbolInfoCache } from '../symbol-info-cache';
import { acceptsEncoding, acceptsGzip, etagMatches } from '../../../node/http';
import { deflateBody } from '../history-deflate';

export interface PriceRoutesOptions extends GuardOptions {
  readonly market: Market;
  readonly symbols: SymbolNames;
  readonly bars: BarStore;
  readonly symbolInfo: SymbolInfoCache;
  readonly history: HistoryCache;
}

/** First message of a failed zod parse, for `errmsg`. */
function firstIssue(error: { issues: readonly { message: string }[] }): string {
  return error.issues[0]?.message ?? 'invalid query';
}

/** Finds a symbol by ticker (pool ID, any hex case) or by symbol name. */
export function findSymbol(market: Market, symbols: SymbolNames, symbol: string): Pool | undefined {
  if (isPoolId(symbol)) {
    const pool = market.pools.get(symbol.toLowerCase());
    if (pool) return pool;
  }
  return symbols.find(symbol);
}

/** GET /groups, /symbol_info and /history: the UDF-style price endpoints. */
export function priceRoutes(options: PriceRoutesOptions): Hono<ServiceEnv> {
  const { market, symbols, bars, symbolInfo, history } = options;
  const app = new Hono<ServiceEnv>({ strict: false });
  const auth = guard(options, 'price');

  app.get('/groups', auth, (c) => {
    const body: GroupsResponse = { s: 'ok', d: { groups: ALL_GROUPS.map((id) => ({ id })) } };
    return c.json(body);
  });

  app.get('/symbol_info', auth, (c) => {
    const parsed = symbolInfoQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, firstIssue(parsed.error));
    const requested = parsed.data.group;
    let group;
    if (requested !== undefined) {
      group = ALL_GROUPS.find((g) => g.toLowerCase() === requested.toLowerCase());
      if (group === undefined)
        return priceError(c, 404, `Unknown group: ${echo(requested)} (known: ${ALL_GROUPS.join(', ')})`);
    }
    const body = symbolInfo.get(group);
    const gzip = acceptsGzip(c.req.header('Accept-Encoding'));
    // A strong ETag names one representation: the gzipped body has its own.
    const etag = gzip ? `${body.etag.slice(0, -1)}-gz"` : body.etag;
    c.header('ETag', etag);
    c.header('Cache-Control', 'private, max-age=60');
    c.header('Vary', 'Accept-Encoding');
    if (etagMatches(c.req.header('If-None-Match'), etag)) return c.body(null, 304);
    c.header('Content-Type', 'application/json');
    if (gzip) {
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(body.gzip));
    }
    return c.body(body.json);
  });

  app.get('/history', auth, async (c) => {
    const parsed = historyQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, firstIssue(parsed.error));
    const query = parsed.data;
    const pool = findSymbol(market, symbols, query.symbol);
    if (!pool) return priceError(c, 404, `Unknown symbol: ${echo(query.symbol)}`);
    // countback: the last N bars before `to`, served as the range from the N-th bar's start.
    const from =
      query.countback !== undefined
        ? ((await bars.countbackStart(pool.id, query.resolution, query.to, query.countback)) ?? query.to)
        : query.from;
    const identity = await history.body(pool.id, query.resolution, from, query.to, query.includeTvl);
    c.header('Content-Type', 'application/json');
    c.header('Vary', 'Accept-Encoding');
    // Compressed from pieces deflated once per cached chunk (history-deflate.ts): a month of 1min bars
    // costs no compression per request.
    const deflate = identity.bytes > 1024 && acceptsEncoding(c.req.header('Accept-Encoding'), 'deflate');
    const { pieces, bytes } = deflate ? await deflateBody(identity.pieces) : identity;
    if (deflate) c.header('Content-Encoding', 'deflate');
    c.header('Content-Length', String(bytes));
    // The cached fragments as they are, one chunk each: joining them first would copy megabytes for
    // months of 1min bars, and the socket takes many chunks as readily as one.
    return c.body(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces)
            controller.enqueue(new Uint8Array(piece.buffer as ArrayBuffer, piece.byteOffset, piece.byteLength));
          controller.close();
        },
      }),
    );
  });

  return app;
}
