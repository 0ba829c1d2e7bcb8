import { Hono } from 'hono';
import { UDF_ROUTES, UDF_ROUTE_PATH } from '../shared/api/udf';
import type { Forwarder } from './forward';

/** The UDF routes the gateway passes on (the service's /udf, docs/udf.md). */
export const UDF_GATEWAY_PATH = UDF_ROUTE_PATH;

/**
 * GET /gw/v1/udf/<route> -> the upstream's /udf/<route> with the gateway's key: TradingView's stock
 * UDF adapter in a browser, pointed at `/gw/v1/udf`, works unmodified (it sends no headers; the key
 * never leaves the server). The configuration is cached like /groups; the rest streams through. An
 * upstream without /udf (the hosted API) answers its own 404, passed on.
 */
export function udfRoutes(forwarder: Forwarder): Hono {
  const app = new Hono({ strict: false });
  // Other paths under /udf fall through to the REST routes' 404 in the family's shape.
  app.get(`/udf/:route{${UDF_ROUTES.join('|')}}`, async (c) => {
    const url = new URL(c.req.url);
    const route = c.req.param('route');
    return forwarder.forward(
      c,
      `/udf/${route}${url.search}`,
      'price',
      route === 'config' ? { ttlMs: 5 * 60_000, browserMaxAge: 300 } : undefined,
    );
  });
  return app;
}
