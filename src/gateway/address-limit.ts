import type { Context, MiddlewareHandler } from 'hono';
import { RATE_LIMIT_HEADERS, TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { memoryBudgets, type RateDecision, type RequestLimiter } from '../node/rate-limits';
import { gatewayError, type Family } from './forward';

/**
 * Requests per minute per client address on /gw/v1 (the part exposed to the public, which spends the
 * gateway's own key upstream). The budget is so many requests per one-minute window per address, the
 * service's rule for a key's plan (src/node/rate-limits.ts), answered like the service's limits: `RateLimit-*` headers on
 * every answer, and past the budget a 429 with `Retry-After` in the family's error shape. `limiter`
 * is this process's budgets by default, or a cluster's shared ones (an API node with REDIS_URL: the
 * budget is the address's across every node). The live stream is limited by connections per address
 * instead, and is not counted here.
 */
export function addressRateLimit(options: {
  readonly requestsPerMinute: number;
  readonly clientAddress: (c: Context) => string;
  readonly limiter?: RequestLimiter;
  /** Told of each request refused (metrics). */
  readonly onRefused?: () => void;
}): MiddlewareHandler {
  const budget = options.limiter ?? memoryBudgets('gw-address');
  return async (c, next) => {
    // The live stream only (limited by connections per address): any other path counts.
    if (/^\/gw\/v1\/live\/?$/.test(c.req.path)) return next();
    const address = options.clientAddress(c);
    const decision = await budget.take(`gw-address:${address}`, options.requestsPerMinute);
    // The browser's own budget: these replace what an upstream answer said about the gateway's key.
    const describe = () => {
      c.header(RATE_LIMIT_HEADERS.limit, String(decision.limit));
      c.header(RATE_LIMIT_HEADERS.remaining, String(decision.remaining));
      c.header(RATE_LIMIT_HEADERS.reset, String(decision.resetSeconds));
    };
    if (!decision.allowed) {
      options.onRefused?.();
      describe();
      c.header(RATE_LIMIT_HEADERS.retryAfter, String(decision.retryAfterSeconds));
      const family = /\/tokens(\/|$)/.test(c.req.path) ? 'tokens' : 'price';
      return gatewayError(
        c,
        family,
        429,
        `Rate limit exceeded: ${options.requestsPerMinute} requests per minute per client address; retry in ${decision.retryAfterSeconds} s`,
        {
          loc: ['client'],
          type: TOKEN_ERROR_TYPES.rateLimit,
        },
      );
    }
    await next();
    // Refused by the address's list budget: that answer's headers describe that budget.
    if (refusedByListBudget.has(c.req.raw)) return undefined;
    if (c.res.status !== 429) c.header(RATE_LIMIT_HEADERS.retryAfter, undefined);
    describe();
    return undefined;
  };
}

/** Requests the list budget refused: their 429 names that budget, not the REST one. */
const refusedByListBudget = new WeakSet<Request>();

/**
 * A second, smaller budget per client address for the answers that cost the gateway (and the service
 * behind it) a whole-market list: an answer it cannot give from its cache (a `spreads` of a new
 * `min_tvl`, a group's list once its cache has expired, symbol_info of a group nobody asked lately).
 * Answers from the cache are free: the budget is charged only when the caller is about to fetch or
 * build (`charge`), so a flood of requests that all name the same canonical answer costs nothing, and one
 * that names a new answer every time is refused past the budget (429 in the family's shape, with
 * `Retry-After` and `RateLimit-*` naming this budget). `requestsPerMinute` 0: no such budget.
 */
export function addressListBudget(options: {
  readonly requestsPerMinute: number;
  readonly clientAddress: (c: Context) => string;
  readonly limiter?: RequestLimiter;
  /** Told of each request refused (metrics). */
  readonly onRefused?: () => void;
}): (c: Context, family: Family) => Promise<Response | undefined> {
  const budget = options.limiter ?? memoryBudgets('gw-list');
  return async (c, family) => {
    if (options.requestsPerMinute <= 0) return undefined;
    const decision = await budget.take(`gw-list:${options.clientAddress(c)}`, options.requestsPerMinute);
    if (decision.allowed) return undefined;
    options.onRefused?.();
    return refuseList(
      c,
      family,
      decision,
      `${options.requestsPerMinute} whole-market answers the gateway has to build per minute per client address (answers it holds are not counted)`,
    );
  };
}

/**
 * The bytes of whole-market answers the gateway sends one client address from its cache, per minute (the answers'
 * uncompressed size): `charge(c, family, bytes)` before a held answer is sent; past the budget, 429 in the family's
 * shape with `Retry-After` and `RateLimit-*` naming this budget (in bytes). A budget of 0: none.
 */
export function addressListBytesBudget(options: {
  readonly bytesPerMinute: number;
  readonly clientAddress: (c: Context) => string;
  readonly limiter?: RequestLimiter;
  /** Told of each request refused (metrics). */
  readonly onRefused?: () => void;
}): (c: Context, family: Family, bytes: number) => Promise<Response | undefined> {
  const budget = options.limiter ?? memoryBudgets('gw-list-bytes');
  return async (c, family, bytes) => {
    if (options.bytesPerMinute <= 0) return undefined;
    const decision = await budget.take(
      `gw-list-bytes:${options.clientAddress(c)}`,
      options.bytesPerMinute,
      Math.max(1, bytes),
    );
    if (decision.allowed) return undefined;
    options.onRefused?.();
    return refuseList(
      c,
      family,
      decision,
      `${sizeText(options.bytesPerMinute)} of whole-market answers per minute per client address`,
    );
  };
}

/** A size in words: `256 MiB`, `12 KiB`, `900 bytes`. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** A list budget's refusal: 429 in the family's shape, its headers naming that budget (`what`: the budget in words). */
function refuseList(c: Context, family: Family, decision: RateDecision, what: string): Response {
  refusedByListBudget.add(c.req.raw);
  c.header(RATE_LIMIT_HEADERS.limit, String(decision.limit));
  c.header(RATE_LIMIT_HEADERS.remaining, String(decision.remaining));
  c.header(RATE_LIMIT_HEADERS.reset, String(decision.resetSeconds));
  c.header(RATE_LIMIT_HEADERS.retryAfter, String(decision.retryAfterSeconds));
  return gatewayError(c, family, 429, `Rate limit exceeded: ${what}; retry in ${decision.retryAfterSeconds} s`, {
    loc: ['client'],
    type: TOKEN_ERROR_TYPES.rateLimit,
  });
}
