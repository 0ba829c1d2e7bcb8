import { z } from 'zod';
import { RESOLUTIONS, type Resolution } from '../resolutions';

/** Largest accepted `countback`. */
export const MAX_COUNTBACK = 100_000;

const finiteNumber = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .refine((value) => /^-?\d+(\.\d+)?$/.test(value), `${name} must be a Unix timestamp in seconds`)
    .transform((value) => Math.floor(Number(value)))
    .refine((value) => Number.isSafeInteger(value) && value >= 0, `${name} must be a non-negative Unix timestamp in seconds`);

/** Spellings of a boolean query value, as FastAPI-style services take them (any letter case). */
const TRUE_WORDS = ['true', '1', 'yes', 'on', 't', 'y'];
const FALSE_WORDS = ['false', '0', 'no', 'off', 'f', 'n'];

const booleanFlag = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => TRUE_WORDS.includes(value) || FALSE_WORDS.includes(value), { error: 'include_tvl must be true or false' })
  .transform((value) => TRUE_WORDS.includes(value));

/** Query of GET /history, as strings on the wire. */
export const historyQuerySchema = z
  .object({
    symbol: z
      .string({ error: 'symbol is required' })
      .trim()
      .min(1, 'symbol is required')
      .meta({ description: 'The ticker (pool ID, hex) or the symbol name (e.g. ADA.SNEK_Aggregate_Pool1).' }),
    // An enum, so the OpenAPI document lists the values.
    resolution: z
      .enum(RESOLUTIONS as [Resolution, ...Resolution[]], { error: (issue) => (issue.input === undefined ? 'resolution is required' : `resolution must be one of ${RESOLUTIONS.join(', ')}`) })
      .meta({ description: `One of ${RESOLUTIONS.join(', ')}.`, examples: ['1min', '1d'] }),
    from: z.string().optional().meta({ description: 'Unix seconds, >= 0, not later than `to` (a fraction is floored). Required unless `countback` is given (then ignored).' }),
    to: finiteNumber('to').meta({ description: 'Unix seconds, >= 0 (exclusive).' }),
    include_tvl: booleanFlag.optional().meta({ description: 'true/false, 1/0, yes/no, on/off, t/f, y/n (any case): adds the `tvl` column.' }),
    countback: z
      .string()
      .trim()
      .refine((value) => /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_COUNTBACK, {
        error: `countback must be an integer from 1 to ${MAX_COUNTBACK}`,
      })
      .transform(Number)
      .optional()
      .meta({ description: `The last N bars before \`to\`, N from 1 to ${MAX_COUNTBACK}.` }),
  })
  .superRefine((query, ctx) => {
    // `from` is ignored with countback (decisions "Bars"), required otherwise.
    if (query.countback !== undefined) return;
    const parsed = finiteNumber('from').safeParse(query.from);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]?.message ?? 'from is invalid', path: ['from'] });
    } else if (parsed.data > query.to) {
      ctx.addIssue({ code: 'custom', message: 'from must not be later than to', path: ['from'] });
    }
  })
  .transform((query) => ({
    symbol: query.symbol,
    resolution: query.resolution,
    from: query.countback === undefined ? Math.floor(Number(query.from)) : 0,
    to: query.to,
    includeTvl: query.include_tvl ?? false,
    countback: query.countback,
  }));
export type HistoryQuery = z.output<typeof historyQuerySchema>;

const numbers = z.array(z.number());

export const historyResponseSchema = z
  .strictObject({
    s: z.literal('ok'),
    t: z.array(z.number().int()),
    o: numbers,
    h: numbers,
    l: numbers,
    c: numbers,
    v: numbers,
    tvl: numbers.optional(),
  })
  .refine(
    (body) =>
      [body.o, body.h, body.l, body.c, body.v, ...(body.tvl ? [body.tvl] : [])].every((a) => a.length === body.t.length),
    'all arrays must have the same length',
  );
export type HistoryResponse = z.infer<typeof historyResponseSchema>;
