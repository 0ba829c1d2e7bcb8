import * as z from 'zod/mini';

/** Token statistics (spec "Token statistics"; units in decisions "Units and denominations"). */
export const tokenStatsSchema = z.strictObject({
  current_price: z.number(),
  current_tvl: z.number(),
  hourly_price_change: z.number(),
  hourly_tvl_change: z.number(),
  hourly_volume: z.number(),
  daily_price_change: z.number(),
  daily_tvl_change: z.number(),
  daily_volume: z.number(),
});
export type TokenStats = z.infer<typeof tokenStatsSchema>;

/** A logo: base64 PNG as a JSON string, or null when the token has none. */
export const tokenLogoSchema = z.union([z.string().check(z.minLength(1)), z.null()]);
export type TokenLogo = z.infer<typeof tokenLogoSchema>;
