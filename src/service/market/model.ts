import { AGGREGATE_GROUP, type GroupName } from '../../shared/groups';
import type { AggregateReplay, IdentityRow, IdentitySourceName } from '../store/ports';
import { shift, wholeBase, wholePrice } from './units';

/**
 * The in-memory market: tokens, pairs and pools with their current reserves. The store is the
 * durable copy; this is what the simulator, importers and endpoints read and the ingest path updates.
 */

export const LOGO_NONE = 0;
export const LOGO_GENERATED = 1;
export const LOGO_STORED = 2;
export type LogoKind = typeof LOGO_NONE | typeof LOGO_GENERATED | typeof LOGO_STORED;

export interface Token {
  readonly id: number;
  readonly unit: string;
  ticker: string;
  name: string;
  decimals: number;
  logoKind: LogoKind;
}

export interface Pool {
  /** Row id; also the bar series of the pool. */
  readonly id: number;
  /** Hex pool ID: the symbol's ticker. */
  readonly poolId: string;
  readonly group: GroupName;
  readonly pair: Pair;
  /** n of `_Pool<n>`: the pool's rank among the pair's pools in its group. */
  readonly n: number;
  readonly feeBps: number;
  /** Raw (smallest-unit) reserves; for an Aggregate pool, the sums over the pair's pools. */
  baseReserve: number;
  quoteReserve: number;
  readonly simulated: boolean;
}

export interface Pair {
  readonly id: number;
  readonly base: Token;
  readonly quote: Token;
  /** The pair's DEX pools, in creation order. */
  readonly pools: Pool[];
  /** The pair's Aggregate pool (set once the pair is registered). */
  aggregate: Pool;
}

/** Raw units per whole unit of a token with `decimals` decimals: `10 ** decimals`. */
export function unitScale(decimals: number): number {
  return shift(1, decimals);
}

/** A pool's price in raw units (raw base per raw quote unit: the ratio of its reserves). 0 for an empty pool. */
export function poolRawPrice(pool: Pool): number {
  return pool.quoteReserve <= 0 ? 0 : pool.baseReserve / pool.quoteReserve;
}

/** A pool's TVL in raw base units: twice its base reserve (constant product). */
export function poolRawTvl(pool: Pool): number {
  return 2 * pool.baseReserve;
}

/** Price of one whole quote unit in whole base units, with the decimals known now. 0 for an empty pool. */
export function poolPrice(pool: Pool): number {
  return wholePrice(pool.pair, poolRawPrice(pool));
}

/** TVL in whole base units, with the decimals known now. */
export function poolTvl(pool: Pool): number {
  return wholeBase(pool.pair, poolRawTvl(pool));
}

export function isAggregate(pool: Pool): boolean {
  return pool.group === AGGREGATE_GROUP;
}

/** The raw reserves of a constant-product pool at a raw price and raw TVL (twice the base reserve). */
export function reservesAt(price: number, tvl: number): [number, number] {
  const base = tvl / 2;
  return [base, price > 0 ? base / price : 0];
}

/**
 * The Aggregate columns of a pair's trades, computed again in time order from each pool's state
 * (`reservesAt` its prices and TVLs): at each trade its pool is at its previous state for the "prev"
 * columns and at its new one after, the others at their last trade's state (none yet: empty). The
 * arithmetic is `swap`'s (`sumAggregate`, `poolPrice`, `poolTvl`), so the columns equal, to the bit,
 * those of importing the same trades in time order. What an out-of-order import needs (CommitBatch).
 */
export function aggregateReplay(pair: Pair): AggregateReplay {
  return (before, trades) => {
    const byId = new Map(pair.pools.map((pool) => [pool.id, pool]));
    const reserves = new Map<number, [number, number]>(pair.pools.map((pool) => [pool.id, [0, 0]]));
    for (const [id, state] of before) {
      const pool = byId.get(id);
      if (pool) reserves.set(id, reservesAt(state.price, state.tvl));
    }
    const { aggregate } = pair;
    const aggregateNow = (): [number, number] => {
      let base = 0;
      let quote = 0;
      for (const pool of pair.pools) {
        const [b, q] = reserves.get(pool.id) ?? [0, 0];
        base += b;
        quote += q;
      }
      aggregate.baseReserve = base;
      aggregate.quoteReserve = quote;
      return [poolRawPrice(aggregate), poolRawTvl(aggregate)];
    };
    const [keptBase, keptQuote] = [aggregate.baseReserve, aggregate.quoteReserve];
    try {
      return trades.map((trade) => {
        const pool = byId.get(trade.pool);
        if (!pool) throw new Error(`pool ${trade.pool} is not a pool of pair ${pair.id}`);
        reserves.set(trade.pool, reservesAt(trade.prevPrice, trade.prevTvl));
        const [aggPrevPrice, aggPrevTvl] = aggregateNow();
        reserves.set(trade.pool, reservesAt(trade.price, trade.tvl));
        const [aggPrice, aggTvl] = aggregateNow();
        return { aggPrevPrice, aggPrice, aggPrevTvl, aggTvl };
      });
    } finally {
      // The Aggregate's present state is its pools' latest, not the replay's.
      aggregate.baseReserve = keptBase;
      aggregate.quoteReserve = keptQuote;
    }
  };
}

/** Recomputes an Aggregate pool's reserves as the sums over its pair's pools (always in the same order). */
export function sumAggregate(pair: Pair): void {
  let base = 0;
  let quote = 0;
  for (const pool of pair.pools) {
    base += pool.baseReserve;
    quote += pool.quoteReserve;
  }
  pair.aggregate.baseReserve = base;
  pair.aggregate.quoteReserve = quote;
}

export function pairKey(baseUnit: string, quoteUnit: string): string {
  return `${baseUnit}|${quoteUnit}`;
}

/** Lookup structure over the market's tokens, pairs and pools. */
export class Market {
  readonly tokens = new Map<string, Token>();
  readonly tokensById = new Map<number, Token>();
  readonly pairs = new Map<string, Pair>();
  readonly pools = new Map<string, Pool>();
  readonly poolsById = new Map<number, Pool>();
  /**
   * What each source said of a token (service/identity/identity.ts makes its identity from them), by unit, then
   * source; tokens that are not in a pool may have records too (their pool may come later).
   */
  readonly identities = new Map<string, Map<IdentitySourceName, IdentityRow>>();
  /** Bumped whenever tokens or pools are added, removed or renamed: caches of symbol_info key on it. */
  version = 0;
  /** Bumped whenever a pool's reserves (so its price) may have changed: symbol_info's pricescales follow it. */
  prices = 0;

  addToken(token: Token): void {
    this.tokens.set(token.unit, token);
    this.tokensById.set(token.id, token);
    this.version++;
  }

  addPair(pair: Pair): void {
    this.pairs.set(pairKey(pair.base.unit, pair.quote.unit), pair);
    this.addPool(pair.aggregate);
  }

  addPool(pool: Pool): void {
    this.pools.set(pool.poolId, pool);
    this.poolsById.set(pool.id, pool);
    if (!isAggregate(pool)) pool.pair.pools.push(pool);
    this.version++;
  }

  touch(): void {
    this.version++;
  }

  /** Every record of a token, in no particular order (identity/identity.ts `identityOf` orders them). */
  identityRecords(unit: string): IdentityRow[] {
    const bySource = this.identities.get(unit);
    return bySource ? [...bySource.values()] : [];
  }

  /** Sets (a record) or removes (`undefined`) what `source` says of `unit`. */
  setIdentity(unit: string, source: IdentitySourceName, record: IdentityRow | undefined): void {
    let bySource = this.identities.get(unit);
    if (record) {
      if (!bySource) this.identities.set(unit, (bySource = new Map()));
      bySource.set(source, record);
    } else if (bySource) {
      bySource.delete(source);
      if (bySource.size === 0) this.identities.delete(unit);
    }
    this.version++;
  }

  /** Takes back a token added by a write that failed (nothing may refer to it any more). */
  removeToken(token: Token): void {
    this.tokens.delete(token.unit);
    this.tokensById.delete(token.id);
    this.version++;
  }

  /** Takes back a pair (with its Aggregate pool) added by a write that failed. */
  removePair(pair: Pair): void {
    this.pairs.delete(pairKey(pair.base.unit, pair.quote.unit));
    this.pools.delete(pair.aggregate.poolId);
    this.poolsById.delete(pair.aggregate.id);
    this.version++;
  }

  /** Takes back a DEX pool added by a write that failed. */
  removePool(pool: Pool): void {
    this.pools.delete(pool.poolId);
    this.poolsById.delete(pool.id);
    const index = pool.pair.pools.indexOf(pool);
    if (index !== -1) pool.pair.pools.splice(index, 1);
    sumAggregate(pool.pair);
    this.version++;
  }

  /**
   * Takes over another market's contents (an API node's resync from the store): the same object, so
   * everything holding it sees the new tokens, pairs, pools and reserves.
   */
  replaceWith(other: Market): void {
    for (const [from, to] of [
      [other.tokens, this.tokens],
      [other.tokensById, this.tokensById],
      [other.pairs, this.pairs],
      [other.pools, this.pools],
      [other.poolsById, this.poolsById],
    ] as [Map<unknown, unknown>, Map<unknown, unknown>][]) {
      to.clear();
      for (const [k, v] of from) to.set(k, v);
    }
    this.identities.clear();
    for (const [unit, bySource] of other.identities) this.identities.set(unit, new Map(bySource));
    this.version++;
  }

  /** The token's ADA pair (the pair `/tokens/current?policy=` describes). */
  adaPairOf(unit: string): Pair | undefined {
    return this.pairs.get(pairKey('', unit));
  }
}
