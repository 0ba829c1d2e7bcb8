import { poolOutputs, type PoolState } from '../../src/service/chain/dexes';
import { isAggregate, poolPrice, poolTvl, type Market, type Pool } from '../../src/service/market/model';
import { spreadOf } from '../../src/shared/spread';
import type { TradeRecord } from '../../src/service/store/ports';
import { priseSwaps, qualifiedTransactions, toChainTxs, PRISE_DIR, type PriseSwap } from './prise';

/**
 * How much a market looks like the real one (issue 40): the same figures computed the same way from
 * real swaps (prise's mainnet data) and from the simulated market's stored trades.
 */

/** One swap against an ADA pool: what the pool held before, what moved, the price before and after. */
export interface SwapObservation {
  /** The pool (any key unique to it). */
  readonly pool: string;
  /** Unix seconds. */
  readonly time: number;
  /** The pool's ADA reserve before the swap, whole ADA. */
  readonly adaBefore: number;
  /** ADA into or out of the pool, whole ADA (absolute). */
  readonly adaMoved: number;
  /** ADA per whole token before and after. */
  readonly priceBefore: number;
  readonly priceAfter: number;
}

/** A complete record of swaps (every swap of a DEX or a pool over a span of time), one pool per key. */
export interface SwapRecord {
  readonly name: string;
  /** Unix seconds of the first and last swap. */
  readonly from: number;
  readonly to: number;
  /** Transactions (trades) per pool. */
  readonly tradesPerPool: ReadonlyMap<string, number>;
}

/** Swaps and records of one market, real or simulated. */
export interface RealismSample {
  readonly swaps: readonly SwapObservation[];
  readonly records: readonly SwapRecord[];
}

/** One figure of both markets (docs/decisions.md, "A default market that moves like the real one"). */
export interface Comparison {
  readonly name: string;
  readonly real: number;
  readonly simulated: number;
  /** How many swaps, records or pools each figure stands on. */
  readonly realCount: number;
  readonly simulatedCount: number;
}

/** Pools holding at least this much ADA count for the sizes and returns (a dust pool's ratios are noise). */
const MIN_ADA_RESERVE = 5_000;
/** A pool's hourly returns count when it traded at least this often over at least this many hours. */
const MIN_TRADES_PER_HOUR = 1;
const MIN_HOURS = 6;
/** A record counts for the busiest pool's rate when it spans at least this many hours. */
const MIN_RECORD_HOURS = 2;
/** Depth bands for matching trade sizes: a quarter of a decade of ADA reserve each. */
const DEPTH_BANDS_PER_DECADE = 4;
/** A depth band counts when the simulated market has at least this many swaps in it. */
const MIN_SWAPS_PER_BAND = 30;
/** Mainnet: Unix seconds = slot + this (from the Shelley era on). */
const SHELLEY_UNIX_OFFSET = 1_591_566_291;

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The q-quantile (linear between ranks) of some values; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (rank - lo);
}

export function standardDeviation(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
}

/** Hourly closes of one pool's price from its swaps (in time order), hours counted from its first swap. */
function hourlyCloses(swaps: readonly SwapObservation[]): number[] {
  const first = swaps[0];
  if (!first) return [];
  const start = first.time;
  const closes: number[] = [];
  let price = first.priceBefore;
  let i = 0;
  const hours = Math.floor(((swaps.at(-1) as SwapObservation).time - start) / 3600);
  for (let h = 0; h <= hours; h++) {
    for (; i < swaps.length && (swaps[i] as SwapObservation).time < start + (h + 1) * 3600; i++)
      price = (swaps[i] as SwapObservation).priceAfter;
    closes.push(price);
  }
  return closes;
}

const isDeep = (s: SwapObservation) => s.adaBefore >= MIN_ADA_RESERVE && s.adaMoved > 0;
const depthBand = (s: SwapObservation) => Math.floor(Math.log10(s.adaBefore) * DEPTH_BANDS_PER_DECADE);
const relativeSize = (s: SwapObservation) => s.adaMoved / s.adaBefore;

/** Per pool that traded often enough over long enough: the standard deviation of its hourly log returns. */
function hourlyReturnSpreads(swaps: readonly SwapObservation[]): number[] {
  const byPool = new Map<string, SwapObservation[]>();
  for (const swap of swaps.filter(isDeep)) {
    const list = byPool.get(swap.pool);
    if (list) list.push(swap);
    else byPool.set(swap.pool, [swap]);
  }
  const spreads: number[] = [];
  for (const list of byPool.values()) {
    list.sort((a, b) => a.time - b.time);
    const hours = ((list.at(-1) as SwapObservation).time - (list[0] as SwapObservation).time) / 3600;
    if (hours < MIN_HOURS || list.length / hours < MIN_TRADES_PER_HOUR) continue;
    const closes = hourlyCloses(list);
    spreads.push(standardDeviation(closes.slice(1).map((c, i) => Math.log(c / (closes[i] as number)))));
  }
  return spreads;
}

/** Per record long enough: its busiest pool's trades per hour. */
function busiestRates(records: readonly SwapRecord[]): number[] {
  return records
    .filter((r) => r.to - r.from >= MIN_RECORD_HOURS * 3600)
    .map((r) => (Math.max(...r.tradesPerPool.values()) * 3600) / (r.to - r.from));
}

/**
 * The four figures of issue 40, each computed the same way from both markets:
 * - trade size relative to pool depth: the median of (ADA moved / the pool's ADA reserve before), over
 *   swaps of pools holding at least 5,000 ADA, matched by depth (a real pool of 3 million ADA is
 *   compared with simulated pools of its depth: for each real swap, the median of the simulated swaps
 *   in its quarter-decade of depth, where the simulated market has 30 or more);
 * - trades per hour on a busy pool: the busiest pool of each record spanning 2 hours or more, its
 *   transactions per hour; the median over records;
 * - the share of buys: swaps that put ADA into the pool;
 * - the hourly return spread: per pool holding 5,000 ADA or more that traded once an hour or more over
 *   6 hours or more, the standard deviation of its hourly log returns; the median over pools.
 */
export function compareWithReal(real: RealismSample, simulated: RealismSample): Comparison[] {
  const bands = new Map<number, number[]>();
  for (const swap of simulated.swaps.filter(isDeep)) {
    const list = bands.get(depthBand(swap));
    if (list) list.push(relativeSize(swap));
    else bands.set(depthBand(swap), [relativeSize(swap)]);
  }
  const bandMedians = new Map(
    [...bands].filter(([, list]) => list.length >= MIN_SWAPS_PER_BAND).map(([band, list]) => [band, median(list)]),
  );
  const matched = real.swaps.filter((s) => isDeep(s) && bandMedians.has(depthBand(s)));
  const realSpreads = hourlyReturnSpreads(real.swaps);
  const simulatedSpreads = hourlyReturnSpreads(simulated.swaps);
  const realBusiest = busiestRates(real.records);
  const simulatedBusiest = busiestRates(simulated.records);
  const buys = (swaps: readonly SwapObservation[]) =>
    swaps.filter((s) => s.priceAfter > s.priceBefore).length / swaps.length;
  return [
    {
      name: 'trade size / pool ADA reserve, median, matched by depth',
      real: median(matched.map(relativeSize)),
      simulated: median(matched.map((s) => bandMedians.get(depthBand(s)) as number)),
      realCount: matched.length,
      simulatedCount: [...bands.values()].reduce((sum, list) => sum + list.length, 0),
    },
    {
      name: 'trades per hour, busiest pool of a record, median',
      real: median(realBusiest),
      simulated: median(simulatedBusiest),
      realCount: realBusiest.length,
      simulatedCount: simulatedBusiest.length,
    },
    {
      name: 'share of buys (ADA into the pool)',
      real: buys(real.swaps),
      simulated: buys(simulated.swaps),
      realCount: real.swaps.length,
      simulatedCount: simulated.swaps.length,
    },
    {
      name: 'hourly return spread (standard deviation of hourly log returns), median over pools',
      real: median(realSpreads),
      simulated: median(simulatedSpreads),
      realCount: realSpreads.length,
      simulatedCount: simulatedSpreads.length,
    },
  ];
}

/**
 * Real swaps: every pool change of prise's qualified transactions (resolved inputs and outputs) on an
 * ADA pool, decoded by our decoders, that is a swap (the pool's LP supply unchanged). Batches count as
 * one change of the pool, as the chain source records them.
 */
export function realSwaps(): SwapObservation[] {
  const swaps: SwapObservation[] = [];
  const whole = (state: PoolState) => ({ ada: Number(state.reserveA) / 1e6, token: Number(state.reserveB) });
  for (const tx of qualifiedTransactions().values()) {
    const { inputs, outputs } = toChainTxs(tx);
    const before = new Map<string, PoolState>();
    for (const found of poolOutputs(inputs)) if ('state' in found) before.set(found.state.poolId, found.state);
    for (const found of poolOutputs(outputs)) {
      if (!('state' in found)) continue;
      const after = found.state;
      const was = before.get(after.poolId);
      if (!was || after.assetA !== '' || was.liquidity !== after.liquidity || was.reserveB <= 0n) continue;
      const [b, a] = [whole(was), whole(after)];
      if (a.ada === b.ada) continue;
      swaps.push({
        pool: `${after.group}:${after.poolId}:${after.assetB}`,
        time: tx.blockSlot + SHELLEY_UNIX_OFFSET,
        adaBefore: b.ada,
        adaMoved: Math.abs(a.ada - b.ada),
        priceBefore: b.ada / b.token,
        priceAfter: a.ada / a.token,
      });
    }
  }
  return swaps;
}

/**
 * Real records: each of prise's swap result files that holds every swap of its DEX (or of its pools)
 * over its span, as transactions per pool (a batch executing several orders is one trade of the pool).
 */
export function realRecords(): SwapRecord[] {
  const byFile = new Map<string, PriseSwap[]>();
  for (const files of priseSwaps().values())
    for (const [file, swaps] of files) {
      const list = byFile.get(file);
      if (list) list.push(...swaps);
      else byFile.set(file, [...swaps]);
    }
  const records: SwapRecord[] = [];
  const seen = new Set<string>();
  for (const [file, swaps] of byFile) {
    const txs = new Map<string, Set<string>>();
    for (const s of swaps) {
      const pool = `${s.dex}:${s.asset1Unit}:${s.asset2Unit}`;
      txs.set(pool, (txs.get(pool) ?? new Set()).add(s.txHash));
    }
    const times = swaps.map((s) => s.slot + SHELLEY_UNIX_OFFSET);
    const tradesPerPool = new Map([...txs].map(([pool, set]) => [pool, set.size]));
    // The same swaps under two names (a file and its copy) count once.
    const key = [...tradesPerPool].sort().join('|') + Math.min(...times);
    if (seen.has(key)) continue;
    seen.add(key);
    records.push({
      name: file.slice(PRISE_DIR.length + 1),
      from: Math.min(...times),
      to: Math.max(...times),
      tradesPerPool,
    });
  }
  return records;
}

/** The simulated swaps of ADA pairs, from the stored trades (in ingest order). */
export function simulatedSwaps(market: Market, trades: readonly TradeRecord[]): SwapObservation[] {
  const swaps: SwapObservation[] = [];
  for (const trade of trades) {
    const pool = market.poolsById.get(trade.pool);
    if (!pool || pool.pair.base.unit !== '') continue;
    swaps.push({
      pool: pool.poolId,
      time: trade.blockTime,
      adaBefore: trade.prevTvl / 2,
      adaMoved: Math.abs(trade.tvl - trade.prevTvl) / 2,
      priceBefore: trade.prevPrice,
      priceAfter: trade.price,
    });
  }
  return swaps;
}

/**
 * Simulated records: for each DEX group and each day, every trade of its pools that day (the records
 * of one DEX's swaps over a day that real data gives).
 */
export function simulatedRecords(market: Market, trades: readonly TradeRecord[], from: number): SwapRecord[] {
  const records = new Map<string, Map<string, number>>();
  for (const trade of trades) {
    const pool = market.poolsById.get(trade.pool);
    if (!pool) continue;
    const key = `${pool.group}:${Math.floor((trade.blockTime - from) / 86_400)}`;
    const counts = records.get(key) ?? new Map<string, number>();
    records.set(key, counts.set(pool.poolId, (counts.get(pool.poolId) ?? 0) + 1));
  }
  return [...records].map(([name, tradesPerPool]) => {
    const day = Number(name.split(':')[1]);
    return { name, from: from + day * 86_400, to: from + (day + 1) * 86_400, tradesPerPool };
  });
}

/** A pool's price and TVL through time: its state after each of its trades. */
interface PoolPath {
  readonly times: number[];
  readonly prices: number[];
  readonly tvls: number[];
}

/** A pool's or a pair's state at a time: price (whole base per whole quote) and TVL (whole base units). */
export interface PoolStateAt {
  readonly price: number;
  readonly tvl: number;
}

/**
 * The market through time, from its stored trades: each pool's state at any time is the one its last
 * trade before that time left (before its first trade, the state that trade started from; a pool that
 * never traded, its state now).
 */
export class MarketHistory {
  private readonly paths = new Map<number, PoolPath>();
  private readonly adaPairs = new Map<string, Pool>();

  constructor(
    readonly market: Market,
    trades: readonly TradeRecord[],
  ) {
    for (const trade of trades) {
      let path = this.paths.get(trade.pool);
      if (!path) {
        path = { times: [Number.NEGATIVE_INFINITY], prices: [trade.prevPrice], tvls: [trade.prevTvl] };
        this.paths.set(trade.pool, path);
      }
      path.times.push(trade.blockTime);
      path.prices.push(trade.price);
      path.tvls.push(trade.tvl);
    }
    for (const pool of market.pools.values())
      if (isAggregate(pool) && pool.pair.base.unit === '') this.adaPairs.set(pool.pair.quote.unit, pool);
  }

  /** A DEX pool's state just before `time`. */
  poolAt(pool: Pool, time: number): PoolStateAt {
    const path = this.paths.get(pool.id);
    if (!path) return { price: poolPrice(pool), tvl: poolTvl(pool) };
    let lo = 0;
    let hi = path.times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((path.times[mid] as number) < time) lo = mid;
      else hi = mid - 1;
    }
    return { price: path.prices[lo] as number, tvl: path.tvls[lo] as number };
  }

  /** A pair's Aggregate (its pools' summed reserves) just before `time`. */
  aggregateAt(aggregate: Pool, time: number): PoolStateAt {
    let base = 0;
    let quote = 0;
    for (const pool of aggregate.pair.pools) {
      const { price, tvl } = this.poolAt(pool, time);
      if (!(price > 0)) continue;
      base += tvl / 2;
      quote += tvl / 2 / price;
    }
    return { price: quote > 0 ? base / quote : 0, tvl: 2 * base };
  }

  /** ADA per whole base unit of a pair just before `time`: 1 for ADA, else the base's ADA Aggregate price. */
  adaPerBase(aggregate: Pool, time: number): number {
    const base = aggregate.pair.base.unit;
    if (base === '') return 1;
    const reference = this.adaPairs.get(base);
    return reference ? this.aggregateAt(reference, time).price : 0;
  }

  /** The ADA pair's Aggregate of a token (by unit). */
  adaPair(unit: string): Pool | undefined {
    return this.adaPairs.get(unit);
  }
}

/**
 * Spreads of every pair at every hour of [from, to): for pairs whose Aggregate TVL (valued in ADA) is at
 * least `minAggregateAda` at that hour, the spread between its pools of at least `minPoolAda` TVL, as
 * `/api/x/spreads?min_tvl=` computes it. One pass over the trades in time order; each pool's state at
 * an hour is the one `MarketHistory.poolAt` gives.
 */
export function hourlySpreads(
  market: Market,
  trades: readonly TradeRecord[],
  from: number,
  to: number,
  minAggregateAda: number,
  minPoolAda: number,
): { pair: string; hour: number; percent: number }[] {
  const price = new Map<number, number>();
  const tvl = new Map<number, number>();
  for (const pool of market.pools.values()) {
    price.set(pool.id, poolPrice(pool));
    tvl.set(pool.id, poolTvl(pool));
  }
  // Before its first trade, a pool is in the state that trade started from.
  const seen = new Set<number>();
  for (const trade of trades) {
    if (seen.has(trade.pool)) continue;
    seen.add(trade.pool);
    price.set(trade.pool, trade.prevPrice);
    tvl.set(trade.pool, trade.prevTvl);
  }
  const aggregates = [...market.pools.values()].filter((p) => isAggregate(p) && p.pair.pools.length > 1);
  const adaPairs = new Map<string, Pool>();
  for (const pool of market.pools.values())
    if (isAggregate(pool) && pool.pair.base.unit === '') adaPairs.set(pool.pair.quote.unit, pool);
  const aggregatePrice = (aggregate: Pool) => {
    let base = 0;
    let quote = 0;
    for (const pool of aggregate.pair.pools) {
      const p = price.get(pool.id) as number;
      if (!(p > 0)) continue;
      base += (tvl.get(pool.id) as number) / 2;
      quote += (tvl.get(pool.id) as number) / 2 / p;
    }
    return quote > 0 ? base / quote : 0;
  };
  const spreads: { pair: string; hour: number; percent: number }[] = [];
  let next = 0;
  for (let hour = Math.ceil(from / 3600) * 3600; hour < to; hour += 3600) {
    for (; next < trades.length && (trades[next] as TradeRecord).blockTime < hour; next++) {
      const trade = trades[next] as TradeRecord;
      price.set(trade.pool, trade.price);
      tvl.set(trade.pool, trade.tvl);
    }
    for (const aggregate of aggregates) {
      const { pair } = aggregate;
      let total = 0;
      for (const pool of pair.pools) total += tvl.get(pool.id) as number;
      const reference = pair.base.unit === '' ? undefined : adaPairs.get(pair.base.unit);
      const adaPer = pair.base.unit === '' ? 1 : reference ? aggregatePrice(reference) : 0;
      if (!(total * adaPer >= minAggregateAda)) continue;
      const spread = spreadOf(
        pair.pools.map((pool) => ({
          id: pool.poolId,
          price: price.get(pool.id) as number,
          tvlAda: (tvl.get(pool.id) as number) * adaPer,
        })),
        minPoolAda,
      );
      if (spread.percent !== null) spreads.push({ pair: aggregate.poolId, hour, percent: spread.percent });
    }
  }
  return spreads;
}
