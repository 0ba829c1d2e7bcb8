import { z } from 'zod';
import { tradeEventSchema } from './stream';

/**
 * The same-origin gateway's contract with the browser (our own API, not the spec's): REST under
 * `/gw/v1/<path>` mirrors `/api/v1/<path>`; `/gw/v1/live` is SSE; `/gw/v1/info` describes the source.
 */
export const GATEWAY_PREFIX = '/gw/v1';

export const gatewayInfoSchema = z.strictObject({
  /** Where the data come from. */
  source: z.enum(['embedded', 'remote']),
  /** True when the data are produced by the embedded market simulator. */
  simulated: z.boolean(),
  /** Upstream origin for a remote source (never a key). */
  upstream: z.string().optional(),
  /** Seconds between heartbeats on /gw/v1/live. */
  heartbeatSeconds: z.number().positive(),
  /** Pools one browser connection may subscribe to. */
  maxPoolsPerConnection: z.number().int().positive(),
  /** The server's clock, Unix seconds (for the datafeed's getServerTime). */
  time: z.number().int(),
  /**
   * The deepest pool of each group (by TVL valued in ADA), as its pool ID: what the app opens when the
   * URL names no symbol, without waiting for the group's whole symbol list. Embedded market only.
   */
  deepest: z.record(z.string(), z.string()).optional(),
});
export type GatewayInfo = z.infer<typeof gatewayInfoSchema>;

/** SSE event names of /gw/v1/live. */
export const LIVE_EVENTS = {
  trade: 'trade',
  status: 'status',
  error: 'error',
  heartbeat: 'heartbeat',
} as const;

/** Payload of a `trade` event: the upstream trade event unchanged. */
export const liveTradeSchema = tradeEventSchema;

/**
 * Payload of a `status` event. `connected` with `resync: true` follows an upstream reconnect: events may
 * have been missed, so clients refetch recent history.
 */
export const liveStatusSchema = z.strictObject({
  state: z.enum(['connected', 'reconnecting']),
  resync: z.boolean(),
});
export type LiveStatus = z.infer<typeof liveStatusSchema>;

/** Payload of an `error` event sent before the gateway closes a refused browser connection. */
export const liveErrorSchema = z.strictObject({
  errmsg: z.string().min(1),
  /** Clients should not reconnect automatically when false. */
  retry: z.boolean(),
});
export type LiveError = z.infer<typeof liveErrorSchema>;

export const liveHeartbeatSchema = z.strictObject({ time: z.number().int() });

/**
 * GET /gw/v1/liquidity?group=<group>: TVL of every symbol of a group, for ranking search results and
 * showing TVL in lists (symbol_info carries none). Known for the embedded market only; a remote
 * upstream answers 404 with a price-style error and clients rank without it.
 */
export const gatewayLiquiditySchema = z
  .strictObject({
    s: z.literal('ok'),
    ticker: z.array(z.string()),
    /** TVL in whole base units, as /tokens/current's current_tvl. */
    tvl: z.array(z.number()),
    /** The same TVL valued in ADA, comparable across pairs. */
    tvl_ada: z.array(z.number()),
  })
  .refine((b) => b.tvl.length === b.ticker.length && b.tvl_ada.length === b.ticker.length, 'arrays must have the same length');
export type GatewayLiquidity = z.infer<typeof gatewayLiquiditySchema>;

/**
 * GET /gw/v1/token-info/<unit>: a token's registry metadata (name, ticker, decimals), which no spec
 * endpoint carries. Known for the embedded market only; a remote upstream answers 404 and clients fall
 * back to the decoded asset name.
 */
export const gatewayTokenInfoSchema = z.strictObject({
  unit: z.string(),
  ticker: z.string(),
  name: z.string(),
  decimals: z.number().int().min(0),
});
export type GatewayTokenInfo = z.infer<typeof gatewayTokenInfoSchema>;

/**
 * GET /gw/v1/token-info (no unit): every token the gateway knows (the embedded market's, ADA excepted),
 * columnar like /symbol_info: what search needs to match token names. A remote upstream knows no
 * names: 404 there.
 */
export const gatewayTokenNamesSchema = z
  .strictObject({
    s: z.literal('ok'),
    unit: z.array(z.string()),
    ticker: z.array(z.string()),
    name: z.array(z.string()),
  })
  .refine((b) => b.ticker.length === b.unit.length && b.name.length === b.unit.length, 'unit, ticker and name must have the same length');
export type GatewayTokenNames = z.infer<typeof gatewayTokenNamesSchema>;

