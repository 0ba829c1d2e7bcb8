/**
 * Request budgets as token buckets, the one rule of every limit we answer with 429 (a key's plan on
 * the service, a client address on the gateway; on one process or shared by a cluster's nodes): a
 * bucket holds at most one minute's allowance and refills continuously, so bursts up to the
 * per-minute limit pass and the average rate is the limit. docs/decisions.md "Rate limits".
 */

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  readonly resetSeconds: number;
  /** Seconds until the next request would pass (Retry-After), when refused. */
  readonly retryAfterSeconds: number;
}

/** A budget: this process's buckets, or a cluster's (in Redis). */
export interface RequestLimiter {
  take(id: string, perMinute: number): RateDecision | Promise<RateDecision>;
}

/** The answer for a bucket left with `tokens` after a request was allowed or refused (the same wherever the bucket lives). */
export function bucketDecision(tokens: number, perMinute: number, allowed: boolean): RateDecision {
  const ratePerMs = perMinute / 60_000;
  return {
    allowed,
    limit: perMinute,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((perMinute - tokens) / ratePerMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)),
  };
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Token buckets in this process's memory. */
export class TokenBuckets implements RequestLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Takes one request from the bucket of `id`. */
  take(id: string, perMinute: number): RateDecision {
    const now = this.nowMs();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = { tokens: perMinute, updatedMs: now };
      this.buckets.set(id, bucket);
    } else {
      bucket.tokens = Math.min(perMinute, bucket.tokens + (Math.max(0, now - bucket.updatedMs) * perMinute) / 60_000);
      bucket.updatedMs = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return bucketDecision(bucket.tokens, perMinute, allowed);
  }

  /** Forgets buckets idle for a minute (they are full again), to bound memory. */
  sweep(): void {
    const now = this.nowMs();
    for (const [id, bucket] of this.buckets) if (now - bucket.updatedMs > 60_000) this.buckets.delete(id);
  }
}
