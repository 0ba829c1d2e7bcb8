import { gzipSync } from 'node:zlib';
import { Hono, type Context } from 'hono';
import { LRUCache } from 'lru-cache';
import type { PriceError } from '../shared/api/errors';
import type { Upstream } from './upstream';

/** Lifetimes of cached upstream answers (only 200s are cached). */
const CACHE_RULES: readonly { readonly pattern: RegExp; readonly ttlMs: number; readonly browserMaxAge: number }[] = [
  { pattern: /^\/groups$/, ttlMs: 5 * 60_000, browserMaxAge: 300 },
  { pattern: /^\/symbol_info$/, ttlMs: 60_000, browserMaxAge: 60 },
  { pattern: /^\/tokens\/logo\/[^/]+$/, ttlMs: 60 * 60_000, browserMaxAge: 3600 },
];

/** Upstream response headers passed to the browser (never Authorization-related ones). */
const PASSED_HEADERS = ['content-type', 'etag', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

interface CachedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  gzip?: Uint8Array;
}

export interface RestOptions {
  readonly upstream: Upstream;
  readonly timeoutMs: number;
}

function gatewayError(c: Context, status: 502 | 504 | 405, errmsg: string): Response {
  const body: PriceError = { s: 'error', errmsg };
  return c.json(body, status);
}

/**
 * GET /gw/v1/<path> -> upstream /api/v1/<path> with the key added. Status codes and bodies pass
 * through; groups, symbol_info and logos are cached, and concurrent identical requests share one
 * upstream fetch.
 */
export function restRoutes({ upstream, timeoutMs }: RestOptions): Hono {
  const app = new Hono({ strict: false });
  const cache = new LRUCache<string, CachedAnswer>({
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (answer) => Math.max(1, answer.body.byteLength + (answer.gzip?.byteLength ?? 0)),
    ttlAutopurge: false,
  });
  const inFlight = new Map<string, Promise<CachedAnswer>>();

  const load = async (target: string): Promise<CachedAnswer> => {
    const response = await upstream.fetch(target, { signal: AbortSignal.timeout(timeoutMs) });
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // fetch() has already decoded any Content-Encoding: the body here is always identity.
    return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
  };

  const fetchShared = (target: string): Promise<CachedAnswer> => {
    let pending = inFlight.get(target);
    if (!pending) {
      pending = load(target).finally(() => inFlight.delete(target));
      inFlight.set(target, pending);
    }
    return pending;
  };

  app.on(['GET', 'HEAD'], '/*', async (c) => {
    const url = new URL(c.req.url);
    const rest = url.pathname.replace(/^.*?\/gw\/v1/, '') || '/';
    const target = `/api/v1${rest}${url.search}`;
    const rule = CACHE_RULES.find((r) => r.pattern.test(rest));
    let answer = rule ? cache.get(target) : undefined;
    if (!answer) {
      try {
        answer = await fetchShared(target);
      } catch (error) {
        if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
          return gatewayError(c, 504, `Upstream did not answer within ${timeoutMs} ms`);
        }
        return gatewayError(c, 502, `Upstream unavailable: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (rule && answer.status === 200) cache.set(target, answer, { ttl: rule.ttlMs });
    }
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    c.header('Cache-Control', rule && answer.status === 200 ? `private, max-age=${rule.browserMaxAge}` : 'no-store');
    c.header('Vary', 'Accept-Encoding');
    const etag = answer.headers.etag;
    if (etag !== undefined && c.req.header('If-None-Match') === etag && answer.status === 200) return c.body(null, 304);
    if (answer.body.byteLength > 1024 && /\bgzip\b/.test(c.req.header('Accept-Encoding') ?? '')) {
      if (rule) answer.gzip ??= gzipSync(answer.body, { level: 6 });
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(answer.gzip ?? gzipSync(answer.body, { level: 4 })), answer.status as 200);
    }
    return c.body(new Uint8Array(answer.body), answer.status as 200);
  });

  app.all('/*', (c) => {
    c.header('Allow', 'GET, HEAD');
    return gatewayError(c, 405, `Method ${c.req.method} is not allowed on the gateway's REST paths`);
  });

  return app;
}
