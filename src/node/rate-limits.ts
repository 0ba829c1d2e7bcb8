import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Request budgets, the one rule of every limit we answer with 429 (a key's plan on the service, a
 * client address on the gateway; in one process or shared by a cluster's nodes): so many requests per
 * one-minute window, counted by rate-limiter-flexible (in memory here; in Redis for a cluster,
 * cluster/shared-limits.ts). The window opens with an id's first request and closes a minute later;
 * `RateLimit-Reset` and `Retry-After` say when. docs/decisions.md "Rate limits".
 */

/** The window every budget is counted over. */
export const WINDOW_SECONDS = 60;

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window closes and the whole budget is back (RateLimit-Reset). */
  readonly resetSeconds: number;
  /** Seconds until the next request would pass (Retry-After), when refused. */
  readonly retryAfterSeconds: number;
}

/** A budget: this process's, or a cluster's (in Redis). */
export interface RequestLimiter {
  /** Takes `points` (default 1: one request) from `id`'s budget of `perMinute`. */
  take(id: string, perMinute: number, points?: number): Promise<RateDecision>;
}

/** The answer for rate-limiter-flexible's result of one request (the same wherever the count lives). */
export function decisionOf(result: RateLimiterRes, perMinute: number, allowed: boolean): RateDecision {
  const seconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return {
    allowed,
    limit: perMinute,
    remaining: Math.max(0, result.remainingPoints),
    resetSeconds: seconds,
    retryAfterSeconds: allowed ? 0 : seconds,
  };
}

/**
 * Budgets of any number of ids, each limit (a plan's requests per minute) counted by its own
 * rate-limiter-flexible limiter, made by `limiterFor`.
 */
export class RequestBudgets implements RequestLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly limiterFor: (perMinute: number) => RateLimiterAbstract) {}

  /**
   * Takes one request (or `points`: a budget counted in other units, such as bytes) from `id`'s budget of `perMinute`.
   * A store that fails (and has no insurance) throws.
   */
  async take(id: string, perMinute: number, points = 1): Promise<RateDecision> {
    let limiter = this.limiters.get(perMinute);
    if (!limiter) {
      limiter = this.limiterFor(perMinute);
      this.limiters.set(perMinute, limiter);
    }
    try {
      return decisionOf(await limiter.consume(id, points), perMinute, true);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return decisionOf(refusal, perMinute, false);
      throw refusal;
    }
  }
}

/** Budgets in this process's memory (expired windows are dropped by the library). */
export function memoryBudgets(keyPrefix: string): RequestBudgets {
  return new RequestBudgets(
    (points) => new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: `${keyPrefix}:${points}` }),
  );
}
