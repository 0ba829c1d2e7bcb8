import { z } from 'zod';
import { historyResponseSchema } from './history';

/**
 * Our UDF route set (`/udf`, docs/udf.md): TradingView's UDF protocol as its stock
 * `UDFCompatibleDatafeed` reads it, over the same market as the spec's `/api/v1`. The schemas of what
 * the routes answer and take, for the routes, the OpenAPI document and the tests.
 */

/** The routes under /udf, for the service, the gateway and the 404s (docs/udf.md). */
export const UDF_ROUTES = ['config', 'time', 'symbols', 'symbol_info', 'search', 'history', 'quotes'] as const;
/** A path under /udf that is one of the routes (one trailing slash allowed). */
export const UDF_ROUTE_PATH = new RegExp(`^/udf/(${UDF_ROUTES.join('|')})/?$`);

/** TradingView's resolution names that /udf serves (weeks and months: TradingView builds them from days). */
export const UDF_RESOLUTIONS = ['1', '5', '15', '60', '1D'] as const;

/** `GET /udf/config`: TradingView's DatafeedConfiguration, with the UDF flags. */
export const udfConfigSchema = z.strictObject({
  supported_resolutions: z.array(z.string()),
  supports_group_request: z.boolean(),
  supports_marks: z.boolean(),
  supports_timescale_marks: z.boolean(),
  supports_search: z.boolean(),
  supports_time: z.boolean(),
  exchanges: z.array(z.strictObject({ value: z.string(), name: z.string(), desc: z.string() })),
  symbols_types: z.array(z.strictObject({ name: z.string(), value: z.string() })),
});
export type UdfConfig = z.infer<typeof udfConfigSchema>;

/** `GET /udf/symbols?symbol=`: TradingView's LibrarySymbolInfo. */
export const udfSymbolSchema = z.strictObject({
  name: z.string(),
  ticker: z.string(),
  description: z.string(),
  type: z.string(),
  session: z.string(),
  exchange: z.string(),
  listed_exchange: z.string(),
  timezone: z.string(),
  format: z.literal('price'),
  minmov: z.number(),
  pricescale: z.number().int().positive(),
  has_intraday: z.boolean(),
  has_daily: z.boolean(),
  has_weekly_and_monthly: z.boolean(),
  supported_resolutions: z.array(z.string()),
  intraday_multipliers: z.array(z.string()),
  volume_precision: z.number().int(),
  data_status: z.string(),
  currency_code: z.string(),
});
export type UdfSymbol = z.infer<typeof udfSymbolSchema>;

export const udfSymbolsQuerySchema = z.object({
  symbol: z.string().meta({ description: 'A symbol name, `GROUP:name`, or a pool ID (the ticker).' }),
});

/** One `GET /udf/search` match: TradingView's SearchSymbolResultItem. */
export const udfSearchItemSchema = z.strictObject({
  symbol: z.string(),
  full_name: z.string(),
  description: z.string(),
  exchange: z.string(),
  ticker: z.string(),
  type: z.string(),
});
export type UdfSearchItem = z.infer<typeof udfSearchItemSchema>;

export const udfSearchQuerySchema = z.object({
  query: z.string().optional().meta({ description: 'Part of a symbol name, or the start of a pool ID (any case).' }),
  type: z.string().optional().meta({ description: '`spot` or empty.' }),
  exchange: z.string().optional().meta({ description: 'A group, or empty for every group.' }),
  limit: z.string().regex(/^\d+$/).optional().meta({ description: 'At most this many (default 30, at most 100).' }),
});

export const udfHistoryQuerySchema = z.object({
  symbol: z.string(),
  resolution: z
    .enum(UDF_RESOLUTIONS)
    .or(z.enum(['D', '1440']))
    .meta({ description: 'TradingView resolution: 1, 5, 15, 60, 1D (also D, 1440).' }),
  from: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .optional()
    .meta({ description: 'Unix seconds, inclusive (may be left out with countback).' }),
  to: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .meta({ description: 'Unix seconds, exclusive.' }),
  countback: z.string().regex(/^\d+$/).optional().meta({
    description: 'At least this many bars before `to`; 0 (as TradingView’s adapter sends it): the range only.',
  }),
});

/** `GET /udf/history`: bars, or `no_data` with where the data before the range ends. */
export const udfHistoryResponseSchema = z.union([
  historyResponseSchema,
  z.strictObject({ s: z.literal('no_data'), nextTime: z.number().optional() }),
]);
export type UdfHistoryResponse = z.infer<typeof udfHistoryResponseSchema>;

export const udfSymbolInfoQuerySchema = z.object({
  group: z.string().meta({ description: 'A group of /api/v1/groups (any letter case).' }),
});

/** Symbols in one `/udf/quotes` request, at most. */
export const UDF_QUOTES_MAX = 100;

export const udfQuotesQuerySchema = z.object({
  symbols: z.string().meta({
    description: `Comma-separated symbols as /udf/symbols takes them (name, \`GROUP:name\` or pool ID), at most ${UDF_QUOTES_MAX}.`,
  }),
});

/** One symbol's quote: the last price and the last 24 hours (the market trades around the clock). */
export const udfQuoteValuesSchema = z.strictObject({
  short_name: z.string(),
  exchange: z.string(),
  description: z.string(),
  /** The price now. */
  lp: z.number(),
  /** Change from 24 h ago, in the quote currency, and in percent. */
  ch: z.number(),
  chp: z.number(),
  /** Price 24 h ago (open of the window), highest and lowest over it (the price now included). */
  open_price: z.number(),
  high_price: z.number(),
  low_price: z.number(),
  /** The price 24 h ago, as a session's previous close. */
  prev_close_price: z.number(),
  /** Volume over the last 24 h, in whole base units (as /tokens/current's daily_volume). */
  volume: z.number(),
});

export const udfQuoteSchema = z.union([
  z.strictObject({ s: z.literal('ok'), n: z.string(), v: udfQuoteValuesSchema }),
  z.strictObject({ s: z.literal('error'), n: z.string(), v: z.strictObject({}) }),
]);
export type UdfQuote = z.infer<typeof udfQuoteSchema>;
export type UdfQuoteValues = z.infer<typeof udfQuoteValuesSchema>;

/** `GET /udf/quotes`: one entry per requested symbol, in the request's order, `n` exactly as sent. */
export const udfQuotesResponseSchema = z.strictObject({ s: z.literal('ok'), d: z.array(udfQuoteSchema) });
export type UdfQuotesResponse = z.infer<typeof udfQuotesResponseSchema>;
