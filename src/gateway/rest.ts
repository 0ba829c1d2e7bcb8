import { Hono } from 'hono';
import { TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { GATEWAY_PREFIX } from '../shared/api/gateway-prefix';
import { nameRoute } from '../node/request-observer';
import { gatewayError, type CacheRule, type Family, type Forwarder } from './forward';
import { forwardLogo } from './logo';

/** A token's logo: one URL, the spec's JSON or the PNG (gateway/logo.ts). */
const LOGO_PATH = /^\/tokens\/logo\/[^/]+$/;
const LOGO_RULE: CacheRule = { ttlMs: 60 * 60_000, browserMaxAge: 3600 };

/** Lifetimes of cached upstream answers (only 200s are cached). */
const CACHE_RULES: readonly (CacheRule & { readonly pattern: RegExp })[] = [
  { pattern: /^\/groups$/, ttlMs: 5 * 60_000, browserMaxAge: 300 },
  { pattern: /^\/symbol_info$/, ttlMs: 60_000, browserMaxAge: 60 },
];

/** The service's GET endpoints (the spec's), the only paths forwarded; a trailing slash where the service takes one. */
const FORWARDED_PATHS: readonly RegExp[] = [/^\/(groups|symbol_info|history)\/?$/, /^\/tokens\/current\/?$/, LOGO_PATH];

/** The route template of a forwarded path (for the request metrics: a logo's unit is not a label). */
function forwardedRoute(path: string): string {
  const bare = path.replace(/\/$/, '');
  return `${GATEWAY_PREFIX}${bare.startsWith('/tokens/logo/') ? '/tokens/logo/:unit' : bare}`;
}

/** A percent-encoded '/', '\' or '.': an upstream (or a proxy before it) that decodes them could leave /api/v1. */
const ENCODED_SEPARATOR = /%(2f|5c|2e)/i;

export interface RestOptions {
  readonly forwarder: Forwarder;
  /** The gateway's own GET paths (relative to /gw/v1), served by other routes: other methods there are a 405. */
  readonly ownPaths?: readonly RegExp[];
}

/** Token-endpoint paths answer errors in their FastAPI shape, the others in the price shape (as the service does). */
const familyOf = (path: string): Family => (path === '/tokens' || path.startsWith('/tokens/') ? 'tokens' : 'price');

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
 * GET /gw/v1/<path> -> upstream /api/v1/<path> with the key added, for the service's GET endpoints only.
 * Status codes and bodies pass through; groups, symbol_info and logos are cached (concurrent identical
 * requests share one upstream fetch), the others stream through (forward.ts).
 */
export function restRoutes({ forwarder, ownPaths = [] }: RestOptions): Hono {
  const app = new Hono({ strict: false });

  app.all('/*', async (c) => {
    const url = new URL(c.req.url);
    const rest = url.pathname.replace(/^.*?\/gw\/v1/, '') || '/';
    const family = familyOf(rest);
    const shown = `${GATEWAY_PREFIX}${rest}`.slice(0, 200);
    const problem = pathProblem(rest);
    if (problem === 400) {
      return gatewayError(
        c,
        family,
        400,
        `Invalid path ${shown}: encoded '/', '\\' or '.' and dot segments are not forwarded`,
        {
          loc: ['path'],
          type: TOKEN_ERROR_TYPES.value,
        },
      );
    }
    const method = c.req.method;
    const readOnly = method === 'GET' || method === 'HEAD';
    // The gateway's own paths reach here only with another method (their GET routes come first).
    if (problem === 404 && (readOnly || !ownPaths.some((pattern) => pattern.test(rest)))) {
      return gatewayError(c, family, 404, `Unknown endpoint: ${method} ${shown}`, {
        loc: ['path'],
        type: TOKEN_ERROR_TYPES.notFound,
      });
    }
    if (!readOnly) {
      c.header('Allow', 'GET, HEAD');
      return gatewayError(c, family, 405, `Method ${method} is not allowed on ${shown}`, {
        loc: ['method'],
        type: TOKEN_ERROR_TYPES.method,
      });
    }

    const target = `/api/v1${rest}${url.search}`;
    nameRoute(c.req.raw, forwardedRoute(rest));
    if (LOGO_PATH.test(rest)) return forwardLogo(c, forwarder, target, LOGO_RULE);
    return forwarder.forward(
      c,
      target,
      family,
      CACHE_RULES.find((r) => r.pattern.test(rest)),
    );
  });

  return app;
}
