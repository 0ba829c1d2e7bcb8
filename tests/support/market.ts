import { isAggregate, LOGO_NONE, type Pool, type Token } from '../../src/service/market/model';
import type { ServiceRuntime } from '../../src/service/runtime';
import { RESOLUTION_SECONDS, type Resolution } from '../../src/shared/resolutions';
import type { TradeRecord } from '../../src/service/store/trade-store';
import { ensureDefined } from './ensure';

/** Read-only views of the test market and its store, for building expectations. */

export interface BusiestPools {
  /** The Aggregate pool with the most trades. */
  readonly aggregate: Pool;
  /** The DEX pool of that pair with the most trades. */
  readonly dexPool: Pool;
}

/** The busiest Aggregate pool (optionally among ADA pairs only) and the busiest DEX pool of its pair. */
export function busiestPools(runtime: ServiceRuntime, options: { readonly adaPairsOnly?: boolean } = {}): BusiestPools {
  const rows = runtime.db
    .prepare<[], { agg: number; n: number }>('SELECT agg, count(*) AS n FROM trades GROUP BY agg ORDER BY n DESC, agg')
    .all();
  for (const row of rows) {
    const aggregate = ensureDefined(runtime.market.poolsById.get(row.agg), `pool ${row.agg}`);
    if (options.adaPairsOnly && aggregate.pair.base.unit !== '') continue;
    const best = runtime.db
      .prepare<[number], { pool: number }>('SELECT pool, count(*) AS n FROM trades WHERE agg = ? GROUP BY pool ORDER BY n DESC, pool LIMIT 1')
      .get(aggregate.id);
    const dexPool = ensureDefined(runtime.market.poolsById.get(ensureDefined(best).pool), 'dex pool');
    return { aggregate, dexPool };
  }
  throw new Error('the market has no trades');
}

/** Aggregate pools, busiest first. */
export function aggregatesByActivity(runtime: ServiceRuntime): Pool[] {
  const counts = new Map(
    runtime.db.prepare<[], { agg: number; n: number }>('SELECT agg, count(*) AS n FROM trades GROUP BY agg').all().map((r) => [r.agg, r.n]),
  );
  return [...runtime.market.pools.values()]
    .filter(isAggregate)
    .sort((a, b) => (counts.get(b.id) ?? 0) - (counts.get(a.id) ?? 0) || a.id - b.id);
}

/** A pair with at least `min` DEX pools (the Aggregate sums are only interesting there). */
export function pairWithPools(runtime: ServiceRuntime, min: number): Pool {
  for (const pool of aggregatesByActivity(runtime)) if (pool.pair.pools.length >= min) return pool;
  throw new Error(`no pair has ${min} pools`);
}

export function tokenWithoutLogo(runtime: ServiceRuntime): Token {
  return ensureDefined([...runtime.market.tokens.values()].find((t) => t.unit !== '' && t.logoKind === LOGO_NONE), 'a token without logo');
}

export function tokensWithLogo(runtime: ServiceRuntime, count: number): Token[] {
  const tokens = [...runtime.market.tokens.values()].filter((t) => t.unit !== '' && t.logoKind !== LOGO_NONE).slice(0, count);
  if (tokens.length < count) throw new Error(`fewer than ${count} tokens have a logo`);
  return tokens;
}

interface TradeRow {
  seq: number;
  event_id: string;
  pool: number;
  agg: number;
  block_time: number;
  prev_price: number;
  price: number;
  prev_tvl: number;
  tvl: number;
  volume: number;
  agg_prev_price: number;
  agg_price: number;
  agg_prev_tvl: number;
  agg_tvl: number;
}

export interface StoredTrade extends TradeRecord {
  readonly seq: number;
}

/** Stored trades in ingest order, optionally of one pool series or one Aggregate series, after a seq. */
export function storedTrades(
  runtime: ServiceRuntime,
  filter: { readonly pool?: number; readonly agg?: number; readonly afterSeq?: number } = {},
): StoredTrade[] {
  const where: string[] = ['seq > ?'];
  const args: number[] = [filter.afterSeq ?? 0];
  if (filter.pool !== undefined) {
    where.push('pool = ?');
    args.push(filter.pool);
  }
  if (filter.agg !== undefined) {
    where.push('agg = ?');
    args.push(filter.agg);
  }
  return runtime.db
    .prepare<number[], TradeRow>(`SELECT * FROM trades WHERE ${where.join(' AND ')} ORDER BY seq`)
    .all(...args)
    .map((r) => ({
      seq: r.seq,
      eventId: r.event_id,
      pool: r.pool,
      agg: r.agg,
      blockTime: r.block_time,
      prevPrice: r.prev_price,
      price: r.price,
      prevTvl: r.prev_tvl,
      tvl: r.tvl,
      volume: r.volume,
      aggPrevPrice: r.agg_prev_price,
      aggPrice: r.agg_price,
      aggPrevTvl: r.agg_prev_tvl,
      aggTvl: r.agg_tvl,
    }));
}

export function lastSeq(runtime: ServiceRuntime): number {
  return runtime.db.prepare<[], { s: number | null }>('SELECT max(seq) AS s FROM trades').get()?.s ?? 0;
}

export interface BarTableRow {
  series: number;
  res: number;
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  tvl: number;
}

/** Every row of the bars table, in key order. */
export function allBarRows(runtime: ServiceRuntime): BarTableRow[] {
  return runtime.db.prepare<[], BarTableRow>('SELECT * FROM bars ORDER BY series, res, t').all();
}

/** Reserves of every pool as stored. */
export function storedReserves(runtime: ServiceRuntime): { id: number; base_reserve: number; quote_reserve: number }[] {
  return runtime.db.prepare<[], { id: number; base_reserve: number; quote_reserve: number }>('SELECT id, base_reserve, quote_reserve FROM pools ORDER BY id').all();
}

/** Reserves of every pool as held in memory. */
export function memoryReserves(runtime: ServiceRuntime): { id: number; base_reserve: number; quote_reserve: number }[] {
  return [...runtime.market.poolsById.values()]
    .map((p) => ({ id: p.id, base_reserve: p.baseReserve, quote_reserve: p.quoteReserve }))
    .sort((a, b) => a.id - b.id);
}

/** A bar as /history's columns give it. */
export interface WireBar {
  readonly t: number;
  readonly o: number;
  readonly h: number;
  readonly l: number;
  readonly c: number;
  readonly v: number;
  readonly tvl?: number;
}

/** The part of a trade that makes a bar, as the stream carries it (volume in whole base units). */
export interface PriceStep {
  readonly block_time: number;
  readonly previous_price: number;
  readonly current_price: number;
  readonly current_tvl: number;
  readonly volume: number;
}

/** A trade's step for its DEX pool's series (volume still in millionths: divide at the end). */
export function poolStep(trade: TradeRecord): PriceStep {
  return { block_time: trade.blockTime, previous_price: trade.prevPrice, current_price: trade.price, current_tvl: trade.tvl, volume: trade.volume };
}

/** A trade's step for its Aggregate pool's series (volume still in millionths). */
export function aggregateStep(trade: TradeRecord): PriceStep {
  return { block_time: trade.blockTime, previous_price: trade.aggPrevPrice, current_price: trade.aggPrice, current_tvl: trade.aggTvl, volume: trade.volume };
}

/**
 * The decisions' bar rule written out independently of src/shared/bars.ts: per UTC bucket, o = the
 * first step's previous price, h/l over it and every current price, c = the last current price,
 * v = sum of volumes (divided by `volumeScale` once, at the end), tvl = the last current TVL.
 */
export function referenceBars(steps: readonly PriceStep[], resolution: Resolution, volumeScale = 1): WireBar[] {
  const size = RESOLUTION_SECONDS[resolution];
  const buckets = new Map<number, PriceStep[]>();
  for (const step of steps) {
    const t = Math.floor(step.block_time / size) * size;
    const list = buckets.get(t) ?? [];
    list.push(step);
    buckets.set(t, list);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, list]) => {
      const first = ensureDefined(list[0]);
      const last = ensureDefined(list.at(-1));
      const prices = [first.previous_price, ...list.map((s) => s.current_price)];
      return {
        t,
        o: first.previous_price,
        h: Math.max(...prices),
        l: Math.min(...prices),
        c: last.current_price,
        v: list.reduce((sum, s) => sum + s.volume, 0) / volumeScale,
        tvl: last.current_tvl,
      };
    });
}

/**
 * Makes the market trade (`simulator.forceBlock(atSeconds)`, block after block) until a trade touches
 * one of `aggregates`; returns every trade stored meanwhile, in ingest order.
 */
export function forceTradesOn(runtime: ServiceRuntime, aggregates: readonly Pool[], atSeconds: number, maxBlocks = 1000): StoredTrade[] {
  const ids = new Set(aggregates.map((p) => p.id));
  const before = lastSeq(runtime);
  for (let i = 0; i < maxBlocks; i++) {
    runtime.simulator.forceBlock(atSeconds);
    const fresh = storedTrades(runtime, { afterSeq: before });
    if (fresh.some((t) => ids.has(t.agg))) return fresh;
  }
  throw new Error(`no trade on the given pools within ${maxBlocks} blocks`);
}
