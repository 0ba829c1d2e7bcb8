/** Reconnect backoff: exponential, capped, with jitter. Pure (no timers): callers own their timers. */
export interface BackoffOptions {
  /** The first delay, ms (attempt 0), before jitter. */
  readonly initialMs: number;
  /** The cap, ms, before jitter: delays stop growing here. */
  readonly maxMs: number;
}

/** Beyond this many doublings any sane `initialMs` is past any sane cap (and 2 ** n stays finite). */
const MAX_DOUBLINGS = 40;

/**
 * The delay before retry number `attempt` (0 for the first retry): `min(maxMs, initialMs * 2^attempt)`
 * scaled by a uniform factor in [0.5, 1) ("equal jitter": a crowd of clients that lost the same server
 * spreads its retries, and no delay falls below half its step). `random` is a uniform [0, 1) source,
 * injectable so tests get exact delays (`() => 0` gives the bottom of each band).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const doublings = Math.min(MAX_DOUBLINGS, Math.max(0, Math.floor(attempt)));
  const step = Math.min(options.maxMs, options.initialMs * 2 ** doublings);
  return Math.round(step * (0.5 + random() * 0.5));
}
