import { Hono } from 'hono';
import {
  groupStatsQuerySchema,
  liquidityQuerySchema,
  pairPoolsQuerySchema,
  spreadsQuerySchema,
  tradesQuerySchema,
} from '../../../shared/api/queries';
import {
  EXTENSION_ROUTES,
  type PairPoolsResponse,
  type Deepest,
  type ExtensionIndex,
  type MarketSourceResponse,
  type MarketStatus,
  type TapeTrade,
  type TokenInfo,
  type TokenNames,
  type TradesResponse,
} from '../../../shared/api/extensions';
import { AGGREGATE_GROUP, DEX_GROUPS } from '../../../shared/groups';
import { wholeBase, wholePrice } from '../../market/units';
import type { TradeStore } from '../../store/ports';
import { ALL_GROUPS } from '../../../shared/groups';
import { isTokenUnit } from '../../../shared/id-rules';
import { GroupStatsSource } from '../../market/group-stats';
import { SpreadsSource } from '../../market/spreads';
import { adaPerBase, marketDeepest, marketLiquidity, marketTokenNames } from '../../market/liquidity';
import { servedIdentity } from '../../identity/identity';
import { poolPrice, poolTvl, type Market } from '../../market/model';
import type { SymbolNames } from '../../market/symbols';
import type { HealthReport } from '../health';
import { echo, priceError } from '../errors';
import { guard, type GuardOptions, type ServiceEnv } from '../guard';

export interface ExtensionRoutesOptions extends GuardOptions {
  readonly symbols: SymbolNames;
  readonly market: Market;
  readonly trades: TradeStore;
  readonly nowMs: () => number;
  /** The service's health, whose source and chain progress `/api/x/market` tells. */
  readonly health: () => HealthReport;
}

/** Depth moves slowly: a ten-second-old ranking is fine for picking a default pair. */
const DEEPEST_TTL_MS = 10_000;
/** A group's 24 h reference prices and volumes are reused this long (an overview's list; live trades move the rows shown). */
const GROUP_STATS_TTL_MS = 10_000;

/**
 * Our extension routes under /api/x (src/shared/api/extensions.ts): answers the spec's endpoints
 * could only give pool by pool, straight from the market in memory, behind the same auth and rate
 * limits as /api/v1, with price-style errors. `GET /api/x` lists them.
 */
export function extensionRoutes(options: ExtensionRoutesOptions): Hono<ServiceEnv> {
  const { market, nowMs } = options;
  const app = new Hono<ServiceEnv>({ strict: false });
  const auth = guard(options, 'price');

  app.get('/', auth, (c) => {
    const body: ExtensionIndex = { s: 'ok', routes: Object.values(EXTENSION_ROUTES) };
    return c.json(body);
  });

  app.get(`/${EXTENSION_ROUTES.liquidity}`, auth, (c) => {
    const parsed = liquidityQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, parsed.error.issues[0]?.message ?? 'group is required');
    const body = marketLiquidity(market, parsed.data.group);
    if (!body) return priceError(c, 404, `Unknown group: ${echo(parsed.data.group)} (known: ${ALL_GROUPS.join(', ')})`);
    c.header('Cache-Control', 'private, max-age=30');
    return c.json(body);
  });

  const groupStats = new GroupStatsSource({
    market,
    symbols: options.symbols,
    trades: options.trades,
    nowMs,
    ttlMs: GROUP_STATS_TTL_MS,
  });
  app.get(`/${EXTENSION_ROUTES.groupStats}`, auth, async (c) => {
    const parsed = groupStatsQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, parsed.error.issues[0]?.message ?? 'group is required');
    const { group, pools } = parsed.data;
    const unknown = () => priceError(c, 404, `Unknown group: ${echo(group)} (known: ${ALL_GROUPS.join(', ')})`);
    if (pools === undefined) {
      // The whole list: built once per market change, the same bytes for every request until then.
      const json = await groupStats.listJson(group);
      if (json === undefined) return unknown();
      c.header('Cache-Control', 'private, max-age=10');
      c.header('Content-Type', 'application/json');
      return c.body(json);
    }
    const body = await groupStats.stats(group, pools.split(','));
    if (!body) return unknown();
    // Named rows are asked to be fresh (rows that just came on screen): never from a cache.
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  app.get(`/${EXTENSION_ROUTES.market}`, auth, (c) => {
    const { source, chain } = options.health();
    const body: MarketSourceResponse = {
      s: 'ok',
      source,
      ...(chain
        ? {
            chain: { state: chain.state, tipSlot: chain.tipSlot, tipTime: chain.tipTime, lagSeconds: chain.lagSeconds },
          }
        : {}),
    };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  // Freshness for programs and the app's label, without a key (like /healthz): small, built from memory, and the same
  // answer for a second.
  let status: { body: MarketStatus; at: number } | undefined;
  app.get(`/${EXTENSION_ROUTES.status}`, (c) => {
    const now = nowMs();
    if (!status || now - status.at >= 1_000 || now < status.at)
      status = { body: marketStatus(market, options.health(), now / 1000), at: now };
    c.header('Cache-Control', 'no-store');
    return c.json(status.body);
  });

  let deepest: { body: Deepest; at: number; version: number } | undefined;
  app.get(`/${EXTENSION_ROUTES.deepest}`, auth, (c) => {
    const now = nowMs();
    if (!deepest || deepest.version !== market.version || now - deepest.at > DEEPEST_TTL_MS) {
      deepest = { body: { s: 'ok', deepest: marketDeepest(market) }, at: now, version: market.version };
    }
    c.header('Cache-Control', 'private, max-age=10');
    return c.json(deepest.body);
  });

  // Tokens change only when the market's version does (importers add them).
  let names: { body: TokenNames; version: number } | undefined;
  app.get(`/${EXTENSION_ROUTES.tokenInfo}`, auth, (c) => {
    if (!names || names.version !== market.version) names = { body: marketTokenNames(market), version: market.version };
    c.header('Cache-Control', 'private, max-age=3600');
    return c.json(names.body);
  });

  app.get(`/${EXTENSION_ROUTES.tokenInfo}/:unit`, auth, (c) => {
    const unit = c.req.param('unit');
    if (!isTokenUnit(unit)) {
      return priceError(
        c,
        400,
        `Invalid token ${echo(unit)}: a policy ID (56 hex characters) followed by an asset name (0 to 64 hex characters, even length)`,
      );
    }
    const token = market.tokens.get(unit.toLowerCase());
    if (!token) return priceError(c, 404, `Unknown token: ${echo(unit)}`);
    const { source, description, url } = servedIdentity(market, token.unit, options.health().source === 'simulated');
    const body: TokenInfo = {
      unit: token.unit,
      ticker: token.ticker,
      name: token.name,
      decimals: token.decimals,
      source,
      ...(description !== undefined ? { description } : {}),
      ...(url !== undefined ? { url } : {}),
    };
    c.header('Cache-Control', 'private, max-age=3600');
    return c.json(body);
  });

  app.get(`/${EXTENSION_ROUTES.pairPools}`, auth, async (c) => {
    const parsed = pairPoolsQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, parsed.error.issues[0]?.message ?? 'invalid query');
    const pool = market.pools.get(parsed.data.pool.toLowerCase());
    if (!pool) return priceError(c, 404, `Unknown pool: ${echo(parsed.data.pool)}`);
    const aggregate = pool.pair.aggregate;
    const since = Math.floor(nowMs() / 1000) - 86_400;
    const aggPrice = poolPrice(aggregate);
    const aggTvl = poolTvl(aggregate);
    const volumes = await Promise.all(pool.pair.pools.map((p) => options.trades.volumeSince(p.id, false, since)));
    const lastTrades = await Promise.all(pool.pair.pools.map((p) => options.trades.lastTradeTime(p.id, false)));
    const adaPer = adaPerBase(market, aggregate);
    const body: PairPoolsResponse = {
      s: 'ok',
      aggregate: {
        pool_id: aggregate.poolId,
        symbol: options.symbols.name(aggregate),
        price: aggPrice,
        tvl: aggTvl,
        volume_24h: wholeBase(
          pool.pair,
          volumes.reduce((a, b) => a + b, 0),
        ),
      },
      pools: pool.pair.pools
        .map((p, i) => ({
          pool_id: p.poolId,
          symbol: options.symbols.name(p),
          group: p.group,
          tvl: poolTvl(p),
          share: aggTvl > 0 ? poolTvl(p) / aggTvl : 0,
          price: poolPrice(p),
          deviation_percent: aggPrice > 0 && poolPrice(p) > 0 ? (poolPrice(p) / aggPrice - 1) * 100 : 0,
          volume_24h: wholeBase(pool.pair, volumes[i] ?? 0),
          tvl_ada: poolTvl(p) * adaPer,
          last_trade: lastTrades[i] ?? null,
        }))
        .sort((a, b) => b.tvl - a.tvl),
    };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  // Every pair's spread: prices and TVLs once per market change, filtered by min_tvl per request.
  const spreads = new SpreadsSource(market);
  app.get(`/${EXTENSION_ROUTES.spreads}`, auth, async (c) => {
    const parsed = spreadsQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, parsed.error.issues[0]?.message ?? 'invalid query');
    c.header('Cache-Control', 'private, max-age=5');
    c.header('Content-Type', 'application/json');
    // The UTF-8 bytes as kept (a Buffer's memory is an ArrayBuffer: no SharedArrayBuffer is used here).
    const body = await spreads.body(parsed.data.min_tvl);
    return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength));
  });

  app.get(`/${EXTENSION_ROUTES.trades}`, auth, async (c) => {
    const parsed = tradesQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return priceError(c, 400, parsed.error.issues[0]?.message ?? 'invalid query');
    const { pool: poolId, before, limit } = parsed.data;
    const pool = market.pools.get(poolId.toLowerCase());
    if (!pool) return priceError(c, 404, `Unknown pool: ${echo(poolId)}`);
    const [time, seq] = before ? before.split('.').map(Number) : [];
    const aggregate = pool.group === AGGREGATE_GROUP;
    const records = await options.trades.recent(
      pool.id,
      aggregate,
      limit,
      time !== undefined && seq !== undefined ? { time, seq } : undefined,
    );
    // Stored raw; in whole units of the decimals known now (market/units.ts).
    const { pair } = pool;
    const trades: TapeTrade[] = records.map((r) => {
      const traded = market.poolsById.get(r.pool);
      const base = wholeBase(pair, r.volume);
      const price = wholePrice(pair, r.price);
      const previous = wholePrice(pair, r.prevPrice);
      const mean = (price + previous) / 2;
      return {
        id: r.eventId,
        time: r.blockTime,
        pool_id: traded?.poolId ?? '',
        group: traded?.group ?? '',
        side: r.price >= r.prevPrice ? 'buy' : 'sell',
        price,
        previous_price: previous,
        base_amount: base,
        quote_amount: mean > 0 ? base / mean : 0,
        tvl: wholeBase(pair, r.tvl),
        ...(aggregate
          ? {
              aggregate: {
                price: wholePrice(pair, r.aggPrice),
                previous_price: wholePrice(pair, r.aggPrevPrice),
                tvl: wholeBase(pair, r.aggTvl),
              },
            }
          : {}),
      };
    });
    const last = records.at(-1);
    const body: TradesResponse = {
      s: 'ok',
      trades,
      next: last && records.length === limit ? `${last.blockTime}.${last.seq}` : null,
    };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  return app;
}

/** `/api/x/status` from the node's health and its market (docs/chain.md "Freshness"). */
function marketStatus(market: Market, health: HealthReport, now: number): MarketStatus {
  const { source, chain } = health;
  const pools = new Map<string, number>();
  for (const pool of market.pools.values()) pools.set(pool.group, (pools.get(pool.group) ?? 0) + 1);
  const decodes = chain?.decodes;
  const groups = DEX_GROUPS.map((group) => {
    const hour = decodes?.lastHour[group];
    const day = decodes?.lastDay[group];
    return {
      group,
      pools: pools.get(group) ?? 0,
      decoded_1h: decodes ? (hour?.decoded ?? 0) : null,
      undecodable_1h: decodes ? (hour?.undecodable ?? 0) : null,
      decoded_24h: decodes ? (day?.decoded ?? 0) : null,
      undecodable_24h: decodes ? (day?.undecodable ?? 0) : null,
    };
  });
  const age = (time: number | null | undefined) => (time == null ? null : Math.max(0, Math.round(now - time)));
  if (chain) {
    const behind =
      chain.nodeTipSlot !== null && chain.tipSlot !== null ? Math.max(0, chain.nodeTipSlot - chain.tipSlot) : null;
    return {
      s: 'ok',
      source,
      state: chain.state,
      now: Math.floor(now),
      tip:
        chain.tipSlot === null
          ? null
          : { slot: chain.tipSlot, height: chain.tipHeight, time: chain.tipTime, age_seconds: age(chain.tipTime) },
      node_tip_slot: chain.nodeTipSlot,
      // A Shelley-era slot is one second.
      behind: behind === null ? null : { slots: behind, seconds: behind },
      groups,
    };
  }
  const simulated = source === 'simulated' && health.lastBlockTime !== undefined;
  return {
    s: 'ok',
    source,
    // An API node of a cluster holds neither the simulator nor the chain follower: it does not know.
    state: source === 'none' ? 'imported' : simulated ? 'live' : 'unknown',
    now: Math.floor(now),
    tip: simulated
      ? {
          slot: null,
          height: health.blockHeight ?? null,
          time: health.lastBlockTime ?? null,
          age_seconds: age(health.lastBlockTime),
        }
      : null,
    node_tip_slot: null,
    behind: null,
    groups,
  };
}
