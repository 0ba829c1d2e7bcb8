import type { Context, MiddlewareHandler } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RATE_LIMIT_HEADERS, TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { gatewayError } from './forward';

/**
 * Requests per minute per client address on /gw/v1 (the part exposed to the public, which spends the
 * gateway's own key upstream). The budget is a fixed one-minute window per address
 * (rate-limiter-flexible), answered like the service's limits: `RateLimit-*` headers on every answer,
 * and past the budget a 429 with `Retry-After` in the family's error shape. The live stream is
 * limited by connections per address instead, and is not counted here.
 */
export function addressRateLimit(options: { readonly requestsPerMinute: number; readonly clientAddress: (c: Context) => string }): MiddlewareHandler {
  const limiter = new RateLimiterMemory({ points: options.requestsPerMinute, duration: 60 });
  return async (c, next) => {
    if (c.req.path.endsWith('/live')) return next();
    const address = options.clientAddress(c);
    let state: RateLimiterRes;
    let allowed = true;
    try {
      state = await limiter.consume(address, 1);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      state = refused;
      allowed = false;
    }
    const reset = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    // The browser's own budget: these replace what an upstream answer said about the gateway's key.
    const describe = () => {
      c.header(RATE_LIMIT_HEADERS.limit, String(options.requestsPerMinute));
      c.header(RATE_LIMIT_HEADERS.remaining, String(Math.max(0, state.remainingPoints)));
      c.header(RATE_LIMIT_HEADERS.reset, String(reset));
    };
    if (!allowed) {
      describe();
      c.header(RATE_LIMIT_HEADERS.retryAfter, String(reset));
      const family = /\/tokens(\/|$)/.test(c.req.path) ? 'tokens' : 'price';
      return gatewayError(c, family, 429, `Rate limit exceeded: ${options.requestsPerMinute} requests per minute per client address; retry in ${reset} s`, {
        loc: ['client'],
        type: TOKEN_ERROR_TYPES.rateLimit,
      });
    }
    await next();
    if (c.res.status !== 429) c.header(RATE_LIMIT_HEADERS.retryAfter, undefined);
    describe();
    return undefined;
  };
}
