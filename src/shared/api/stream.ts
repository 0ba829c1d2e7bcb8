import * as z from 'zod/mini';

/** The spec's stream error messages (exact strings) and the project's documented extra refusals. */
export const STREAM_ERRORS = {
  connectionLimit: 'Connection limit exceeded',
  invalidPoolId: 'Invalid pool ID format',
  invalidAuth: 'Invalid authentication',
  notArray: 'Request body must be a JSON array of pool ID strings',
  bodyTooLarge: 'Request body too large',
  empty: 'Request body must list at least one pool ID',
  notAggregate: 'Not an Aggregate pool ID',
  tooManyPools: 'Too many pools for this plan',
  rateLimit: 'Rate limit exceeded',
  slowConsumer: 'Connection dropped: client is not reading fast enough',
} as const;

/** A trading event: one state change of a subscribed (Aggregate) pool. */
export const tradeEventSchema = z.strictObject({
  block_time: z.int(),
  pool_id: z.string().check(z.minLength(1)),
  current_price: z.number(),
  previous_price: z.number(),
  current_tvl: z.number(),
  previous_tvl: z.number(),
  volume: z.number(),
});
export type TradeEvent = z.infer<typeof tradeEventSchema>;

export const streamPingSchema = z.strictObject({ s: z.literal('ok') });
export const streamErrorSchema = z.strictObject({ s: z.literal('error'), errmsg: z.string().check(z.minLength(1)) });

/** Any line of the stream. */
export const streamLineSchema = z.union([tradeEventSchema, streamPingSchema, streamErrorSchema]);
export type StreamLine = z.infer<typeof streamLineSchema>;

export function isTradeEvent(line: StreamLine | ExtendedStreamLine): line is TradeEvent {
  return 'pool_id' in line;
}

/**
 * Our extension of the stream (docs/chain.md "What stream clients and the browser get on a rollback"):
 * a chain-fed service sends this line, only to a stream opened with `X-Stream-Extensions: rollback`,
 * when the chain rolled back to the block at `slot` (`id`): every event after `block_time` was undone,
 * and the history of those pools after it changed. Spec clients never get it (the spec's stream has
 * three line kinds).
 */
export const streamRollbackSchema = z.strictObject({
  s: z.literal('rollback'),
  slot: z.int(),
  id: z.string(),
  block_time: z.int(),
});
export type StreamRollback = z.infer<typeof streamRollbackSchema>;

/**
 * Our extension of the stream (docs/chain.md "Token identity"): sent only to a stream opened with
 * `X-Stream-Extensions: metadata`, when what the service knows of tokens changed (a name, a ticker, their
 * decimals: learnt from the chain, the registry, an import). Every answer about pairs of those tokens may
 * read differently now (prices and volumes are shown in whole units of the decimals known): reload them.
 * `units` names the tokens (at most 1,000; an empty list: more than that, any token may have changed);
 * `version` grows with each change, so a client hearing one change over two connections acts once.
 */
/** Most tokens a metadata line names. */
export const METADATA_UNITS_MAX = 1_000;

export const streamMetadataSchema = z.strictObject({
  s: z.literal('metadata'),
  version: z.int().check(z.nonnegative()),
  units: z.array(z.string()).check(z.maxLength(METADATA_UNITS_MAX)),
});
export type StreamMetadata = z.infer<typeof streamMetadataSchema>;

/** The request header a stream client sends to receive our extension lines, and its values (comma-separated). */
export const STREAM_EXTENSIONS_HEADER = 'X-Stream-Extensions';
export const ROLLBACK_EXTENSION = 'rollback';
export const METADATA_EXTENSION = 'metadata';

/** Any line a stream opened with our extensions may carry. */
export const extendedStreamLineSchema = z.union([
  tradeEventSchema,
  streamPingSchema,
  streamErrorSchema,
  streamRollbackSchema,
  streamMetadataSchema,
]);
export type ExtendedStreamLine = z.infer<typeof extendedStreamLineSchema>;

/** Request body of POST /tokens/stream. */
export const streamRequestSchema = z.array(z.string());

/** Default seconds between `{"s":"ok"}` pings. */
export const STREAM_PING_SECONDS = 20;
