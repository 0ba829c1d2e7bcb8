import { z } from 'zod';

/** Query of GET /tokens/current: exactly one of policy and pool (checked by the service, which names the error). */
export const tokenCurrentQuerySchema = z.object({
  policy: z.string().optional().meta({ description: 'Token unit: policy ID (56 hex) and asset name (0-64 hex, even length). Exactly one of policy and pool.' }),
  pool: z.string().optional().meta({ description: 'Pool ID (non-empty even-length hex, at most 128 characters). Exactly one of policy and pool.' }),
});

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
export const tokenLogoSchema = z.union([z.string().min(1), z.null()]);
export type TokenLogo = z.infer<typeof tokenLogoSchema>;
