import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision } from '../auth/rate-limit';

/**
 * What nodes share through Redis (issue "scale out"): each key's request budget (rate-limiter-flexible,
 * atomic in Redis; a per-node memory limiter stands in while Redis is unreachable), and each key's
 * stream connections (a lease per connection slot with an expiry, refreshed while the connection
 * lives, released when it ends, recovered by expiry when its node dies).
 */
export class SharedLimits {
  private readonly limiters = new Map<number, RateLimiterRedis>();
  readonly node = randomUUID();
  private constructor(
    private readonly redis: Redis,
    private readonly leaseMs: number,
  ) {}

  static create(url: string, options: { readonly leaseMs?: number; readonly log?: (line: string) => void } = {}): SharedLimits {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
    redis.on('error', (error: Error) => options.log?.(`redis (limits): ${error.message}`));
    return new SharedLimits(redis, options.leaseMs ?? 30_000);
  }

  private limiter(perMinute: number): RateLimiterRedis {
    let limiter = this.limiters.get(perMinute);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `tps:rate:${perMinute}`,
        points: perMinute,
        duration: 60,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `tps:rate:${perMinute}:local`, points: perMinute, duration: 60 }),
      });
      this.limiters.set(perMinute, limiter);
    }
    return limiter;
  }

  /** Takes one request from the key's budget, shared by every node (a fixed one-minute window). */
  async take(keyId: string, perMinute: number): Promise<RateDecision> {
    try {
      const res = await this.limiter(perMinute).consume(keyId, 1);
      return { allowed: true, limit: perMinute, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.ceil(res.msBeforeNext / 1000), retryAfterSeconds: 0 };
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      const wait = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
      return { allowed: false, limit: perMinute, remaining: 0, resetSeconds: wait, retryAfterSeconds: wait };
    }
  }

  /**
   * Takes one of a key's `max` stream slots for this connection; resolves with its release, or
   * undefined when every slot is held (by this node or another). Unreachable Redis refuses.
   */
  async acquireStream(keyId: string, max: number): Promise<(() => void) | undefined> {
    const token = `${this.node}:${randomUUID()}`;
    for (let slot = 0; slot < max; slot++) {
      const key = `tps:lease:${keyId}:${slot}`;
      let taken: string | null;
      try {
        taken = await this.redis.set(key, token, 'PX', this.leaseMs, 'NX');
      } catch {
        return undefined;
      }
      if (taken !== 'OK') continue;
      const refresh = setInterval(() => {
        void this.redis
          .get(key)
          .then((holder) => (holder === token ? this.redis.pexpire(key, this.leaseMs) : undefined))
          .catch(() => undefined);
      }, Math.max(100, Math.floor(this.leaseMs / 3)));
      refresh.unref();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearInterval(refresh);
        void this.redis
          .get(key)
          .then((holder) => (holder === token ? this.redis.del(key) : undefined))
          .catch(() => undefined);
      };
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
