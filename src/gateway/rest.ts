import { gzipSync } from 'node:zlib';
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { LRUCache } from 'lru-cache';
import { acceptsGzip, etagMatches } from '../service/http/routes/price';
import { TOKEN_ERROR_TYPES, type PriceError, type TokenError, type TokenErrorItem } from '../shared/api/errors';
import { GATEWAY_PREFIX } from '../shared/api/gateway';
import type { Upstream } from './upstream';

/** Lifetimes of cached upstream answers (only 200s are cached). */
const CACHE_RULES: readonly { readonly pattern: RegExp; readonly ttlMs: number; readonly browserMaxAge: number }[] = [
  { pattern: /^\/groups$/, ttlMs: 5 * 60_000, browserMaxAge: 300 },
  { pattern: /^\/symbol_info$/, ttlMs: 60_000, browserMaxAge: 60 },
  { pattern: /^\/tokens\/logo\/[^/]+$/, ttlMs: 60 * 60_000, browserMaxAge: 3600 },
];

/** The service's GET endpoints (the spec's), the only paths forwarded; a trailing slash where the service takes one. */
const FORWARDED_PATHS: readonly RegExp[] = [/^\/(groups|symbol_info|history)\/?$/, /^\/tokens\/current\/?$/, /^\/tokens\/logo\/[^/]+$/];

/** A percent-encoded '/', '\' or '.': an upstream (or a proxy before it) that decodes them could leave /api/v1. */
const ENCODED_SEPARATOR = /%(2f|5c|2e)/i;

/** Upstream response headers passed to the browser (never Authorization-related ones; ETag is handled apart). */
const PASSED_HEADERS = ['content-type', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

/** They describe the gateway's key at the time of a fetch: an answer served from the cache leaves them out. */
const RATE_LIMIT_HEADERS: ReadonlySet<string> = new Set(['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']);

/** The ETag of each representation the gateway serves. */
interface Tags {
  readonly identity: string;
  readonly gzip: string;
}

interface CachedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly tags: Tags | undefined;
  readonly body: Uint8Array;
  gzip?: Uint8Array;
}

export interface RestOptions {
  readonly upstream: Upstream;
  readonly timeoutMs: number;
  /** The gateway's own GET paths (relative to /gw/v1), served by other routes: other methods there are a 405. */
  readonly ownPaths?: readonly RegExp[];
}

type Family = 'price' | 'tokens';

/** Token-endpoint paths answer errors in their FastAPI shape, the others in the price shape (as the service does). */
const familyOf = (path: string): Family => (path === '/tokens' || path.startsWith('/tokens/') ? 'tokens' : 'price');

function gatewayError(c: Context, family: Family, status: ContentfulStatusCode, message: string, item: Omit<TokenErrorItem, 'msg'>): Response {
  if (family === 'tokens') {
    const body: TokenError = { detail: [{ loc: item.loc, msg: message, type: item.type }] };
    return c.json(body, status);
  }
  const body: PriceError = { s: 'error', errmsg: message };
  return c.json(body, status);
}

/** 400 for a path that could climb out of /api/v1 upstream, 404 for one the service does not have. */
function pathProblem(path: string): 400 | 404 | undefined {
  if (ENCODED_SEPARATOR.test(path) || path.includes('\\')) return 400;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return 400;
  }
  if (decoded.split('/').some((segment) => segment === '.' || segment === '..')) return 400;
  return FORWARDED_PATHS.some((pattern) => pattern.test(path)) ? undefined : 404;
}

/**
 * The tags of the two representations, by the service's rule (src/service/http/routes/price.ts, inline
 * there): a strong tag per representation, the gzipped one's ending in `-gz"`. fetch() has already
 * decoded a gzipped upstream answer, whose tag then named the gzipped representation.
 */
function representationTags(etag: string | null, encoding: string | null): Tags | undefined {
  if (etag === null) return undefined;
  // A weak tag holds for every encoding of the same content.
  if (etag.startsWith('W/')) return { identity: etag, gzip: etag };
  const encoded = encoding !== null && encoding.trim().toLowerCase() !== 'identity';
  if (!encoded) return { identity: etag, gzip: `${etag.slice(0, -1)}-gz"` };
  if (/gzip/i.test(encoding) && etag.endsWith('-gz"')) return { identity: `${etag.slice(0, -4)}"`, gzip: etag };
  // A strong tag of another encoding is only weakly valid for the decoded body.
  return { identity: `W/${etag}`, gzip: `W/${etag}` };
}

/** An upstream 3xx: never followed (the key would go along), passed on as a 502. */
class UpstreamRedirect extends Error {
  constructor(readonly status: number) {
    super(`Upstream answered a redirect (${status}), which is not followed: the gateway sends its key to /api/v1 only`);
  }
}

const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;

/**
 * GET /gw/v1/<path> -> upstream /api/v1/<path> with the key added, for the service's GET endpoints only.
 * Status codes and bodies pass through; groups, symbol_info and logos are cached, and concurrent
 * identical requests share one upstream fetch.
 */
export function restRoutes({ upstream, timeoutMs, ownPaths = [] }: RestOptions): Hono {
  const app = new Hono({ strict: false });
  const cache = new LRUCache<string, CachedAnswer>({
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (answer) => Math.max(1, answer.body.byteLength + (answer.gzip?.byteLength ?? 0)),
    ttlAutopurge: false,
  });
  const inFlight = new Map<string, Promise<CachedAnswer>>();

  const load = async (target: string): Promise<CachedAnswer> => {
    const response = await upstream.fetch(target, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (isRedirect(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamRedirect(response.status);
    }
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // fetch() has already decoded any Content-Encoding: the body here is always identity.
    const tags = representationTags(response.headers.get('etag'), response.headers.get('content-encoding'));
    return { status: response.status, headers, tags, body: new Uint8Array(await response.arrayBuffer()) };
  };

  const fetchShared = (target: string): Promise<CachedAnswer> => {
    let pending = inFlight.get(target);
    if (!pending) {
      pending = load(target).finally(() => inFlight.delete(target));
      inFlight.set(target, pending);
    }
    return pending;
  };

  app.all('/*', async (c) => {
    const url = new URL(c.req.url);
    const rest = url.pathname.replace(/^.*?\/gw\/v1/, '') || '/';
    const family = familyOf(rest);
    const shown = `${GATEWAY_PREFIX}${rest}`.slice(0, 200);
    const problem = pathProblem(rest);
    if (problem === 400) {
      return gatewayError(c, family, 400, `Invalid path ${shown}: encoded '/', '\\' or '.' and dot segments are not forwarded`, {
        loc: ['path'],
        type: TOKEN_ERROR_TYPES.value,
      });
    }
    const method = c.req.method;
    const readOnly = method === 'GET' || method === 'HEAD';
    // The gateway's own paths reach here only with another method (their GET routes come first).
    if (problem === 404 && (readOnly || !ownPaths.some((pattern) => pattern.test(rest)))) {
      return gatewayError(c, family, 404, `Unknown endpoint: ${method} ${shown}`, { loc: ['path'], type: TOKEN_ERROR_TYPES.notFound });
    }
    if (!readOnly) {
      c.header('Allow', 'GET, HEAD');
      return gatewayError(c, family, 405, `Method ${method} is not allowed on ${shown}`, { loc: ['method'], type: TOKEN_ERROR_TYPES.method });
    }

    const target = `/api/v1${rest}${url.search}`;
    const rule = CACHE_RULES.find((r) => r.pattern.test(rest));
    let answer = rule ? cache.get(target) : undefined;
    const fromCache = answer !== undefined;
    if (!answer) {
      try {
        answer = await fetchShared(target);
      } catch (error) {
        if (error instanceof UpstreamRedirect) return gatewayError(c, family, 502, error.message, { loc: [], type: 'upstream_redirect' });
        if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
          return gatewayError(c, family, 504, `Upstream did not answer within ${timeoutMs} ms`, { loc: [], type: 'upstream_timeout' });
        }
        const reason = error instanceof Error ? error.message : String(error);
        return gatewayError(c, family, 502, `Upstream unavailable: ${reason}`, { loc: [], type: 'upstream_unavailable' });
      }
      if (rule && answer.status === 200) cache.set(target, answer, { ttl: rule.ttlMs });
    }
    for (const [name, value] of Object.entries(answer.headers)) if (!(fromCache && RATE_LIMIT_HEADERS.has(name))) c.header(name, value);
    c.header('Cache-Control', rule && answer.status === 200 ? `private, max-age=${rule.browserMaxAge}` : 'no-store');
    c.header('Vary', 'Accept-Encoding');
    const gzip = answer.body.byteLength > 1024 && acceptsGzip(c.req.header('Accept-Encoding'));
    const etag = gzip ? answer.tags?.gzip : answer.tags?.identity;
    if (etag !== undefined) c.header('ETag', etag);
    if (etag !== undefined && answer.status === 200 && etagMatches(c.req.header('If-None-Match'), etag)) return c.body(null, 304);
    if (gzip) {
      if (rule) answer.gzip ??= gzipSync(answer.body, { level: 6 });
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(answer.gzip ?? gzipSync(answer.body, { level: 4 })), answer.status as 200);
    }
    return c.body(new Uint8Array(answer.body), answer.status as 200);
  });

  return app;
}
