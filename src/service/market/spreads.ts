import { LRUCache } from 'lru-cache';
import type { Spreads } from '../../shared/api/extensions';
import { spreadOf, type SpreadPool } from '../../shared/spread';
import { adaPerBase } from './liquidity';
import { poolPrice, poolTvl, type Market } from './model';

/** One pair of the market as every spread of it is computed: its units, its Aggregate, its pools priced. */
interface PairPrices {
  readonly base: string;
  readonly quote: string;
  readonly aggregate: string;
  readonly pools: readonly SpreadPool[];
}

/** Bodies kept per market state, by `min_tvl`: the app's default and a user's own settle here. */
const BODIES_KEPT = 16;

/**
 * `/api/x/spreads`: every pair's spread across its DEX pools. The whole-market part — every pool's price
 * and TVL in ADA, pair by pair — is computed once per market change (its version and prices); a
 * request filters it by its `min_tvl` (one pass over the pairs, no price or TVL computed again), and the
 * serialised body is kept for the last few `min_tvl`s asked until the market changes.
 */
export class SpreadsSource {
  private state = '';
  private pairs: readonly PairPrices[] = [];
  private readonly bodies = new LRUCache<number, string>({ max: BODIES_KEPT });

  constructor(private readonly market: Market) {}

  /** The JSON body for `minTvl`. */
  json(minTvl: number): string {
    const state = `${this.market.version}:${this.market.prices}`;
    if (state !== this.state) {
      this.state = state;
      this.bodies.clear();
      this.pairs = this.priced();
    }
    let body = this.bodies.get(minTvl);
    if (body === undefined) {
      body = JSON.stringify(this.filtered(minTvl));
      this.bodies.set(minTvl, body);
    }
    return body;
  }

  private priced(): PairPrices[] {
    const market = this.market;
    return [...market.pairs.values()].map((pair) => {
      const adaPer = adaPerBase(market, pair.aggregate);
      return {
        base: pair.base.unit,
        quote: pair.quote.unit,
        aggregate: pair.aggregate.poolId,
        pools: pair.pools.map((p) => ({
          id: p.poolId,
          price: poolPrice(p),
          tvlAda: adaPer > 0 ? poolTvl(p) * adaPer : undefined,
        })),
      };
    });
  }

  private filtered(minTvl: number): Spreads {
    const body: Spreads = {
      s: 'ok',
      min_tvl: minTvl,
      base: [],
      quote: [],
      aggregate: [],
      spread_percent: [],
      pools: [],
      low: [],
      high: [],
    };
    for (const pair of this.pairs) {
      const spread = spreadOf(pair.pools, minTvl);
      body.base.push(pair.base);
      body.quote.push(pair.quote);
      body.aggregate.push(pair.aggregate);
      body.spread_percent.push(spread.percent);
      body.pools.push(spread.pools);
      body.low.push(spread.low);
      body.high.push(spread.high);
    }
    return body;
  }
}
