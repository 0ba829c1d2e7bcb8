import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { LogHook } from '../../node/log';
import { RequestBudgets, WINDOW_SECONDS, type RateDecision, type RequestLimiter } from '../../node/rate-limits';
import type { SlotWait } from '../stream/hub';

/** Redis key of one of a key's stream slots. */
const leaseKey = (keyId: string, slot: number) => `tps:lease:${keyId}:${slot}`;

/**
 * How often a stream waiting for its key's slot asks Redis again. A slot released on this node wakes
 * its waiters at once; one released on another node is seen within this.
 */
const SLOT_POLL_MS = 20;

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

/** The client with the lease scripts (ioredis `defineCommand`). */
type LeaseRedis = Redis & {
  refreshLease(key: string, token: string, ms: number): Promise<number>;
  releaseLease(key: string, token: string): Promise<number>;
};

/**
 * What nodes share through Redis (issue "scale out"): each key's request budget (one process's rule,
 * src/node/rate-limits.ts, counted atomically in Redis by rate-limiter-flexible; the node's own memory
 * stands in while Redis is unreachable, the library's insurance limiter), and each key's stream
 * connections (a lease per connection slot with an expiry, refreshed while the connection lives and
 * taken again if it vanished, released when it ends, recovered by expiry when its node dies). The
 * two lease steps that must compare and set at once are tiny scripts (`defineCommand`): Redis 7 has
 * no compare-and-delete, and redis-semaphore reports a vanished lease as lost instead of taking it
 * again, and times leases by each node's own clock.
 */
export class SharedLimits implements RequestLimiter {
  readonly node = randomUUID();
  /**
   * Stream leases this node could not have, totals since start (metrics): a new connection whose key
   * had every slot held (`held`), a live connection whose slot another took (`lost`), Redis not
   * answering (`unreachable`).
   */
  readonly conflicts = { held: 0, lost: 0, unreachable: 0 };
  /** Budgets counted in Redis, with this node's memory as the insurance while Redis is unreachable. */
  private readonly budgets: RequestBudgets;
  /** Streams of this node waiting for a slot, by key: woken when this node releases one of the key. */
  private readonly wakers = new Map<string, Set<() => void>>();
  private constructor(
    private readonly redis: LeaseRedis,
    private readonly leaseMs: number,
  ) {
    this.budgets = new RequestBudgets(
      (points) =>
        new RateLimiterRedis({
          storeClient: redis,
          points,
          duration: WINDOW_SECONDS,
          keyPrefix: `tps:budget:${points}`,
          insuranceLimiter: new RateLimiterMemory({
            points,
            duration: WINDOW_SECONDS,
            keyPrefix: `tps:budget:${points}`,
          }),
        }),
    );
  }

  static create(url: string, options: { readonly leaseMs?: number; readonly log?: LogHook } = {}): SharedLimits {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
    redis.on('error', (error: Error) => options.log?.(`redis (limits): ${error.message}`, { level: 'warn' }));
    // Two compare-and-set steps Redis has no command for (before 8.4's DELEX IFEQ), each one atomic script.
    redis.defineCommand('refreshLease', { numberOfKeys: 1, lua: REFRESH_LEASE });
    redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: RELEASE_LEASE });
    return new SharedLimits(redis as LeaseRedis, options.leaseMs ?? 30_000);
  }

  /**
   * Takes one request from `id`'s budget, shared by every node: the same rule as one process has, so
   * the 429 and its headers are the same whichever way the service runs.
   */
  take(id: string, perMinute: number, points = 1): Promise<RateDecision> {
    return this.budgets.take(id, perMinute, points);
  }

  /**
   * Takes one of a key's `max` stream slots for this connection; resolves with its release, or
   * undefined when every slot is held (by this node or another) until `wait`'s deadline (a handover:
   * the holder may be a stream its client is replacing, whose close has not reached its node yet).
   * Unreachable Redis refuses.
   *
   * While the connection lives its lease is refreshed; a lease that vanished (Redis restarted
   * without persistence) is taken again, in any free slot; if every slot is someone else's by then,
   * `onLost` is called: the connection must end, or the key would hold one stream too many.
   */
  async acquireStream(
    keyId: string,
    max: number,
    onLost: () => void = () => undefined,
    wait?: SlotWait,
  ): Promise<(() => void) | undefined> {
    const token = `${this.node}:${randomUUID()}`;
    let slot: number | undefined;
    try {
      slot = await this.takeFreeSlot(keyId, max, token);
      while (slot === undefined && wait && !wait.signal?.aborted && Date.now() < wait.deadline) {
        await this.released(keyId, Math.min(SLOT_POLL_MS, wait.deadline - Date.now()), wait.signal);
        if (wait.signal?.aborted) break;
        slot = await this.takeFreeSlot(keyId, max, token);
      }
    } catch {
      this.conflicts.unreachable++;
      return undefined;
    }
    if (slot === undefined) {
      this.conflicts.held++;
      return undefined;
    }
    let released = false;
    let refreshing = false;
    const refresh = setInterval(
      () => {
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
              this.conflicts.lost++;
              onLost();
            }
          } catch {
            // Redis unreachable: try again at the next refresh (the lease may expire meanwhile, and is then taken again).
          } finally {
            refreshing = false;
          }
        })();
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    refresh.unref();
    return () => {
      if (released) return;
      released = true;
      clearInterval(refresh);
      void this.redis
        .releaseLease(leaseKey(keyId, slot ?? 0), token)
        .catch(() => undefined)
        .then(() => this.wake(keyId));
    };
  }

  /** Resolves after `ms`, or sooner when this node releases a slot of the key or `signal` aborts. */
  private released(keyId: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.wakers.get(keyId);
      if (!wakers) this.wakers.set(keyId, (wakers = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        wakers.delete(done);
        if (wakers.size === 0 && this.wakers.get(keyId) === wakers) this.wakers.delete(keyId);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      wakers.add(done);
    });
  }

  private wake(keyId: string): void {
    for (const done of [...(this.wakers.get(keyId) ?? [])]) done();
  }

  /** Takes the first free slot of the key for `token` (SET NX with the lease's expiry); undefined when all are held. */
  private async takeFreeSlot(keyId: string, max: number, token: string): Promise<number | undefined> {
    for (let slot = 0; slot < max; slot++) {
      if ((await this.redis.set(leaseKey(keyId, slot), token, 'PX', this.leaseMs, 'NX')) === 'OK') return slot;
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
