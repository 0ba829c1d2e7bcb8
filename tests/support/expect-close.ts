import { expect } from 'vitest';

/** Asserts |actual - expected| <= rel * max(|expected|, 1e-12): float sums taken in another order. */
export function expectClose(actual: number, expected: number, rel = 1e-9, message?: string): void {
  const tolerance = rel * Math.max(Math.abs(expected), 1e-12);
  expect(Math.abs(actual - expected), message ?? `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}
