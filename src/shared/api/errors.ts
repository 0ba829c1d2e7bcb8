import * as z from 'zod/mini';

/** Error body of the price endpoints (/history, /symbol_info, /groups) and of stream error events. */
export const priceErrorSchema = z.strictObject({
  s: z.literal('error'),
  errmsg: z.string().check(z.minLength(1)),
});
export type PriceError = z.infer<typeof priceErrorSchema>;

/** One FastAPI-style validation item of the token endpoints' error body. */
export const tokenErrorItemSchema = z.strictObject({
  loc: z.array(z.string()),
  msg: z.string().check(z.minLength(1)),
  type: z.string().check(z.minLength(1)),
});
export type TokenErrorItem = z.infer<typeof tokenErrorItemSchema>;

/** Error body of the token endpoints (/tokens/...). */
export const tokenErrorSchema = z.strictObject({
  detail: z.array(tokenErrorItemSchema).check(z.minLength(1)),
});
export type TokenError = z.infer<typeof tokenErrorSchema>;

/** `type` values the service uses in token-endpoint error items. */
export const TOKEN_ERROR_TYPES = {
  missing: 'missing',
  value: 'value_error',
  auth: 'authentication_error',
  notFound: 'not_found',
  rateLimit: 'rate_limit_exceeded',
  method: 'method_not_allowed',
} as const;

/** Rate-limit headers carried by every authenticated response (and Retry-After on 429). */
export const RATE_LIMIT_HEADERS = {
  limit: 'RateLimit-Limit',
  remaining: 'RateLimit-Remaining',
  reset: 'RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;
