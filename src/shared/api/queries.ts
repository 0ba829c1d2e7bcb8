import { z } from 'zod';
import { RESOLUTIONS, type Resolution } from '../resolutions';
import { GROUP_STATS_MAX_POOLS } from './extensions';
import { MAX_COUNTBACK } from './history';
import { DEFAULT_SPREAD_MIN_TVL_ADA } from '../spread';

/**
 * The queries the service's routes take, as strings on the wire: checked (and turned into numbers,
 * flags...) with zod, and described for the OpenAPI document (`.meta`). The server's alone: the browser
 * only reads answers, checked by the answers' schemas beside each route's (zod/mini, which the
 * browser's bundle can shed what it does not use of).
 */

const finiteNumber = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .refine((value) => /^-?\d+(\.\d+)?$/.test(value), `${name} must be a Unix timestamp in seconds`)
    .transform((value) => Math.floor(Number(value)))
    .refine(
      (value) => Number.isSafeInteger(value) && value >= 0,
      `${name} must be a non-negative Unix timestamp in seconds`,
    );

/** Spellings of a boolean query value, as FastAPI-style services take them (any letter case). */
const TRUE_WORDS = ['true', '1', 'yes', 'on', 't', 'y'];
const FALSE_WORDS = ['false', '0', 'no', 'off', 'f', 'n'];

const booleanFlag = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => TRUE_WORDS.includes(value) || FALSE_WORDS.includes(value), {
    error: 'include_tvl must be true or false',
  })
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
      .enum(RESOLUTIONS as [Resolution, ...Resolution[]], {
        error: (issue) =>
          issue.input === undefined ? 'resolution is required' : `resolution must be one of ${RESOLUTIONS.join(', ')}`,
      })
      .meta({ description: `One of ${RESOLUTIONS.join(', ')}.`, examples: ['1min', '1d'] }),
    from: z.string().optional().meta({
      description:
        'Unix seconds, >= 0, not later than `to` (a fraction is floored). Required unless `countback` is given (then ignored).',
    }),
    to: finiteNumber('to').meta({ description: 'Unix seconds, >= 0 (exclusive).' }),
    include_tvl: booleanFlag
      .optional()
      .meta({ description: 'true/false, 1/0, yes/no, on/off, t/f, y/n (any case): adds the `tvl` column.' }),
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

/** Query of GET /tokens/current: exactly one of policy and pool (checked by the service, which names the error). */
export const tokenCurrentQuerySchema = z.object({
  policy: z.string().optional().meta({
    description:
      'Token unit: policy ID (56 hex) and asset name (0-64 hex, even length). Exactly one of policy and pool.',
  }),
  pool: z.string().optional().meta({
    description: 'Pool ID (non-empty even-length hex, at most 128 characters). Exactly one of policy and pool.',
  }),
});

/** GET /symbol_info. */
export const symbolInfoQuerySchema = z.object({
  group: z
    .string()
    .trim()
    .min(1, 'group must not be empty')
    .optional()
    .meta({ description: 'A group of /groups (any letter case); every symbol of every group without it.' }),
});

/** Query of `GET /api/x/liquidity`. */
export const liquidityQuerySchema = z.object({
  group: z.string({ error: 'group is required' }).min(1, 'group is required'),
});

/** Query of `GET /api/x/trades`. */
export const tradesQuerySchema = z.object({
  pool: z
    .string({ error: 'pool is required' })
    .regex(/^(?:[0-9a-fA-F]{2}){1,64}$/, 'pool must be a hex pool ID (from symbol_info)')
    .meta({ description: 'A DEX pool, or an Aggregate pool (then the trades of every pool of its pair).' }),
  before: z
    .string()
    .regex(/^\d{1,12}\.\d{1,15}$/, 'before must be the `next` cursor of a previous page')
    .optional()
    .meta({ description: 'The `next` cursor of the previous page: trades older than its last one.' }),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(500, 'limit must be at most 500')
    .default(100)
    .meta({ description: 'Trades per page (1-500, default 100).' }),
});

/** Query of `GET /api/x/pair-pools`. */
export const pairPoolsQuerySchema = z.object({
  pool: z
    .string({ error: 'pool is required' })
    .regex(/^(?:[0-9a-fA-F]{2}){1,64}$/, 'pool must be a hex pool ID (from symbol_info)')
    .meta({ description: 'An Aggregate pool (or any pool of the pair).' }),
});

/** Query of `GET /api/x/spreads`. */
export const spreadsQuerySchema = z.object({
  min_tvl: z.coerce
    .number({ error: 'min_tvl must be a number' })
    .min(0, 'min_tvl must be at least 0')
    .max(1e15, 'min_tvl must be at most 1e15')
    .default(DEFAULT_SPREAD_MIN_TVL_ADA)
    .meta({ description: `The TVL in ADA a pool needs to count (default ${DEFAULT_SPREAD_MIN_TVL_ADA}).` }),
});

/** Query of `GET /api/x/group-stats`. */
export const groupStatsQuerySchema = z.object({
  group: z
    .string({ error: 'group is required' })
    .min(1, 'group is required')
    .meta({ description: 'A group of /api/v1/groups (any case).', example: 'Aggregate' }),
  pools: z
    .string()
    .regex(
      new RegExp(`^(?:[0-9a-fA-F]{2}){1,64}(?:,(?:[0-9a-fA-F]{2}){1,64}){0,${GROUP_STATS_MAX_POOLS - 1}}$`),
      `pools must be up to ${GROUP_STATS_MAX_POOLS} hex pool IDs, comma-separated`,
    )
    .optional()
    .meta({
      description: `Only these pools of the group (up to ${GROUP_STATS_MAX_POOLS}, comma-separated; others are left out): the rows a screen shows.`,
    }),
});
