import * as z from 'zod/mini';

/**
 * Our service's extension routes: documented additions outside the spec's `/api/v1`, under `/api/x`,
 * with the same authentication, rate limits and price-style errors (`{"s":"error","errmsg":…}`). They
 * answer from the market in memory what the spec's endpoints could only give one pool at a time. A
 * remote upstream may lack them (the hosted API does): `GET /api/x` lists the ones a service has, and
 * the gateway derives the rest from spec endpoints (docs/gateway.md).
 */
export const EXTENSION_PREFIX = '/api/x';

/** The extension routes of this version, by name (each is `GET /api/x/<name>…`). */
export const EXTENSION_ROUTES = {
  /** `GET /api/x/liquidity?group=<group>`: TVL of every symbol of a group. */
  liquidity: 'liquidity',
  /** `GET /api/x/token-info`: every token's ticker and name; `/api/x/token-info/<unit>`: one token's metadata. */
  tokenInfo: 'token-info',
  /** `GET /api/x/deepest`: each group's deepest pool. */
  deepest: 'deepest',
  /** `GET /api/x/trades?pool=&before=&limit=`: a pool's latest trades, newest first, paged backwards. */
  trades: 'trades',
  /** `GET /api/x/pair-pools?pool=<Aggregate pool>`: where an Aggregate comes from, pool by pool. */
  pairPools: 'pair-pools',
  /** `GET /api/x/market`: where this service's trades come from (simulator, chain, imports only). */
  market: 'market',
  /** `GET /api/x/group-stats?group=`: every pair of a group with price, 24 h change and volume, TVL (the market overview). */
  groupStats: 'group-stats',
  /** `GET /api/x/spreads?min_tvl=`: every pair's spread across its DEX pools (the overview's column). */
  spreads: 'spreads',
  /** `GET /api/x/status` (no key needed): how fresh the market is, and per group what its source decodes. */
  status: 'status',
} as const;
export type ExtensionRoute = (typeof EXTENSION_ROUTES)[keyof typeof EXTENSION_ROUTES];

/** `GET /api/x`: the extension routes this service has (names of EXTENSION_ROUTES; unknown names are ignored by clients). */
export const extensionIndexSchema = z.strictObject({
  s: z.literal('ok'),
  routes: z.array(z.string()),
});
export type ExtensionIndex = z.infer<typeof extensionIndexSchema>;

/**
 * Where a service's trades come from: our market simulator, the Cardano chain through Ogmios (with its
 * progress), or none (imported trades only). What the app's source badge shows, over any gateway.
 */
export const dataSourceSchema = z.strictObject({
  source: z.enum(['simulated', 'chain', 'none']),
  chain: z.optional(
    z.strictObject({
      state: z.string(),
      tipSlot: z.nullable(z.number()),
      tipTime: z.nullable(z.number()),
      lagSeconds: z.nullable(z.number()),
    }),
  ),
});
export type DataSource = z.infer<typeof dataSourceSchema>;

/** `GET /api/x/market`: the service's data source (docs/chain.md for the chain's states). */
export const marketSourceResponseSchema = z.extend(dataSourceSchema, { s: z.literal('ok') });
export type MarketSourceResponse = z.infer<typeof marketSourceResponseSchema>;

/**
 * `GET /api/x/liquidity?group=<group>`: TVL of every symbol of a group, for ranking and listing symbols
 * by depth (symbol_info carries none). Columnar like symbol_info; a ticker missing from the arrays has
 * no known TVL.
 */
export const liquiditySchema = z
  .strictObject({
    s: z.literal('ok'),
    ticker: z.array(z.string()),
    /** TVL in whole base units, as /tokens/current's current_tvl. */
    tvl: z.array(z.number()),
    /** The same TVL valued in ADA, comparable across pairs (0 when the base has no ADA price). */
    tvl_ada: z.array(z.number()),
  })
  .check(
    z.refine(
      (b) => b.tvl.length === b.ticker.length && b.tvl_ada.length === b.ticker.length,
      'arrays must have the same length',
    ),
  );
export type Liquidity = z.infer<typeof liquiditySchema>;

/**
 * Where a token's identity (name, ticker, decimals, logo) comes from, most trusted first: its CIP-68
 * reference NFT's datum on chain, the CIP-26 token registry, or only its asset name (unverified: a
 * look-alike of a known token has no metadata of its own).
 */
export const tokenSourceSchema = z.enum(['cip68', 'registry', 'asset-name']);
export type TokenSource = z.infer<typeof tokenSourceSchema>;

/** `GET /api/x/token-info/<unit>`: a token's metadata, which no spec endpoint carries. */
export const tokenInfoSchema = z.strictObject({
  unit: z.string(),
  ticker: z.string(),
  name: z.string(),
  decimals: z.int().check(z.minimum(0)),
  /** Where the identity comes from (absent from services that do not say). */
  source: z.optional(tokenSourceSchema),
  /** The token's description, from its metadata. */
  description: z.optional(z.string()),
  /** The token's site (an https URL), from its metadata. */
  url: z.optional(z.string()),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;

/**
 * `GET /api/x/token-info`: every token but ADA with its ticker and name, columnar: what search needs to
 * match token names, in one request.
 */
export const tokenNamesSchema = z
  .strictObject({
    s: z.literal('ok'),
    unit: z.array(z.string()),
    ticker: z.array(z.string()),
    name: z.array(z.string()),
  })
  .check(
    z.refine(
      (b) => b.ticker.length === b.unit.length && b.name.length === b.unit.length,
      'unit, ticker and name must have the same length',
    ),
  );
export type TokenNames = z.infer<typeof tokenNamesSchema>;

/** `GET /api/x/deepest`: the pool ID of each group's deepest pool (TVL valued in ADA). */
export const deepestSchema = z.strictObject({
  s: z.literal('ok'),
  deepest: z.record(z.string(), z.string()),
});
export type Deepest = z.infer<typeof deepestSchema>;

/** One trade of `GET /api/x/trades`: a pool state change of the stream, with what the tape shows. */
export const tapeTradeSchema = z.strictObject({
  /** The event id (`txHash#output` for the chain source). */
  id: z.string(),
  /** block_time, Unix seconds. */
  time: z.int(),
  /** The DEX pool that traded, and its group (for an Aggregate's tape, which DEX). */
  pool_id: z.string(),
  group: z.string(),
  /** `buy` when the price of the quote token rose (it was bought with the base), `sell` when it fell. */
  side: z.enum(['buy', 'sell']),
  /** The pool's price after and before the trade (base per quote, whole units). */
  price: z.number(),
  previous_price: z.number(),
  /** |change of the base reserve| in whole base units (the stream's volume). */
  base_amount: z.number().check(z.nonnegative()),
  /** The quote amount at the trade's mean price: base_amount / ((price + previous_price) / 2). */
  quote_amount: z.number().check(z.nonnegative()),
  /** The pool's TVL after the trade, whole base units. */
  tvl: z.number(),
  /**
   * Asked for an Aggregate pool: the Aggregate's price after and before the trade and its TVL after,
   * which its bars fold (the sum of the pair's pools at that trade), so a candle can be checked against
   * its trades (`candleOfTrades`). Absent for a DEX pool, whose own price and TVL are the ones above.
   */
  aggregate: z.optional(z.strictObject({ price: z.number(), previous_price: z.number(), tvl: z.number() })),
});
export type TapeTrade = z.infer<typeof tapeTradeSchema>;

export const tradesResponseSchema = z.strictObject({
  s: z.literal('ok'),
  trades: z.array(tapeTradeSchema),
  /** Cursor of the next (older) page, null at the first trade. */
  next: z.nullable(z.string()),
});
export type TradesResponse = z.infer<typeof tradesResponseSchema>;

/** One DEX pool of an Aggregate's pair. */
export const pairPoolSchema = z.strictObject({
  pool_id: z.string(),
  /** Its symbol name (opens its chart). */
  symbol: z.string(),
  group: z.string(),
  /** TVL in whole base units, and its share of the Aggregate's (0-1). */
  tvl: z.number(),
  share: z.number(),
  price: z.number(),
  /** (price / the Aggregate's price - 1) × 100. */
  deviation_percent: z.number(),
  /** Base volume of the last 24 h, whole units. */
  volume_24h: z.number(),
  /** TVL valued in ADA (a gateway deriving the answer leaves it out). */
  tvl_ada: z.optional(z.number()),
  /** Its latest trade, Unix seconds (null: none yet; a gateway deriving the answer leaves it out). */
  last_trade: z.optional(z.nullable(z.int())),
});
export type PairPool = z.infer<typeof pairPoolSchema>;

export const pairPoolsResponseSchema = z.strictObject({
  s: z.literal('ok'),
  aggregate: z.strictObject({
    pool_id: z.string(),
    symbol: z.string(),
    price: z.number(),
    tvl: z.number(),
    volume_24h: z.number(),
  }),
  /** Deepest first. */
  pools: z.array(pairPoolSchema),
});
export type PairPoolsResponse = z.infer<typeof pairPoolsResponseSchema>;

/** Most pools one `GET /api/x/group-stats?pools=` names (a screen of rows, with room). */
export const GROUP_STATS_MAX_POOLS = 100;

/**
 * A column: an array whose every entry passes `ok`, checked in one loop. zod's array of schemas parses
 * entry by entry (6,000-row answers with nine columns cost the market overview some 30 ms in the
 * browser); this is the same check, the array kept as it came.
 */
function column<T>(ok: (value: unknown) => value is T, what: string, items: Record<string, unknown>) {
  // The OpenAPI document's schema of the column (a custom check has none of its own).
  return z
    .custom<T[]>((value) => Array.isArray(value) && value.every(ok), { error: `expected an array of ${what}` })
    .register(z.globalRegistry, { type: 'array', items });
}
const isString = (value: unknown): value is string => typeof value === 'string';
/** As z.number(): finite. */
const isKnownNumber = (value: unknown): value is number | null =>
  value === null || (typeof value === 'number' && Number.isFinite(value));

/** A column of strings. */
const strings = column(isString, 'strings', { type: 'string' });
/** A column of numbers where null means "not known (yet)": a gateway deriving them fills rows as it learns them. */
const knownNumbers = column(isKnownNumber, 'numbers or nulls', { type: ['number', 'null'] });

/**
 * `GET /api/x/group-stats?group=<group>`: every symbol of a group with what a market overview sorts
 * by, in one request. Columnar like symbol_info; the numbers are those of /api/v1/tokens/current for
 * the same pool (`price` = current_price, `change_24h` = daily_price_change, `volume_24h` =
 * daily_volume, `tvl` = current_tvl), and `tvl_ada` the TVL valued in ADA as /api/x/liquidity's.
 */
export const groupStatsSchema = z
  .strictObject({
    s: z.literal('ok'),
    /** The group's canonical name. */
    group: z.string(),
    /** Every row has its numbers (false: some are null, still being fetched; ask again for the rows shown). */
    complete: z.boolean(),
    /** Pool IDs. */
    ticker: strings,
    /** Symbol names (`ADA.SNEK_Aggregate_Pool1`). */
    symbol: strings,
    /** Token units of the pair ('' for ADA), as symbol_info's base-currency and currency. */
    base: strings,
    quote: strings,
    /** Whole base units per whole quote unit. */
    price: knownNumbers,
    /** Percent change of the price over 24 h. */
    change_24h: knownNumbers,
    /** Base volume of the last 24 h, whole units. */
    volume_24h: knownNumbers,
    /** TVL in whole base units. */
    tvl: knownNumbers,
    /** TVL valued in ADA (0 when the base has no ADA price). */
    tvl_ada: knownNumbers,
  })
  .check(
    z.refine(
      (b) =>
        [b.symbol, b.base, b.quote, b.price, b.change_24h, b.volume_24h, b.tvl, b.tvl_ada].every(
          (column) => column.length === b.ticker.length,
        ),
      'every column must have one entry per ticker',
    ),
  );
export type GroupStats = z.infer<typeof groupStatsSchema>;

/**
 * `GET /api/x/spreads?min_tvl=<ADA>`: every pair's spread across its DEX pools (shared/spread.ts), in
 * one request: the overview sorts by it without asking row by row. Columnar, one entry per pair.
 */
export const spreadsSchema = z
  .strictObject({
    s: z.literal('ok'),
    /** The TVL (in ADA) a pool needed to count. */
    min_tvl: z.number(),
    /** Token units of each pair ('' for ADA) and its Aggregate pool. */
    base: z.array(z.string()),
    quote: z.array(z.string()),
    aggregate: z.array(z.string()),
    /** (highest / lowest price − 1) × 100 over the pools that count; null with fewer than two. */
    spread_percent: knownNumbers,
    /** How many pools counted. */
    pools: z.array(z.int()),
    /** The cheapest and the dearest pool that counted (pool IDs; null with fewer than two). */
    low: z.array(z.nullable(z.string())),
    high: z.array(z.nullable(z.string())),
  })
  .check(
    z.refine(
      (b) =>
        [b.quote, b.aggregate, b.spread_percent, b.pools, b.low, b.high].every(
          (column) => column.length === b.base.length,
        ),
      'every column must have one entry per pair',
    ),
  );
export type Spreads = z.infer<typeof spreadsSchema>;

/** One group of `GET /api/x/status`: its pools, and for a chain source the pool outputs decoded and not. */
const groupStatusSchema = z.strictObject({
  group: z.string(),
  pools: z.number(),
  /** Recognised pool outputs decoded, and skipped as undecodable, over the last hour and day of block time applied; null when the source is not the chain. */
  decoded_1h: z.nullable(z.number()),
  undecodable_1h: z.nullable(z.number()),
  decoded_24h: z.nullable(z.number()),
  undecodable_24h: z.nullable(z.number()),
});

/**
 * `GET /api/x/status`: how fresh this service's market is (no key needed). `state`: the chain source's (`live`,
 * `catching-up`, `connecting`, `reconnecting`, …; docs/chain.md), `live` for the simulated market, `imported` for
 * imported data only. `tip`: the last block applied (the simulated market's last block; null for imported data).
 * `behind`: how far the applied tip is behind the node's (slots are seconds on Cardano); null when not known (no node
 * tip yet, or not a chain source).
 */
export const marketStatusSchema = z.strictObject({
  s: z.literal('ok'),
  source: z.enum(['simulated', 'chain', 'none']),
  state: z.string(),
  /** The server's clock, Unix seconds. */
  now: z.number(),
  tip: z.nullable(
    z.strictObject({
      slot: z.nullable(z.number()),
      height: z.nullable(z.number()),
      /** The block's time, Unix seconds, and how long ago that was. */
      time: z.nullable(z.number()),
      age_seconds: z.nullable(z.number()),
    }),
  ),
  node_tip_slot: z.nullable(z.number()),
  behind: z.nullable(z.strictObject({ slots: z.number(), seconds: z.number() })),
  groups: z.array(groupStatusSchema),
});
export type MarketStatus = z.infer<typeof marketStatusSchema>;
