import { memoryBudgets, type RequestBudgets } from '../../node/rate-limits';

/**
 * Per-key request limits in this process's memory: the budgets of src/node/rate-limits.ts (a plan's
 * requests per one-minute window); a cluster shares them in Redis (cluster/shared-limits.ts).
 */
export function keyBudgets(): RequestBudgets {
  return memoryBudgets('tps:key');
}

/** Requests refused for being over their plan's budget (429), by plan: totals since start (metrics). */
export class Refusals {
  private readonly byPlan = new Map<string, number>();

  note(plan: string): void {
    this.byPlan.set(plan, (this.byPlan.get(plan) ?? 0) + 1);
  }

  /** Each plan that had a refusal, with its total. */
  entries(): IterableIterator<[string, number]> {
    return this.byPlan.entries();
  }
}
