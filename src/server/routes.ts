import { Hono, type Context } from 'hono';
import { compress } from 'hono/compress';
import type { Gateway } from '../gateway/gateway';
import { GATEWAY_PREFIX } from '../shared/api/gateway-prefix';
import type { ServiceRuntime } from '../service/service-runtime';

/** Paths the page's fallback must never answer: the API's, the probes', the test controls' and the service's documents. */
export const NON_PAGE = /^\/(api|gw|udf|healthz|livez|readyz|metrics|__test__|docs|openapi\.json)(\/|$)/;

/**
 * The embedded service's paths, each handed to the service's own app whole (not `app.route`, which
 * drops the service's own 404 and 405 answers in its error shapes). The single writer of a cluster (role
 * `ingest`) serves /healthz only: the API nodes serve the rest.
 */
export function serviceRoutes(runtime: Pick<ServiceRuntime, 'app' | 'config'>): Hono {
  const routes = new Hono({ strict: false });
  const service = (c: Context) => runtime.app.fetch(c.req.raw, c.env);
  routes.all('/healthz', service);
  if (runtime.config.role === 'ingest') return routes;
  for (const prefix of ['/api/v1', '/api/x', '/udf']) {
    routes.all(prefix, service);
    routes.all(`${prefix}/*`, service);
  }
  routes.get('/openapi.json', service);
  routes.get('/docs', service);
  routes.get('/docs/*', service);
  return routes;
}

/** The gateway's paths (/gw/v1), its REST answers compressed on the fly (the live SSE stream never is). */
export function gatewayRoutes(gateway: Pick<Gateway, 'app'>): Hono {
  const routes = new Hono({ strict: false });
  routes.use(`${GATEWAY_PREFIX}/*`, async (c, next) => {
    if (c.req.path.startsWith(`${GATEWAY_PREFIX}/live`)) return next();
    return compress()(c, next);
  });
  routes.route('/', gateway.app);
  return routes;
}
