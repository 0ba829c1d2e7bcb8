import { Hono, type Context } from 'hono';
import { TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { GATEWAY_PREFIX } from '../shared/api/gateway-prefix';
import { symbolInfoQuerySchema } from '../shared/api/queries';
import { groupNamed } from '../shared/groups';
import { nameRoute } from '../node/request-observer';
import { gatewayError, type CacheRule, type Family, type Forwarder } from './forward';
import { forwardLogo } from './logo';

/** A token's logo: one URL, the spec's JSON or the PNG (gateway/logo.ts). */
const LOGO_PATH = /^\/tokens\/logo\/([^/]+)$/;
const LOGO_RULE: CacheRule = { ttlMs: 60 * 60_000, browserMaxAge: 3600 };

/**
 * A group as the upstream's key names it: its canonical spelling when it is one of ours, else as sent (the
 * upstream refuses it, naming it as the user wrote it; refusals are never held, so they need no one key).
 */
export const groupKey = (group: string): string => groupNamed(group) ?? group;

/**
 * The cached routes: their lifetimes (only 200s are cached), and the upstream target each answer is
 * held under, made from the request's validated, normalised query — never from the query as sent. A
 * parameter a route does not read is ignored (not forwarded, not keyed), a known group is spelled canonically, so
 * `symbol_info?group=aggregate&cb=7` and `symbol_info?group=Aggregate` are one answer, fetched once.
 * `costly`: a whole-market answer, whose fetch the address's list budget pays (address-limit.ts).
 */
interface CachedRoute extends CacheRule {
  readonly pattern: RegExp;
  readonly costly?: boolean;
  /** The upstream target, or the refusal of a query the route cannot take. */
  target(c: Context, family: Family): string | Response;
}

const CACHED_ROUTES: readonly CachedRoute[] = [
  { pattern: /^\/groups\/?$/, ttlMs: 5 * 60_000, browserMaxAge: 300, target: () => '/api/v1/groups' },
  {
    pattern: /^\/symbol_info\/?$/,
    ttlMs: 60_000,
    browserMaxAge: 60,
    costly: true,
    target: (c, family) => {
      const parsed = symbolInfoQuerySchema.safeParse(c.req.query());
      if (!parsed.success)
        return gatewayError(c, family, 400, parsed.error.issues[0]?.message ?? 'invalid query', {
          loc: ['query', 'group'],
          type: TOKEN_ERROR_TYPES.value,
        });
      const group = parsed.data.group;
      return `/api/v1/symbol_info${group === undefined ? '' : `?group=${encodeURIComponent(groupKey(group))}`}`;
    },
  },
];

/** The service's GET endpoints (the spec's), the only paths forwarded; a trailing slash where the service takes one. */
const FORWARDED_PATHS: readonly RegExp[] = [/^\/(groups|symbol_info|history)\/?$/, /^\/tokens\/current\/?$/, LOGO_PATH];

/** The route template of a forwarded path (for the request metrics: a logo's unit is not a label). */
function forwardedRoute(path: string): string {
  const bare = path.replace(/\/$/, '');
  return `${GATEWAY_PREFIX}${bare.startsWith('/tokens/logo/') ? '/tokens/logo/:unit' : bare}`;
}

/** A token unit as held: lower case when it is hex (units are), else as sent (the upstream refuses it). */
const tokenKey = (unit: string): string => (/^[0-9a-f]+$/i.test(unit) ? unit.toLowerCase() : unit);

/** A percent-encoded '/', '\' or '.': an upstream (or a proxy before it) that decodes them could leave /api/v1. */
const ENCODED_SEPARATOR = /%(2f|5c|2e)/i;

export interface RestOptions {
  readonly forwarder: Forwarder;
  /** Charges the client's list budget before a costly answer is fetched; a Response when refused (address-limit.ts). */
  readonly chargeList?: (c: Context, family: Family) => Promise<Response | undefined>;
  /** Charges the client's bytes budget before a costly answer is sent from the cache (address-limit.ts). */
  readonly chargeListBytes?: (c: Context, family: Family, bytes: number) => Promise<Response | undefined>;
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
export function restRoutes({ forwarder, ownPaths = [], chargeList, chargeListBytes }: RestOptions): Hono {
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

    nameRoute(c.req.raw, forwardedRoute(rest));
    const logo = LOGO_PATH.exec(rest);
    // The spec's logo route reads no query: one held answer per token, whatever else was sent.
    if (logo) return forwardLogo(c, forwarder, `/api/v1/tokens/logo/${tokenKey(logo[1] ?? '')}`, LOGO_RULE);
    const cached = CACHED_ROUTES.find((r) => r.pattern.test(rest));
    if (!cached) return forwarder.forward(c, `/api/v1${rest}${url.search}`, family);
    const target = cached.target(c, family);
    if (target instanceof Response) return target;
    if (cached.costly) {
      const held = forwarder.heldBytes(target, cached);
      const refused = held === undefined ? await chargeList?.(c, family) : await chargeListBytes?.(c, family, held);
      if (refused) return refused;
    }
    return forwarder.forward(c, target, family, cached);
  });

  return app;
}
