import type { MiddlewareHandler } from 'hono';
import { RATE_LIMIT_HEADERS, TOKEN_ERROR_TYPES } from '../../shared/api/errors';
import { STREAM_ERRORS } from '../../shared/api/stream';
import { bearerToken, type KeyRing, type Principal } from '../auth/keys';
import type { RequestLimiter } from '../../node/rate-limits';
import type { Refusals } from '../auth/rate-limit';
import { familyError, priceError, streamError, tokenError, type Family } from './errors';

export type ServiceEnv = { Variables: { principal: Principal } };

/** A key's request budget: this node's (`RateLimiter`) or the cluster's (`SharedLimits`, in Redis). */
export type { RequestLimiter };

export interface GuardOptions {
  readonly keys: KeyRing;
  readonly limiter: RequestLimiter;
  /** Counts the requests refused by a plan's budget (metrics). */
  readonly refusals?: Refusals;
}

/**
 * Authentication and rate limiting for one endpoint family, answering refusals in that family's
 * shape. Authentication comes first (401 before any validation), then the plan's request budget.
 * Every authenticated response carries the RateLimit-* headers.
 */
export function guard({ keys, limiter, refusals }: GuardOptions, family: Family): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header('Authorization'));
    const principal = token === undefined ? undefined : await keys.authenticate(token);
    if (!principal) {
      if (family === 'stream') return streamError(c, 200, STREAM_ERRORS.invalidAuth);
      c.header('WWW-Authenticate', 'Bearer');
      if (family === 'tokens') {
        return tokenError(c, 401, {
          loc: ['header', 'Authorization'],
          msg:
            token === undefined
              ? 'Not authenticated: send Authorization: Bearer <API_KEY>'
              : 'Invalid authentication credentials',
          type: TOKEN_ERROR_TYPES.auth,
        });
      }
      return priceError(
        c,
        401,
        token === undefined ? 'Not authenticated: send Authorization: Bearer <API_KEY>' : 'Invalid authentication',
      );
    }
    const plan = keys.plan(principal.plan);
    const decision = await limiter.take(principal.id, plan.requestsPerMinute);
    c.header(RATE_LIMIT_HEADERS.limit, String(decision.limit));
    c.header(RATE_LIMIT_HEADERS.remaining, String(decision.remaining));
    c.header(RATE_LIMIT_HEADERS.reset, String(decision.resetSeconds));
    if (!decision.allowed) {
      refusals?.note(principal.plan);
      c.header(RATE_LIMIT_HEADERS.retryAfter, String(decision.retryAfterSeconds));
      const message =
        family === 'stream'
          ? STREAM_ERRORS.rateLimit
          : `Rate limit exceeded: the ${principal.plan} plan allows ${plan.requestsPerMinute} requests per minute; retry in ${decision.retryAfterSeconds} s`;
      return familyError(c, family, 429, message, {
        loc: ['header', 'Authorization'],
        type: TOKEN_ERROR_TYPES.rateLimit,
      });
    }
    c.set('principal', principal);
    await next();
    return undefined;
  };
}
