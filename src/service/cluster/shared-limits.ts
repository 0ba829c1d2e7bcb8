import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { bucketDecision, TokenBuckets, type RateDecision, type RequestLimiter } from '../../node/token-bucket';

/** Redis key of one of a key's stream slots. */
const leaseKey = (keyId: string, slot: number) => `tps:lease:${keyId}:${slot}`;

/** Extends the lease if it is ours, takes it back if it is gone (1); 0 when someone else holds it. */
const REFRESH_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/** Deletes the lease only if it is still ours (a lease that expired may be another connection's now). */
const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Takes one request from a token bucket (the same rule as `TokenBuckets`, src/node/token-bucket.ts)
 * kept in Redis, timed by Redis' clock (every node then sees one time): returns whether it was allowed
 * and the tokens left. A bucket idle for a minute is full again, so it is forgotten.
 */
const TAKE_TOKEN = `
local limit = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or limit
local at = tonumber(state[2]) or now
tokens = math.min(limit, tokens + math.max(0, now - at) * limit / 60000)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], 60000)
return { allowed, string.format('%.17g', tokens) }`;

/** The client with the bucket and lease scripts (ioredis `defineCommand`). */
type LeaseRedis = Redis & {
  takeToken(key: string, perMinute: number): Promise<[number, string]>;
  refreshLease(key: string, token: string, ms: number): Promise<number>;
  releaseLease(key: string, token: string): Promise<number>;
};

/**
 * What nodes share through Redis (issue "scale out"): each key's request budget (the token bucket of
 * one process, atomic in Redis; the node's own buckets stand in while Redis is unreachable), and each key's
 * stream connections (a lease per connection slot with an expiry, refreshed while the connection
 * lives and taken again if it vanished, released when it ends, recovered by expiry when its node
 * dies). The steps that must read and write at once are tiny scripts (`defineCommand`): no kept
 * library has a token bucket on Redis (rate-limiter-flexible's limiters are fixed windows, a rule
 * unlike one process's, with twice the budget around a window's edge), and redis-semaphore reports
 * a vanished lease as lost instead of taking it again, and times leases by each node's own clock.
 */
export class SharedLimits implements RequestLimiter {
  /** This node's own buckets, standing in while Redis is unreachable (the same rule, per node). */
  private readonly insurance = new TokenBuckets();
  private readonly sweep = setInterval(() => this.insurance.sweep(), 60_000);
  readonly node = randomUUID();
  private constructor(
    private readonly redis: LeaseRedis,
    private readonly leaseMs: number,
  ) {
    this.sweep.unref();
  }

  static create(url: string, options: { readonly leaseMs?: number; readonly log?: (line: string) => void } = {}): SharedLimits {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
    redis.on('error', (error: Error) => options.log?.(`redis (limits): ${error.message}`));
    // Two compare-and-set steps Redis has no command for (before 8.4's DELEX IFEQ), each one atomic script.
    redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
    redis.defineCommand('refreshLease', { numberOfKeys: 1, lua: REFRESH_LEASE });
    redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: RELEASE_LEASE });
    return new SharedLimits(redis as LeaseRedis, options.leaseMs ?? 30_000);
  }

  /**
   * Takes one request from `id`'s budget, shared by every node: the same token bucket as one process
   * has, so the 429 and its headers are the same whichever way the service runs.
   */
  async take(id: string, perMinute: number): Promise<RateDecision> {
    try {
      const [allowed, tokens] = await this.redis.takeToken(`tps:bucket:${perMinute}:${id}`, perMinute);
      return bucketDecision(Number(tokens), perMinute, allowed === 1);
    } catch {
      return this.insurance.take(id, perMinute);
    }
  }

  /**
   * Takes one of a key's `max` stream slots for this connection; resolves with its release, or
   * undefined when every slot is held (by this node or another). Unreachable Redis refuses.
   *
   * While the connection lives its lease is refreshed; a lease that vanished (Redis restarted
   * without persistence) is taken again, in any free slot; if every slot is someone else's by then,
   * `onLost` is called: the connection must end, or the key would hold one stream too many.
   */
  async acquireStream(keyId: string, max: number, onLost: () => void = () => undefined): Promise<(() => void) | undefined> {
    const token = `${this.node}:${randomUUID()}`;
    let slot: number | undefined;
    try {
      slot = await this.takeFreeSlot(keyId, max, token);
    } catch {
      return undefined;
    }
    if (slot === undefined) return undefined;
    let released = false;
    let refreshing = false;
    const refresh = setInterval(() => {
      if (refreshing || released) return;
      refreshing = true;
      void (async () => {
        try {
          const key = leaseKey(keyId, slot ?? 0);
          if ((await this.redis.refreshLease(key, token, this.leaseMs)) === 1) return;
          // Ours no more: take any free slot again, or give the connection up.
          const again = await this.takeFreeSlot(keyId, max, token);
          if (released) return;
          if (again !== undefined) slot = again;
          else {
            released = true;
            clearInterval(refresh);
            onLost();
          }
        } catch {
          // Redis unreachable: try again at the next refresh (the lease may expire meanwhile, and is then taken again).
        } finally {
          refreshing = false;
        }
      })();
    }, Math.max(100, Math.floor(this.leaseMs / 3)));
    refresh.unref();
    return () => {
      if (released) return;
      released = true;
      clearInterval(refresh);
      void this.redis.releaseLease(leaseKey(keyId, slot ?? 0), token).catch(() => undefined);
    };
  }

  /** Takes the first free slot of the key for `token` (SET NX with the lease's expiry); undefined when all are held. */
  private async takeFreeSlot(keyId: string, max: number, token: string): Promise<number | undefined> {
    for (let slot = 0; slot < max; slot++) {
      if ((await this.redis.set(leaseKey(keyId, slot), token, 'PX', this.leaseMs, 'NX')) === 'OK') return slot;
    }
    return undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.redis.disconnect();
  }
}
