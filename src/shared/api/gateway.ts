import * as z from 'zod/mini';
import { dataSourceSchema, liquiditySchema, tokenInfoSchema, tokenNamesSchema, type TokenInfo } from './extensions';
import { tradeEventSchema } from './stream';

/**
 * The same-origin gateway's contract with the browser (our own API, not the spec's): REST under
 * `/gw/v1/<path>` mirrors `/api/v1/<path>`; `/gw/v1/live` is SSE; `/gw/v1/info` describes the source.
 */

export const gatewayInfoSchema = z.strictObject({
  /** Where the data come from. */
  source: z.enum(['embedded', 'remote']),
  /** True when the data are produced by our market simulator (the embedded market's, or the upstream's). */
  simulated: z.boolean(),
  /** Upstream origin for a remote source (never a key). */
  upstream: z.optional(z.string()),
  /** Seconds between heartbeats on /gw/v1/live. */
  heartbeatSeconds: z.number().check(z.positive()),
  /** Pools one browser connection may subscribe to. */
  maxPoolsPerConnection: z.int().check(z.positive()),
  /** The server's clock, Unix seconds (for the datafeed's getServerTime). */
  time: z.int(),
  /**
   * The deepest pool of each group (by TVL valued in ADA), as its pool ID: what the app opens when the
   * URL names no symbol, without waiting for the group's whole symbol list. From the service's
   * `/api/x/deepest`; over an upstream without it, the deepest pool found so far (docs/gateway.md),
   * for the groups where one is known.
   */
  deepest: z.optional(z.record(z.string(), z.string())),
  /**
   * Where the upstream's trades come from (its `/api/x/market`): the simulator, the chain through Ogmios
   * (with its progress), or none (imports only). Absent when the upstream does not say (the hosted API).
   */
  market: z.optional(dataSourceSchema),
});
export type GatewayInfo = z.infer<typeof gatewayInfoSchema>;

/** SSE event names of /gw/v1/live. */
export const LIVE_EVENTS = {
  trade: 'trade',
  status: 'status',
  error: 'error',
  heartbeat: 'heartbeat',
  rollback: 'rollback',
  metadata: 'metadata',
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
  errmsg: z.string().check(z.minLength(1)),
  /** Clients should not reconnect automatically when false. */
  retry: z.boolean(),
});
export type LiveError = z.infer<typeof liveErrorSchema>;

/**
 * Payload of a `rollback` event (sent to every browser connection, once per rollback): the chain rolled
 * back to the block at `slot` (`id`), whose time is `time` (Unix seconds). Every trade after `time` was
 * undone: bars from the bucket holding `time` on, trade lists and statistics are to be loaded again
 * (docs/chain.md "What stream clients and the browser get on a rollback").
 */
export const liveRollbackSchema = z.strictObject({
  slot: z.int(),
  id: z.string(),
  time: z.int(),
});
export type LiveRollback = z.infer<typeof liveRollbackSchema>;

/**
 * Payload of a `metadata` event (sent to every browser connection, once per change): what the service knows
 * of these tokens (`units`; empty: of any token) changed — a name, a ticker, their decimals. Prices, volumes
 * and TVLs of their pairs read differently in whole units: bars, trade lists, statistics and token answers
 * are to be loaded again (docs/chain.md "Token identity").
 */
export const liveMetadataSchema = z.strictObject({
  units: z.array(z.string()),
});
export type LiveMetadata = z.infer<typeof liveMetadataSchema>;

/**
 * GET /gw/v1/liquidity?group=<group>: TVL of every symbol of a group, as the service's extension route
 * `/api/x/liquidity` gives it; over an upstream without it, what the gateway derived so far from
 * /tokens/current (docs/gateway.md): symbols missing from the arrays have no known TVL.
 */
export const gatewayLiquiditySchema = liquiditySchema;

/**
 * GET /gw/v1/token-info/<unit>: a token's registry metadata (name, ticker, decimals), from the
 * service's `/api/x/token-info/<unit>`. An upstream without it answers 404 (decimals cannot be derived
 * from spec endpoints): clients fall back to the decoded asset name.
 */
export const gatewayTokenInfoSchema = tokenInfoSchema;
export type GatewayTokenInfo = TokenInfo;

/**
 * GET /gw/v1/token-info (no unit): every token's ticker and name at once, for search. Over an upstream
 * without `/api/x/token-info`, the tickers of the symbol names and the decoded asset names instead of
 * registry names (docs/gateway.md).
 */
export const gatewayTokenNamesSchema = tokenNamesSchema;
