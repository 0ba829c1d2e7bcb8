import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { TOKEN_ERROR_TYPES } from '../../shared/api/errors';
import { EXTENSION_PREFIX, EXTENSION_ROUTES } from '../../shared/api/extensions';
import { UDF_ROUTE_PATH } from '../../shared/api/udf';
import type { KeyRing } from '../auth/keys';
import type { LogoService } from '../logos/logo-service';
import type { Market } from '../market/model';
import type { SymbolNames } from '../market/symbols';
import { isStoreUnavailable, type BarStore, type TradeStore } from '../store/ports';
import type { StreamHub } from '../stream/hub';
import { requestIdFor, type LogHook } from '../../node/log';
import { noteRoute, observeRequests } from '../../node/request-observer';
import type { Refusals } from '../auth/rate-limit';
import { echo, familyError, familyOf } from './errors';
import type { RequestLimiter, ServiceEnv } from './guard';
import { extensionRoutes } from './routes/extensions';
import { udfRoutes } from './routes/udf';
import { docsRoutes } from './routes/docs';
import { priceRoutes } from './routes/price';
import { streamRoutes, type StreamLeases, type StreamOptions } from './routes/stream';
import { tokenRoutes } from './routes/tokens';
import type { HealthReport } from './health';
import type { HistoryCache } from './history-cache';
import type { SymbolInfoCache } from './symbol-info-cache';

export interface ServiceAppOptions {
  readonly market: Market;
  readonly symbols: SymbolNames;
  readonly trades: TradeStore;
  readonly bars: BarStore;
  readonly keys: KeyRing;
  readonly limiter: RequestLimiter;
  /** Stream connection leases shared by the cluster (absent on one node). */
  readonly leases?: StreamLeases;
  readonly hub: StreamHub;
  readonly logos: LogoService;
  readonly symbolInfo: SymbolInfoCache;
  readonly history: HistoryCache;
  readonly stream: StreamOptions;
  readonly nowMs: () => number;
  readonly health: () => HealthReport;
  /** Requests refused by a plan's budget, by plan (metrics). */
  readonly refusals?: Refusals;
  /** Notices and unexpected errors. */
  readonly log?: LogHook;
  /** Also log one line per request (method, path, status, duration, request id; never the key). */
  readonly logRequests?: boolean;
  /** Serve our extension routes under /api/x (default true; off: the spec's routes only, as the hosted API). */
  readonly extensions?: boolean;
}

const CORS = {
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type'],
  exposeHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
};

/** The data service: /api/v1 per spec, our extension routes under /api/x, and /healthz for orchestration. */
export function createServiceApp(options: ServiceAppOptions): Hono<ServiceEnv> {
  // strict: false lets '/groups/' reach '/groups'.
  const app = new Hono<ServiceEnv>({ strict: false });
  // Which route answered, for the request metrics of the server that hands requests to this app.
  app.use('*', noteRoute);
  if (options.log && options.logRequests) app.use('*', observeRequests({ log: options.log }));

  app.get('/healthz', (c) => c.json(options.health()));
  app.route('/', docsRoutes());

  const api = new Hono<ServiceEnv>({ strict: false });
  api.use('*', cors(CORS));
  api.route('/', priceRoutes(options));
  api.route('/tokens', tokenRoutes(options));
  api.route('/tokens', streamRoutes(options));
  app.route('/api/v1', api);
  if (options.extensions ?? true) {
    const x = new Hono<ServiceEnv>({ strict: false });
    x.use('*', cors(CORS));
    x.route('/', extensionRoutes(options));
    app.route(EXTENSION_PREFIX, x);
    // TradingView's stock UDF adapter, beside the spec's API (docs/udf.md).
    const udf = new Hono<ServiceEnv>({ strict: false });
    udf.use('*', cors(CORS));
    udf.route('/', udfRoutes(options));
    app.route('/udf', udf);
  }

  app.notFound((c) => {
    // The path as sent: the non-strict c.req.path drops one trailing slash, so '/groups//' would look known.
    const path = sentPath(c.req.url);
    const family = familyOf(path);
    const known =
      KNOWN_PATHS.some((p) => p.test(path)) ||
      ((options.extensions ?? true) && EXTENSION_PATHS.some((p) => p.test(path)));
    if (known) {
      c.header('Allow', family === 'stream' ? 'POST, OPTIONS' : 'GET, HEAD, OPTIONS');
      return familyError(c, family, 405, `Method ${echo(c.req.method)} is not allowed on ${echo(path)}`, {
        loc: ['method'],
        type: TOKEN_ERROR_TYPES.method,
      });
    }
    return familyError(c, family, 404, `Unknown endpoint: ${echo(c.req.method)} ${echo(path)}`, {
      loc: ['path'],
      type: TOKEN_ERROR_TYPES.notFound,
    });
  });

  app.onError((error, c) => {
    if (isStoreUnavailable(error)) {
      c.header('Retry-After', '5');
      return familyError(c, familyOf(c.req.path), 503, 'The store is unavailable right now; retry in a few seconds', {
        loc: [],
        type: 'service_unavailable',
      });
    }
    const reqId = requestIdFor(c.req.raw);
    options.log?.(
      `error ${c.req.method} ${c.req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      { level: 'error', ...(reqId ? { reqId } : {}) },
    );
    return familyError(c, familyOf(c.req.path), 500, 'Internal error', { loc: [], type: 'internal_error' });
  });

  return app;
}

/** The request's path, percent-decoded where that is possible. */
function sentPath(url: string): string {
  const { pathname } = new URL(url);
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
}

const KNOWN_PATHS = [
  /^\/api\/v1\/(groups|symbol_info|history)\/?$/,
  /^\/api\/v1\/tokens\/(current|stream)\/?$/,
  /^\/api\/v1\/tokens\/logo\/[^/]+$/,
];

const EXTENSION_PATHS = [
  UDF_ROUTE_PATH,
  /^\/api\/x\/?$/,
  new RegExp(`^/api/x/(${Object.values(EXTENSION_ROUTES).join('|')})/?$`),
  /^\/api\/x\/token-info\/[^/]+$/,
];
