import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/shared/backoff';

const options = { initialMs: 1000, maxMs: 30_000 };

describe('backoffDelay', () => {
  it('doubles from the first delay up to the cap (top of the jitter band)', () => {
    const top = () => 1 - 1e-9;
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((attempt) => backoffDelay(attempt, options, top))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('jitters each delay within [half, all] of its step', () => {
    expect(backoffDelay(0, options, () => 0)).toBe(500);
    expect(backoffDelay(3, options, () => 0.5)).toBe(6000);
    expect(backoffDelay(9, options, () => 0)).toBe(15_000);
    for (let attempt = 0; attempt < 12; attempt++) {
      const step = Math.min(options.maxMs, options.initialMs * 2 ** attempt);
      const delay = backoffDelay(attempt, options);
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    }
  });

  it('stays finite and capped for any attempt count, and treats odd attempts as the nearest sane one', () => {
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, options, () => 0.5)).toBe(22_500);
    expect(backoffDelay(-3, options, () => 0)).toBe(500);
    expect(backoffDelay(2.7, options, () => 0)).toBe(2000);
  });
});
