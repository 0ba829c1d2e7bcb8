import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { peerAddress, type ProxyTrust } from './client-address';
import { REDACTED } from '../shared/redact';
import { requestIdOf, setRequestId, type LogHook } from './log';
import type { HttpMetrics } from './metrics';

/**
 * What every answered request leaves behind: a request id (echoed in `X-Request-Id`), one log line
 * (method, path, route template, status, duration, id) and the HTTP metrics by route template.
 */

/** The id a request carries in and out. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Routes answered by an app that another app hands requests to whole (the service's, reached by `fetch`). */
const innerRoutes = new WeakMap<Request, string>();

/**
 * Names the route template that answers `request` when its Hono route is a catch-all (the gateway
 * forwarding /gw/v1/* by path): the observer counts it by this name instead.
 */
export function nameRoute(request: Request, route: string): void {
  innerRoutes.set(request, route);
}

/**
 * Middleware of an app that the outer app calls with the request itself (`app.fetch(c.req.raw)`): it
 * tells the outer app's observer which of its routes answered, since the outer one only sees its own
 * catch-all. Register it first.
 */
export const noteRoute: MiddlewareHandler = async (c, next) => {
  await next();
  innerRoutes.set(c.req.raw, routePath(c));
};

/**
 * A query parameter whose name looks like it carries a secret: a key, a token, a password, a session,
 * a signature, a credential (any case; `api_key`, `apiKey`, `access-token`, `X-Auth`, `sig`…). A client
 * that puts its key in the query instead of `Authorization` would otherwise leave it in every log.
 */
const SECRET_PARAMETER = /key|token|secret|pass|pwd|auth|session|sig|cred|bearer|cookie|jwt/i;

/** How long a logged request target may be (the rest is cut). */
const LOGGED_TARGET_CHARS = 300;

/**
 * The request target as logged: the path, and the query with the value of every parameter whose name
 * looks like a secret (`SECRET_PARAMETER`) replaced by `<redacted>`; cut to 300 characters. What the URL
 * parser made of it: percent-encoded, so no control character reaches the line.
 */
export function loggedTarget(url: URL): string {
  if (url.search === '') return url.pathname.slice(0, LOGGED_TARGET_CHARS);
  const query = url.search
    .slice(1)
    .split('&')
    .map((pair) => {
      const cut = pair.indexOf('=');
      const name = cut === -1 ? pair : pair.slice(0, cut);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Not valid percent-encoding: judged as written.
      }
      return SECRET_PARAMETER.test(decoded) && cut !== -1 ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.pathname}?${query}`.slice(0, LOGGED_TARGET_CHARS);
}

/** Probes and scrapes: logged at debug, not once every few seconds at info. */
const QUIET_PATHS = /^\/(livez|readyz|healthz|metrics)\/?$/;

export interface RequestObserverOptions {
  readonly log?: LogHook;
  readonly metrics?: HttpMetrics;
  /**
   * Proxies whose `X-Request-Id` is taken (`TRUST_PROXY`): a request from anyone else gets an id of
   * its own, so a client cannot forge or collide ids in the logs. Default: nobody.
   */
  readonly trustProxy?: ProxyTrust;
}

/** The Node response of a request served by @hono/node-server (absent in-process). */
function outgoingOf(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}

/**
 * Observes every request of the app it is registered on (first, on the outermost app): gives it an id
 * (the safe `X-Request-Id` a trusted proxy set, else a new one; docs/operations.md), and once answered logs it
 * and counts it by route template. A stream is observed when its response starts.
 */
export function observeRequests(options: RequestObserverOptions): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const fromProxy = options.trustProxy?.trusts(peerAddress(c.env)) === true;
    const id = requestIdOf(fromProxy ? c.req.header(REQUEST_ID_HEADER) : undefined);
    setRequestId(c.req.raw, id);
    const outgoing = outgoingOf(c);
    // On the Node response itself, so that a stream written straight to the socket carries it too.
    if (outgoing && !outgoing.headersSent) outgoing.setHeader(REQUEST_ID_HEADER, id);
    await next();
    const seconds = (performance.now() - started) / 1000;
    // A stream already written to the socket: its status is the Node response's.
    const status = outgoing?.headersSent ? outgoing.statusCode : c.res.status;
    if (!outgoing) setHeader(c, REQUEST_ID_HEADER, id);
    const route = innerRoutes.get(c.req.raw) ?? routePath(c);
    options.metrics?.observe(c.req.method, route, status, seconds);
    if (options.log) {
      const url = new URL(c.req.url);
      const target = loggedTarget(url);
      const durationMs = Math.round(seconds * 1e4) / 10;
      // Probes at debug whatever they answer; a 503 is a refusal by design (starting, store away), not a fault.
      const level = QUIET_PATHS.test(url.pathname)
        ? 'debug'
        : status === 503
          ? 'warn'
          : status >= 500
            ? 'error'
            : 'info';
      options.log(`${c.req.method} ${target} ${status} ${durationMs.toFixed(1)}ms`, {
        level,
        reqId: id,
        method: c.req.method,
        route,
        url: target,
        status,
        durationMs,
      });
    }
  };
}

/** Sets a header on the answer, copying it first when its headers are immutable (a fetched answer passed through). */
function setHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    const copy = new Response(c.res.body, {
      status: c.res.status,
      statusText: c.res.statusText,
      headers: new Headers(c.res.headers),
    });
    copy.headers.set(name, value);
    c.res = copy;
  }
}
