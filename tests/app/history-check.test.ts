import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyResponseSchema } from '../../src/shared/api/history';
import { historyAnswerOf } from '../../src/app/lib/history-check';

/** A /history body, well formed or broken in one of the ways an answer can be. */
const column = (n: number) =>
  fc.array(
    fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(Number.NaN, Infinity, '1', null)),
    { minLength: n, maxLength: n },
  );
const body = fc.nat({ max: 4 }).chain((n) =>
  fc.record(
    {
      s: fc.constantFrom('ok', 'ok', 'ok', 'no_data', 'error'),
      t: fc.array(fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom(1.5, 2 ** 60, -1)), {
        minLength: n,
        maxLength: n + (n % 2),
      }),
      o: column(n),
      h: column(n),
      l: column(n),
      c: column(n),
      v: column(n),
      tvl: column(n),
      extra: fc.constant(1),
    },
    { requiredKeys: ['s', 't', 'o', 'h', 'l', 'c'] },
  ),
);

describe('the /history answer check without zod', () => {
  it('gives the verdicts of historyResponseSchema, on well-formed and broken answers alike', () => {
    fc.assert(
      fc.property(body, (answer) => {
        expect(historyAnswerOf(answer) !== undefined).toBe(historyResponseSchema.safeParse(answer).success);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes a real answer and refuses what is not one', () => {
    const ok = { s: 'ok', t: [1, 2], o: [1, 2], h: [1, 2], l: [1, 2], c: [1, 2], v: [0, 0], tvl: [5, 6] };
    expect(historyAnswerOf(ok)).toBe(ok);
    expect(historyAnswerOf({ ...ok, tvl: undefined })).toBeDefined();
    for (const bad of [
      null,
      [],
      'ok',
      { ...ok, s: 'no_data' },
      { ...ok, c: [1] },
      { ...ok, t: [1.5, 2] },
      { ...ok, x: 1 },
      { ...ok, o: [1, Number.NaN] },
    ]) {
      expect(historyAnswerOf(bad)).toBeUndefined();
      expect(historyResponseSchema.safeParse(bad).success).toBe(false);
    }
  });
});
