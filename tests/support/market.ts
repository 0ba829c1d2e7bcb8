import { createHash } from 'node:crypto';
import { isAggregate, LOGO_NONE, type Market, type Pool, type Token } from '../../src/service/market/model';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { wholeBase, wholePrice } from '../../src/service/market/units';
import { RESOLUTION_SECONDS, type Resolution } from '../../src/shared/resolutions';
import type { Store, TradeRecord } from '../../src/service/store/ports';
import { ensureDefined } from './ensure';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** Read-only views of the test market and its store, for building expectations. */

export interface BusiestPools {
  /** The Aggregate pool with the most trades. */
  readonly aggregate: Pool;
  /** The DEX pool of that pair with the most trades. */
  readonly dexPool: Pool;
}

/** The busiest Aggregate pool (optionally among ADA pairs only) and the busiest DEX pool of its pair. */
export async function busiestPools(
  runtime: ServiceRuntime,
  options: { readonly adaPairsOnly?: boolean } = {},
): Promise<BusiestPools> {
  for (const aggregate of await aggregatesByActivity(runtime)) {
    if (options.adaPairsOnly && aggregate.pair.base.unit !== '') continue;
    const counts = await Promise.all(
      aggregate.pair.pools.map(async (pool) => ({
        pool,
        n: (await runtimeInternals(runtime).store.trades.list({ pool: pool.id })).length,
      })),
    );
    const best = counts.filter((c) => c.n > 0).sort((a, b) => b.n - a.n || a.pool.id - b.pool.id)[0];
    if (!best) continue;
    return { aggregate, dexPool: best.pool };
  }
  throw new Error('the market has no trades');
}

/** Aggregate pools, busiest first. */
export async function aggregatesByActivity(runtime: ServiceRuntime): Promise<Pool[]> {
  const counts = new Map(
    (await runtimeInternals(runtime).store.trades.busiestAggregates(1_000_000)).map((r) => [r.series, r.trades]),
  );
  return [...runtime.market.pools.values()]
    .filter(isAggregate)
    .sort((a, b) => (counts.get(b.id) ?? 0) - (counts.get(a.id) ?? 0) || a.id - b.id);
}

/** A pair with at least `min` DEX pools (the Aggregate sums are only interesting there). */
export async function pairWithPools(runtime: ServiceRuntime, min: number): Promise<Pool> {
  for (const pool of await aggregatesByActivity(runtime)) if (pool.pair.pools.length >= min) return pool;
  throw new Error(`no pair has ${min} pools`);
}

export function tokenWithoutLogo(runtime: ServiceRuntime): Token {
  return ensureDefined(
    [...runtime.market.tokens.values()].find((t) => t.unit !== '' && t.logoKind === LOGO_NONE),
    'a token without logo',
  );
}

export function tokensWithLogo(runtime: ServiceRuntime, count: number): Token[] {
  const tokens = [...runtime.market.tokens.values()]
    .filter((t) => t.unit !== '' && t.logoKind !== LOGO_NONE)
    .slice(0, count);
  if (tokens.length < count) throw new Error(`fewer than ${count} tokens have a logo`);
  return tokens;
}

export interface StoredTrade extends TradeRecord {
  /** Position in ingest order (1-based, over the whole store). */
  readonly seq: number;
}

/** Stored trades in ingest order, optionally of one pool series or one Aggregate series, after a seq. */
export async function storedTrades(
  runtime: ServiceRuntime,
  filter: { readonly pool?: number; readonly agg?: number; readonly afterSeq?: number } = {},
): Promise<StoredTrade[]> {
  return runtimeInternals(runtime).store.trades.list(filter);
}

/**
 * Stored trades in whole units (prices in whole base per whole quote unit, TVLs and volumes in whole base
 * units), with the decimals the market knows now: how a test reads them as a trader sees them.
 */
export function wholeTrades<T extends TradeRecord>(market: Market, trades: readonly T[]): T[] {
  return trades.map((trade) => {
    const { pair } = ensureDefined(market.poolsById.get(trade.pool), `pool ${trade.pool}`);
    const price = (raw: number) => wholePrice(pair, raw);
    const base = (raw: number) => wholeBase(pair, raw);
    return {
      ...trade,
      prevPrice: price(trade.prevPrice),
      price: price(trade.price),
      aggPrevPrice: price(trade.aggPrevPrice),
      aggPrice: price(trade.aggPrice),
      prevTvl: base(trade.prevTvl),
      tvl: base(trade.tvl),
      aggPrevTvl: base(trade.aggPrevTvl),
      aggTvl: base(trade.aggTvl),
      volume: base(trade.volume),
    };
  });
}

export async function lastSeq(runtime: ServiceRuntime): Promise<number> {
  return (await runtimeInternals(runtime).store.trades.list()).at(-1)?.seq ?? 0;
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

/** Every stored bar, in key order. */
export async function allBarRows(runtime: ServiceRuntime): Promise<BarTableRow[]> {
  return (await runtimeInternals(runtime).store.bars.all()).map(([series, res, t, o, h, l, c, v, tvl]) => ({
    series,
    res,
    t,
    o,
    h,
    l,
    c,
    v,
    tvl,
  }));
}

/** Reserves of every pool as stored. */
export async function storedReserves(
  runtime: ServiceRuntime,
): Promise<{ id: number; base_reserve: number; quote_reserve: number }[]> {
  return (await runtimeInternals(runtime).store.market.load()).pools.map((p) => ({
    id: p.id,
    base_reserve: p.baseReserve,
    quote_reserve: p.quoteReserve,
  }));
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

/**
 * A stored step (raw units) in whole units of its pool's decimals now, as the service answers: prices and TVL shifted
 * once each; the volume stays raw, for `referenceBars` to divide a bar's sum once by `baseUnit(pool)`.
 */
export function wholeStep(pool: Pool): (step: PriceStep) => PriceStep {
  return (step) => ({
    ...step,
    previous_price: wholePrice(pool.pair, step.previous_price),
    current_price: wholePrice(pool.pair, step.current_price),
    current_tvl: wholeBase(pool.pair, step.current_tvl),
  });
}

/** Raw base units per whole base unit of a pool's pair: what a stored (raw) volume is divided by to be served. */
export function baseUnit(pool: Pool): number {
  return 10 ** pool.pair.base.decimals;
}

/** A trade's step for its DEX pool's series (raw units: see `wholeStep`). */
export function poolStep(trade: TradeRecord): PriceStep {
  return {
    block_time: trade.blockTime,
    previous_price: trade.prevPrice,
    current_price: trade.price,
    current_tvl: trade.tvl,
    volume: trade.volume,
  };
}

/** A trade's step for its Aggregate pool's series (raw units: see `wholeStep`). */
export function aggregateStep(trade: TradeRecord): PriceStep {
  return {
    block_time: trade.blockTime,
    previous_price: trade.aggPrevPrice,
    current_price: trade.aggPrice,
    current_tvl: trade.aggTvl,
    volume: trade.volume,
  };
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
 * Makes the market trade (`simulator.forceBlock(atSeconds)`, block after block; it picks pools at
 * random) until `count` trades (default 1) touched `aggregates` (pools, or their pool IDs); returns
 * every trade stored meanwhile, in ingest order.
 */
export async function forceTradesOn(
  runtime: ServiceRuntime,
  aggregates: readonly (Pool | string)[],
  atSeconds: number,
  options: { readonly count?: number; readonly maxBlocks?: number } = {},
): Promise<StoredTrade[]> {
  const ids = new Set(
    aggregates.map((p) => (typeof p === 'string' ? runtime.market.pools.get(p.toLowerCase())?.id : p.id)),
  );
  const count = options.count ?? 1;
  const maxBlocks = options.maxBlocks ?? 1000;
  const before = await lastSeq(runtime);
  for (let i = 0; i < maxBlocks; i++) {
    await runtime.simulator.forceBlock(atSeconds);
    const fresh = await storedTrades(runtime, { afterSeq: before });
    if (fresh.filter((t) => ids.has(t.agg)).length >= count) return fresh;
  }
  throw new Error(`fewer than ${count} trades on the given ${aggregates.length} pools within ${maxBlocks} blocks`);
}

/** A number as text that tells every double apart (the shortest round-trip form; -0 kept). */
function exact(value: number | null): string {
  if (value === null) return 'null';
  return Object.is(value, -0) ? '-0' : String(value);
}

/**
 * SHA-256 of everything a market's start leaves in its store, in a fixed order and with every number
 * exact: tokens, pairs, pools with their stored reserves, every trade (with its seq), every bar, the
 * simulator's saved state, and the reserves held in memory. Two markets with the same digest are the
 * same market to the bit.
 */
export async function marketDigest(runtime: ServiceRuntime): Promise<string> {
  const hash = createHash('sha256');
  const { store } = runtimeInternals(runtime);
  const row = (label: string, values: readonly (number | string | boolean | null)[]) =>
    hash.update(
      `${label}:${values.map((v) => (typeof v === 'number' || v === null ? exact(v) : JSON.stringify(v))).join(',')}\n`,
    );
  const { tokens, pairs, pools } = await store.market.load();
  for (const t of tokens) row('token', [t.id, t.unit, t.ticker, t.name, t.decimals, t.logoKind]);
  for (const p of pairs) row('pair', [p.id, p.base, p.quote]);
  for (const p of pools)
    row('pool', [p.id, p.poolId, p.group, p.pairId, p.n, p.feeBps, p.baseReserve, p.quoteReserve, p.simulated]);
  for (const t of await store.trades.list()) {
    row('trade', [
      t.seq,
      t.eventId,
      t.pool,
      t.agg,
      t.blockTime,
      t.prevPrice,
      t.price,
      t.prevTvl,
      t.tvl,
      t.volume,
      t.aggPrevPrice,
      t.aggPrice,
      t.aggPrevTvl,
      t.aggTvl,
    ]);
  }
  for (const bar of await store.bars.all()) row('bar', bar);
  const sim = await store.sim.load();
  if (sim) row('sim', [sim.height, sim.nextBlockTime, Buffer.from(sim.fair).toString('hex')]);
  for (const r of memoryReserves(runtime)) row('memory', [r.id, r.base_reserve, r.quote_reserve]);
  return hash.digest('hex');
}

/** SHA-256 of every bar a store holds, in key order and with every number exact (see `marketDigest`). */
export async function barsDigest(store: Store): Promise<string> {
  const hash = createHash('sha256');
  for (const bar of await store.bars.all()) hash.update(`${bar.map(exact).join(',')}\n`);
  return hash.digest('hex');
}
