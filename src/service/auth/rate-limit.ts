/**
 * Per-key request limits: a token bucket per key (src/node/token-bucket.ts, the rule every limit of
 * ours follows), in this process's memory; a cluster shares them in Redis (cluster/shared-limits.ts).
 */
export { TokenBuckets as RateLimiter, type RateDecision } from '../../node/token-bucket';
