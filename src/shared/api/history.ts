import * as z from 'zod/mini';

/** Largest accepted `countback`. */
export const MAX_COUNTBACK = 100_000;

const numbers = z.array(z.number());

/** GET /history's answer with bars (the query: queries.ts). */
export const historyResponseSchema = z
  .strictObject({
    s: z.literal('ok'),
    t: z.array(z.int()),
    o: numbers,
    h: numbers,
    l: numbers,
    c: numbers,
    v: numbers,
    tvl: z.optional(numbers),
  })
  .check(
    z.refine(
      (body) =>
        [body.o, body.h, body.l, body.c, body.v, ...(body.tvl ? [body.tvl] : [])].every(
          (a) => a.length === body.t.length,
        ),
      'all arrays must have the same length',
    ),
  );
export type HistoryResponse = z.infer<typeof historyResponseSchema>;
