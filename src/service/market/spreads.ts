import { LRUCache } from 'lru-cache';
import { spreadOf, type SpreadPool } from '../../shared/spread';
import { adaPerBase } from './liquidity';
import { poolPrice, poolTvl, type Market } from './model';

/** One pair of the market as every spread of it is computed: its pools priced, their ids as JSON. */
interface PairPrices {
  readonly pools: readonly SpreadPool[];
  /** Each pool's id as a JSON string, by id. */
  readonly ids: ReadonlyMap<string, string>;
}

/** What a market state's answers share: the pairs priced, and the columns no `min_tvl` changes, serialised. */
interface State {
  readonly key: string;
  readonly pairs: readonly PairPrices[];
  /** `"base":[…],"quote":[…],"aggregate":[…]`, UTF-8. */
  readonly fixed: Buffer;
}

/** Bodies kept per market state, by `min_tvl`: the app's default and a user's own settle here. */
const BODIES_KEPT = 16;

/** Pairs priced between two turns of the event loop while a market state is made (6,000+ pairs: 50-150 ms in one piece). */
const PAIRS_PER_SLICE = 1_000;

/**
 * `/api/x/spreads`: every pair's spread across its DEX pools. The whole-market part — every pool's price
 * and TVL in ADA, pair by pair, and the columns that do not depend on `min_tvl` (the pairs' units and
 * Aggregates, serialised) — is made once per market change (its version and prices); a request filters
 * it by its `min_tvl` (one pass over the pairs) and serialises only the four columns that depend on it.
 * Bodies are kept for the last few `min_tvl`s asked until the market changes.
 */
export class SpreadsSource {
  /** The market state being made or made (shared by concurrent requests), and its key. */
  private state: Promise<State> | undefined;
  private stateKey = '';
  private readonly bodies = new LRUCache<number, Buffer>({ max: BODIES_KEPT });

  constructor(private readonly market: Market) {}

  /** The JSON body for `minTvl` (UTF-8). */
  async body(minTvl: number): Promise<Buffer> {
    const key = `${this.market.version}:${this.market.prices}`;
    if (this.state === undefined || key !== this.stateKey) {
      this.stateKey = key;
      this.state = this.stateOf(key);
      this.bodies.clear();
    }
    const state = await this.state;
    let body = this.bodies.get(minTvl);
    if (body === undefined || state.key !== this.stateKey) {
      body = this.filtered(state, minTvl);
      // Kept while it is the state's now (the market may have moved while it was made).
      if (state.key === this.stateKey) this.bodies.set(minTvl, body);
    }
    return body;
  }

  /** The market state's pairs priced, in slices (PAIRS_PER_SLICE) with the event loop served between them. */
  private async stateOf(key: string): Promise<State> {
    const market = this.market;
    const pairs: PairPrices[] = [];
    const base: string[] = [];
    const quote: string[] = [];
    const aggregate: string[] = [];
    for (const pair of market.pairs.values()) {
      if (pairs.length > 0 && pairs.length % PAIRS_PER_SLICE === 0)
        await new Promise<void>((resolve) => setImmediate(resolve));
      const adaPer = adaPerBase(market, pair.aggregate);
      pairs.push({
        pools: pair.pools.map((p) => ({
          id: p.poolId,
          price: poolPrice(p),
          tvlAda: adaPer > 0 ? poolTvl(p) * adaPer : undefined,
        })),
        ids: new Map(pair.pools.map((p) => [p.poolId, JSON.stringify(p.poolId)])),
      });
      base.push(pair.base.unit);
      quote.push(pair.quote.unit);
      aggregate.push(pair.aggregate.poolId);
    }
    const fixed = `"base":${JSON.stringify(base)},"quote":${JSON.stringify(quote)},"aggregate":${JSON.stringify(aggregate)}`;
    return { key, pairs, fixed: Buffer.from(fixed, 'utf8') };
  }

  /** The body of `Spreads` for `minTvl`: its fixed columns as made once, the four others serialised now. */
  private filtered(state: State, minTvl: number): Buffer {
    const n = state.pairs.length;
    const percent = new Array<string>(n);
    const counts = new Array<number>(n);
    const low = new Array<string>(n);
    const high = new Array<string>(n);
    state.pairs.forEach((pair, i) => {
      const spread = spreadOf(pair.pools, minTvl);
      percent[i] = JSON.stringify(spread.percent);
      counts[i] = spread.pools;
      low[i] = spread.low === null ? 'null' : (pair.ids.get(spread.low) ?? JSON.stringify(spread.low));
      high[i] = spread.high === null ? 'null' : (pair.ids.get(spread.high) ?? JSON.stringify(spread.high));
    });
    const tail = `,"spread_percent":[${percent.join(',')}],"pools":[${counts.join(',')}],"low":[${low.join(',')}],"high":[${high.join(',')}]}`;
    return Buffer.concat([
      Buffer.from(`{"s":"ok","min_tvl":${JSON.stringify(minTvl)},`, 'utf8'),
      state.fixed,
      Buffer.from(tail, 'utf8'),
    ]);
  }
}
