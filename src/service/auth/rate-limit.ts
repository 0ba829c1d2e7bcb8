/**
 * Per-key request limits: a token bucket per key holding at most one minute's allowance and refilling
 * continuously, so bursts up to the plan's per-minute limit pass and the average rate is the plan's.
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

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly nowMs: () => number) {}

  /** Takes one request from the key's bucket. */
  take(keyId: string, perMinute: number): RateDecision {
    const now = this.nowMs();
    const ratePerMs = perMinute / 60_000;
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: perMinute, updatedMs: now };
      this.buckets.set(keyId, bucket);
    } else {
      bucket.tokens = Math.min(perMinute, bucket.tokens + Math.max(0, now - bucket.updatedMs) * ratePerMs);
      bucket.updatedMs = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const missing = perMinute - bucket.tokens;
    return {
      allowed,
      limit: perMinute,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil(missing / ratePerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)),
    };
  }

  /** Forgets buckets idle for a minute (they are full again), to bound memory. */
  sweep(): void {
    const now = this.nowMs();
    for (const [id, bucket] of this.buckets) if (now - bucket.updatedMs > 60_000) this.buckets.delete(id);
  }
}
