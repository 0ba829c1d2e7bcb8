import { memoryBudgets, type RequestBudgets } from '../../node/rate-limits';

export type { RateDecision } from '../../node/rate-limits';

/**
 * Per-key request limits in this process's memory: the budgets of src/node/rate-limits.ts (a plan's
 * requests per one-minute window); a cluster shares them in Redis (cluster/shared-limits.ts).
 */
export function keyBudgets(): RequestBudgets {
  return memoryBudgets('tps:key');
}
