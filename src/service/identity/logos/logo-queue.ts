import PQueue from 'p-queue';
import type { LogoOutcome } from './logo-loader';
import type { LogoInput } from './logo-uri';

/**
 * Logos are fetched off the ingest path: a token's logo is queued, a bounded number are loaded at a time,
 * failures worth retrying (timeouts, connection failures, 5xx and 429 answers) are tried again after an
 * exponential backoff with jitter, and every outcome goes to the caller's callbacks (who stores the PNG
 * or logs why there is none). The queue keeps no store and no log of its own.
 *
 * A token queued again while waiting or being loaded is loaded once, with its latest logo: a load of an
 * older logo that ends after the change is dropped, not reported.
 */

/** The clock and timers of the queue (injectable for tests). */
export interface LogoQueueClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: LogoQueueClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface LogoQueueOptions {
  /** Loads one logo (`createLogoLoader(...).load`). */
  readonly load: (logo: LogoInput, signal: AbortSignal) => Promise<LogoOutcome>;
  /** A token's logo, as the PNG to serve. */
  readonly onLogo: (unit: string, png: Buffer) => void | Promise<void>;
  /**
   * A token's logo could not be had: `retryAt` (Unix ms) when it will be tried again, absent when the
   * queue gave up (a permanent failure, or the last attempt).
   */
  readonly onFailure: (unit: string, reason: string, retryAt?: number) => void | Promise<void>;
  /** A callback threw or rejected (the queue goes on). */
  readonly onCallbackError?: (unit: string, error: unknown) => void;
  /** Logos loaded at once (default 2). */
  readonly concurrency?: number;
  /** Loads of one logo before giving up, the first included (default 5). */
  readonly maxAttempts?: number;
  /** Backoff before the second attempt, doubled each time (default 60 s). */
  readonly baseDelayMs?: number;
  /** Longest backoff, Retry-After included (default 6 h). */
  readonly maxDelayMs?: number;
  /** Tokens waiting, loading or retrying at most; one more is refused (default 10,000). */
  readonly maxPending?: number;
  readonly clock?: LogoQueueClock;
  /** A number in [0, 1) for the jitter (default Math.random). */
  readonly random?: () => number;
}

interface Entry {
  logo: LogoInput;
  /** Bumped when the logo changes: a load of an older generation is dropped. */
  generation: number;
  /** Loads done for this generation. */
  attempts: number;
  state: 'waiting' | 'loading' | 'retrying';
  timer?: unknown;
}

/** Whether two logo inputs are the same logo. */
function sameLogo(a: LogoInput, b: LogoInput): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  const bytes = (input: Uint8Array | readonly Uint8Array[]) =>
    input instanceof Uint8Array ? Buffer.from(input) : Buffer.concat(input.map((chunk) => Buffer.from(chunk)));
  return bytes(a).equals(bytes(b));
}

export class LogoQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly work: PQueue;
  private readonly abort = new AbortController();
  private readonly clock: LogoQueueClock;
  private readonly random: () => number;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxPending: number;
  private closed = false;

  constructor(private readonly options: LogoQueueOptions) {
    this.work = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 2) });
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.baseDelayMs = options.baseDelayMs ?? 60_000;
    this.maxDelayMs = options.maxDelayMs ?? 6 * 3600_000;
    this.maxPending = options.maxPending ?? 10_000;
  }

  /** Tokens waiting, loading or waiting for a retry. */
  get pending(): number {
    return this.entries.size;
  }

  /** Queues a token's logo (again, if its logo changed or it waits for a retry: then at once). */
  enqueue(unit: string, logo: LogoInput): void {
    if (this.closed) return;
    const entry = this.entries.get(unit);
    if (entry) {
      if (entry.state !== 'retrying' && sameLogo(entry.logo, logo)) return;
      entry.logo = logo;
      entry.generation++;
      entry.attempts = 0;
      if (entry.state === 'retrying') {
        this.clock.clearTimeout(entry.timer);
        entry.timer = undefined;
        this.schedule(unit, entry);
      }
      return;
    }
    if (this.entries.size >= this.maxPending) {
      this.report(unit, () =>
        this.options.onFailure(unit, `logo queue is full (${this.maxPending} tokens waiting): not fetched`),
      );
      return;
    }
    const fresh: Entry = { logo, generation: 0, attempts: 0, state: 'waiting' };
    this.entries.set(unit, fresh);
    this.schedule(unit, fresh);
  }

  /** Resolves when no logo is waiting or loading (retries scheduled for later do not count). */
  idle(): Promise<void> {
    return this.work.onIdle();
  }

  /** Stops: cancels retries, aborts loads in flight, reports nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    this.abort.abort();
    this.work.clear();
    await this.work.onIdle();
    this.entries.clear();
  }

  private schedule(unit: string, entry: Entry): void {
    entry.state = 'waiting';
    void this.work.add(() => this.run(unit));
  }

  /** The wait before attempt `attempts + 1`: exponential, with half of it random (equal jitter). */
  private backoff(attempts: number, retryAfterMs: number | undefined): number {
    const exponential = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempts - 1));
    const jittered = exponential / 2 + (this.random() * exponential) / 2;
    return Math.min(this.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0));
  }

  private async run(unit: string): Promise<void> {
    const entry = this.entries.get(unit);
    if (!entry || this.closed) return;
    entry.state = 'loading';
    const generation = entry.generation;
    let outcome: LogoOutcome;
    try {
      outcome = await this.options.load(entry.logo, this.abort.signal);
    } catch (error) {
      outcome = { ok: false, reason: `logo failed: ${String(error)}`, retryable: false };
    }
    if (this.closed) return;
    if (entry.generation !== generation) {
      // The logo changed while this one loaded: load the new one instead.
      this.schedule(unit, entry);
      return;
    }
    entry.attempts++;
    if (outcome.ok) {
      this.entries.delete(unit);
      await this.report(unit, () => this.options.onLogo(unit, outcome.png));
      return;
    }
    if (outcome.retryable && entry.attempts < this.maxAttempts) {
      const delay = this.backoff(entry.attempts, outcome.retryAfterMs);
      const retryAt = this.clock.now() + delay;
      entry.state = 'retrying';
      entry.timer = this.clock.setTimeout(() => {
        entry.timer = undefined;
        if (!this.closed) this.schedule(unit, entry);
      }, delay);
      await this.report(unit, () => this.options.onFailure(unit, outcome.reason, retryAt));
      return;
    }
    this.entries.delete(unit);
    const reason = outcome.retryable ? `${outcome.reason} (gave up after ${entry.attempts} attempts)` : outcome.reason;
    await this.report(unit, () => this.options.onFailure(unit, reason));
  }

  private async report(unit: string, callback: () => void | Promise<void>): Promise<void> {
    try {
      await callback();
    } catch (error) {
      this.options.onCallbackError?.(unit, error);
    }
  }
}
