import PQueue from 'p-queue';
import type { LogHook } from '../../node/log';
import { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import type { Upstream } from '../upstream';

export interface PacedUpstreamOptions {
  readonly upstream: Upstream;
  /** Requests per minute the gateway may spend (spaced evenly, never in a burst). */
  readonly requestsPerMinute: number;
  readonly timeoutMs: number;
  /** Tries of one request refused with a 429 (each after the upstream's Retry-After). */
  readonly maxTries?: number;
  readonly log?: LogHook;
}

/** An upstream answer that is not a 200 (after any 429 retries). */
export class UpstreamStatusError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
  ) {
    super(`${path.split('?')[0] ?? path} answered ${status}`);
  }
}

/** Below this share of the upstream's RateLimit-Limit left, the queue waits for the window to refill. */
const RESERVE_SHARE = 0.5;
/** Longest pause the upstream's headers can impose at once (a wrong header must not stall forever). */
const MAX_PAUSE_MS = 5 * 60_000;
/** Waiting requests at most: the work is bounded by design; this guards against a bug fanning out. */
const MAX_WAITING = 5000;

/**
 * The gateway's own upstream requests (deriving extension answers from spec endpoints): one at a time,
 * spaced evenly at the configured rate, shared between callers asking for the same path, and
 * respectful of the upstream's signals: a `RateLimit-Remaining` below half of `RateLimit-Limit` pauses
 * the queue until `RateLimit-Reset`, and a 429 pauses it for `Retry-After` and tries that request
 * again. Browsers' own requests never go through here, so they keep the other half of the budget.
 */
export class PacedUpstream {
  private readonly queue: PQueue;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private resumeTimer: ReturnType<typeof setTimeout> | undefined;
  private resumeAt = 0;
  private closed = false;
  /** Requests sent so far (for tests and logs). */
  sent = 0;

  constructor(private readonly options: PacedUpstreamOptions) {
    this.queue = new PQueue({
      concurrency: 1,
      intervalCap: 1,
      interval: Math.max(1, Math.round(60_000 / options.requestsPerMinute)),
    });
  }

  /** Waiting and running requests. */
  get backlog(): number {
    return this.queue.size + this.queue.pending;
  }

  /**
   * GET `path` through the queue, parsed with `schema`; one request for concurrent callers of the same
   * path. Higher `priority` goes first. Rejects with UpstreamStatusError for a non-200 answer.
   */
  get<T>(path: string, schema: $ZodType<T>, priority = 0): Promise<T> {
    const pending = this.inFlight.get(path);
    if (pending) return pending as Promise<T>;
    if (this.closed) return Promise.reject(new Error('closed'));
    if (this.queue.size >= MAX_WAITING) return Promise.reject(new Error('too many upstream requests waiting'));
    const made = this.attempt(path, schema, priority, 1).finally(() => this.inFlight.delete(path));
    this.inFlight.set(path, made);
    return made;
  }

  private async attempt<T>(path: string, schema: $ZodType<T>, priority: number, tries: number): Promise<T> {
    const response = await this.queue.add(
      async () => {
        this.sent++;
        const answer = await this.options.upstream.fetch(path, {
          signal: AbortSignal.timeout(this.options.timeoutMs),
          redirect: 'manual',
        });
        this.heed(answer);
        return answer;
      },
      { priority, throwOnTimeout: true },
    );
    if (response.status === 429 && tries < (this.options.maxTries ?? 3) && !this.closed) {
      await response.body?.cancel().catch(() => {});
      // Tried again first when the pause ends.
      return this.attempt(path, schema, Number.MAX_SAFE_INTEGER, tries + 1);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamStatusError(path, response.status);
    }
    return z.parse(schema, await response.json());
  }

  /** Pauses the queue as the upstream's rate-limit headers ask. */
  private heed(response: Response): void {
    const seconds = (name: string) => {
      const value = Number(response.headers.get(name));
      return Number.isFinite(value) && value >= 0 ? value : undefined;
    };
    if (response.status === 429) {
      const wait = seconds('retry-after') ?? seconds('ratelimit-reset') ?? 60;
      this.pauseFor(wait * 1000, `the upstream answered 429: waiting ${wait} s`);
      return;
    }
    const limit = seconds('ratelimit-limit');
    const remaining = seconds('ratelimit-remaining');
    if (limit !== undefined && remaining !== undefined && remaining < limit * RESERVE_SHARE) {
      // Wait for the share that refills the reserve (the reset is when the whole budget is back).
      const reset = seconds('ratelimit-reset') ?? 60;
      const missing = (limit * RESERVE_SHARE - remaining) / Math.max(1, limit - remaining);
      this.pauseFor(Math.ceil(reset * missing) * 1000, undefined);
    }
  }

  private pauseFor(ms: number, reason: string | undefined): void {
    const until = Date.now() + Math.min(MAX_PAUSE_MS, ms);
    if (until <= this.resumeAt || this.closed) return;
    if (reason) this.options.log?.(`gateway: ${reason}`, { level: 'warn' });
    this.resumeAt = until;
    this.queue.pause();
    clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(() => {
      this.resumeAt = 0;
      this.queue.start();
    }, until - Date.now());
    this.resumeTimer.unref?.();
  }

  /** Drops waiting requests (they reject) and stops. */
  close(): void {
    this.closed = true;
    clearTimeout(this.resumeTimer);
    this.queue.clear();
    this.queue.pause();
  }
}
