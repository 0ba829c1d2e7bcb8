import type { SimState, SimStateStore } from '../store/ports';
import { ARBITRAGE_NOISE, arbitrageBand } from './arbitrage';
import { FairValues } from './fair-value';
import type { MarketSpec } from './generate';
import type { Ingestor } from './ingest';
import { unitScale, type Market, type Pool } from './model';
import { constantProduct, type PoolCurve } from './pool-pricing';
import { Random } from './random';

/**
 * The embedded market's trading. Every token has a fair price (fair-value.ts: one ADA/USD rate moves
 * them all, stablecoins stay pegged to the dollar); traders swap against pools (pool-pricing.ts) and,
 * after each block, arbitrageurs bring the pools of every pair that traded back within their fee band
 * around its fair price (arbitrage.ts), so the pools of a pair stay close. Deeper pools trade more.
 * A block comes about every 20 s; the trades of a block share its block_time.
 *
 * Determinism: a block's randomness depends only on (seed, height), and the state (fair prices, the
 * rate, the clock) is saved with the trades of every commit, so a restart continues exactly as an
 * uninterrupted run would have.
 */

export interface SimulatorOptions {
  readonly seed: number;
  /** Mean traders' swaps per block (the arbitrage after them comes on top). */
  readonly tradesPerBlock: number;
  /** Mean seconds between blocks. */
  readonly meanBlockSeconds?: number;
}

export interface SimulatorProgress {
  readonly blockTime: number;
  readonly from: number;
  readonly to: number;
  readonly trades: number;
}

interface SimPool {
  readonly pool: Pool;
  readonly pair: SimPair;
  readonly curve: PoolCurve;
}

/** A pair the simulator trades: its pools, its tokens (indexes in the spec). */
interface SimPair {
  readonly pools: SimPool[];
  readonly baseToken: number;
  readonly quoteToken: number;
  /** The last block it traded in, by `Simulator.blocksMade` (each pair is arbitraged once after a block). */
  tradedAt: number;
}

/** A forced block's trades all on one pool's pair (test control): `trades` of them, exactly. */
export interface ForcedTrades {
  /** A DEX pool (its trades land there) or an Aggregate pool (on the pair's DEX pools), by pool ID. */
  readonly pool: string;
  readonly trades: number;
}

/** A trader's median swap (ADA) on a pool holding TRADE_MEDIAN_RESERVE_ADA; it grows as the root of the depth. */
const TRADE_MEDIAN_ADA = 120;
const TRADE_MEDIAN_RESERVE_ADA = 15_000;
/** The share of traders an aggregator routes to the pair's best-priced pool (the rest trade on the pool they chose). */
const ROUTED_SHARE = 0.6;
/** Longest stretch of a backfill or catch-up without giving the event loop a turn (ms). */
const YIELD_EVERY_MS = 50;
/** Blocks produced between looks at the clock for that. */
const YIELD_CHECK_BLOCKS = 64;
/** Blocks per commit while catching up (live: one block per commit). */
const CATCH_UP_BLOCKS_PER_COMMIT = 4320;

/** Vose's alias table: O(1) sampling of an index with probability proportional to its weight. */
class AliasTable {
  private readonly prob: Float64Array;
  private readonly alias: Int32Array;

  constructor(weights: readonly number[]) {
    const n = weights.length;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const total = weights.reduce((a, b) => a + b, 0);
    const scaled = weights.map((w) => (w * n) / total);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop() as number;
      const l = large.pop() as number;
      this.prob[s] = scaled[s] as number;
      this.alias[s] = l;
      scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1;
      ((scaled[l] as number) < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.prob[i] = 1;
  }

  sample(random: Random): number {
    const i = random.int(this.prob.length);
    return random.float() < (this.prob[i] as number) ? i : (this.alias[i] as number);
  }
}

/** The saved state's format (its first float64): 2 since issue 40 (the first had no version). */
const STATE_VERSION = 2;
/** Float64 slots before the fair values: the version, the last block's time. */
const STATE_HEADER = 2;

export class Simulator {
  private readonly simPools: SimPool[] = [];
  /** The pools a forced block may target, by pool ID: a DEX pool itself, an Aggregate its pair's pools. */
  private readonly targets = new Map<string, SimPool[]>();
  private readonly chooser: AliasTable;
  private readonly fair: FairValues;
  private readonly tokenCount: number;
  private height = 0;
  /**
   * Blocks made by this process, never rewound (the height is, when a failed commit puts the state
   * back): marks which pairs traded in the block being made.
   */
  private blocksMade = 0;
  private nextBlockTime = 0;
  private lastBlockTime = 0;
  private readonly meanBlockSeconds: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Builds the simulator over a market, resumed from its saved state when there is one. */
  static async open(
    states: SimStateStore,
    market: Market,
    spec: MarketSpec,
    ingestor: Ingestor,
    options: SimulatorOptions,
  ): Promise<Simulator> {
    const simulator = new Simulator(states, market, spec, ingestor, options);
    simulator.restore(await states.load());
    return simulator;
  }

  private constructor(
    private readonly states: SimStateStore,
    market: Market,
    spec: MarketSpec,
    private readonly ingestor: Ingestor,
    private readonly options: SimulatorOptions,
  ) {
    this.meanBlockSeconds = options.meanBlockSeconds ?? 20;
    const tokenIndex = new Map(spec.tokens.map((t, i) => [t.unit, i]));
    this.fair = new FairValues(spec.tokens);
    this.tokenCount = spec.tokens.length;
    const pairs = new Map<string, SimPair>();
    const weights: number[] = [];
    for (const poolSpec of spec.pools) {
      const pool = market.pools.get(poolSpec.poolId);
      const baseToken = tokenIndex.get(poolSpec.baseUnit);
      const quoteToken = tokenIndex.get(poolSpec.quoteUnit);
      if (!pool || baseToken === undefined || quoteToken === undefined) continue;
      // Pairs that hold imported pools carry real history: simulated trades there would interleave
      // with it out of order in the pair's Aggregate series, so the simulator leaves them alone.
      if (pool.pair.pools.some((p) => !p.simulated)) continue;
      const pairId = pool.pair.aggregate.poolId;
      let pair = pairs.get(pairId);
      if (!pair) {
        pair = { pools: [], baseToken, quoteToken, tradedAt: -1 };
        pairs.set(pairId, pair);
      }
      const sim: SimPool = { pool, pair, curve: constantProduct };
      pair.pools.push(sim);
      this.simPools.push(sim);
      this.targets.set(pool.poolId, [sim]);
      this.targets.set(pairId, pair.pools);
      // Deeper pools trade more (sub-linearly, so the tail still trades now and then).
      const baseAda = (poolSpec.baseReserve * (spec.tokens[baseToken]?.priceAda ?? 0)) / 10 ** pool.pair.base.decimals;
      weights.push((2 * baseAda) ** 0.75);
    }
    if (this.simPools.length === 0) throw new Error('the simulator has no pools');
    this.chooser = new AliasTable(weights);
  }

  /** Sets the start of history on a fresh market (before any block). */
  async startAt(time: number): Promise<void> {
    if (this.height > 0) throw new Error('the simulator has already produced blocks');
    this.nextBlockTime = Math.floor(time);
    this.fair.startAt(this.nextBlockTime);
    await this.commit();
  }

  get started(): boolean {
    return this.nextBlockTime > 0;
  }

  get blockHeight(): number {
    return this.height;
  }

  /** Time of the last block produced (Unix seconds; 0 before the first). */
  get lastBlockAt(): number {
    return this.lastBlockTime;
  }

  /** Time of the next block (Unix seconds). */
  get nextBlockAt(): number {
    return this.nextBlockTime;
  }

  /** The simulated ADA/USD rate (USD per ADA) as of the last block: what the stablecoins are pegged to. */
  get adaUsd(): number {
    return this.fair.adaUsd;
  }

  /**
   * Produces every block due up to `time` (Unix seconds), committing every `blocksPerCommit` blocks.
   * Returns the number of trades produced.
   */
  async runUntil(
    time: number,
    onProgress?: (progress: SimulatorProgress) => void,
    blocksPerCommit = CATCH_UP_BLOCKS_PER_COMMIT,
  ): Promise<number> {
    const from = this.nextBlockTime;
    let trades = 0;
    let blocks = 0;
    let yielded = performance.now();
    while (this.nextBlockTime <= time) {
      trades += this.produceBlock(this.nextBlockTime);
      if (++blocks % blocksPerCommit === 0) {
        await this.commit();
        onProgress?.({ blockTime: this.nextBlockTime, from, to: time, trades });
      }
      // Producing blocks and a SQLite commit never wait: let the event loop in now and then, so the
      // server answers its probes and metrics during a backfill or catch-up of seconds.
      if (blocks % YIELD_CHECK_BLOCKS === 0 && performance.now() - yielded > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        yielded = performance.now();
      }
    }
    if (blocks % blocksPerCommit !== 0) await this.commit();
    onProgress?.({ blockTime: Math.min(this.nextBlockTime, time), from, to: time, trades });
    return trades;
  }

  /** Whether a forced block can trade this pool ID (a pool of a pair the simulator trades). */
  trades(poolId: string): boolean {
    return this.targets.has(poolId);
  }

  /**
   * Produces one block right now (at `time`, not before the last block), whatever the schedule says:
   * the test-only control that makes the market trade on demand. With `target`, the block's trades
   * are that many, all on the target's pair (benchmarks feeding one pair). Returns the number of trades.
   */
  async forceBlock(time: number, target?: ForcedTrades): Promise<number> {
    const pools = target === undefined ? undefined : this.targets.get(target.pool);
    if (target !== undefined && pools === undefined)
      throw new RangeError(`the simulator trades no pool ${target.pool}`);
    // One block at a time: a forced block waits for a live tick in progress, and the reverse.
    const run = this.busy.then(async () => {
      const blockTime = Math.max(Math.floor(time), this.lastBlockTime);
      const trades = this.produceBlock(blockTime, true, pools && target ? { pools, count: target.trades } : undefined);
      await this.commit();
      return trades;
    });
    this.busy = run.catch(() => undefined);
    return run;
  }

  /** The block production in progress (live tick or forced block): the next one waits for it. */
  private busy: Promise<unknown> = Promise.resolve();

  /**
   * Trades live: produces each block when the clock reaches it. A block whose commit fails (disk full,
   * a locked database) is reported and retried on the next tick from the last saved state.
   */
  start(nowSeconds: () => number, onError: (error: unknown) => void = () => {}): void {
    this.running = true;
    const tick = async () => {
      const run = this.busy.then(() => this.runUntil(nowSeconds(), undefined, 1));
      this.busy = run.catch(() => undefined);
      try {
        await run;
      } catch (error) {
        onError(error);
      }
      if (!this.running) return;
      const delayMs = Math.max(50, (this.nextBlockTime - nowSeconds()) * 1000);
      this.timer = setTimeout(() => void tick(), delayMs);
      this.timer.unref?.();
    };
    void tick();
  }

  /** Stops live trading; resolves once a block in progress is committed (or failed). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.busy;
  }

  private running = false;

  private async commit(): Promise<void> {
    try {
      await this.ingestor.commit({ simState: this.state() });
    } catch (error) {
      // The ingestor restored the reserves; go back to the saved state too, so the next run redoes the
      // lost blocks exactly as an uninterrupted run would have.
      this.restore(await this.states.load());
      throw error;
    }
  }

  private produceBlock(
    blockTime: number,
    atLeastOne = false,
    target?: { readonly pools: readonly SimPool[]; readonly count: number },
  ): number {
    const random = new Random(this.options.seed, this.height, 0x626c6b);
    this.fair.advanceMarket(blockTime, random);
    let count = target?.count ?? random.poisson(this.options.tradesPerBlock);
    if (atLeastOne) count = Math.max(1, count);
    let traded = 0;
    const pairs: SimPair[] = [];
    const block = ++this.blocksMade;
    for (let i = 0; i < count; i++) {
      const sim = target ? target.pools[random.int(target.pools.length)] : this.simPools[this.chooser.sample(random)];
      if (!sim || !this.trade(sim, blockTime, random, `sim:${this.height}:${i}`, target !== undefined)) continue;
      traded++;
      if (sim.pair.tradedAt !== block) {
        sim.pair.tradedAt = block;
        pairs.push(sim.pair);
      }
    }
    // A forced block on one pair is exactly its trades (a test's or a benchmark's control).
    let next = count;
    if (!target) for (const pair of pairs) next = this.arbitrage(pair, blockTime, random, next);
    traded += next - count;
    this.height++;
    this.lastBlockTime = blockTime;
    this.nextBlockTime = blockTime + Math.max(1, Math.round(random.exponential(this.meanBlockSeconds)));
    return traded;
  }

  /** The fair price of a pair (whole base per whole quote) and of its base in ADA, at `time`. */
  private fairOf(pair: SimPair, time: number, random: Random): { price: number; baseAda: number } {
    const baseAda = this.fair.priceAda(pair.baseToken, time, random);
    return { price: this.fair.priceAda(pair.quoteToken, time, random) / baseAda, baseAda };
  }

  /** A pool's price in whole base per whole quote. */
  private static priceOf(sim: SimPool): number {
    const { pool } = sim;
    return (
      (sim.curve.price(pool.baseReserve, pool.quoteReserve) * unitScale(pool.pair.quote.decimals)) /
      unitScale(pool.pair.base.decimals)
    );
  }

  /**
   * A trader's swap: on the pool drawn, or, for a share of traders (those an aggregator routes), on the
   * pool of the pair that gives the best price for it (not when the pool was `pinned`: asked for by name). False when none fits (an empty pool, a swap the
   * arithmetic refuses).
   */
  private trade(drawn: SimPool, blockTime: number, random: Random, eventId: string, pinned = false): boolean {
    if (drawn.pool.baseReserve <= 0 || drawn.pool.quoteReserve <= 0) return false;
    const fair = this.fairOf(drawn.pair, blockTime, random);
    const baseScale = unitScale(drawn.pool.pair.base.decimals);
    const deviation = Math.log(Simulator.priceOf(drawn) / fair.price);
    // Size in ADA is log-normal, larger on deeper pools (median 120 ADA on a pool holding 15,000 ADA,
    // 1,200 on one holding 1.5 million, as real swaps are), capped by the pool's depth; the direction
    // leans towards the fair price.
    const baseAda = (drawn.pool.baseReserve / baseScale) * fair.baseAda;
    const medianAda = TRADE_MEDIAN_ADA * Math.sqrt(baseAda / TRADE_MEDIAN_RESERVE_ADA);
    const sizeAda = medianAda * Math.exp(1.3 * random.normal());
    const buyProbability = Math.min(0.8, Math.max(0.2, 0.5 - deviation * 4));
    const baseIn = random.chance(buyProbability);
    // The draw is made whatever the pool, so a block's randomness does not depend on it; a pool asked for
    // by name (the test controls) is traded as asked.
    const routed = random.chance(ROUTED_SHARE);
    const sim = routed && !pinned ? Simulator.bestFor(drawn, baseIn) : drawn;
    const x = sim.pool.baseReserve;
    const sizeBase = Math.min((sizeAda * baseScale) / fair.baseAda, x * 0.04);
    return this.swap(sim, baseIn ? sizeBase : (sizeBase / x) * sim.pool.quoteReserve, baseIn, blockTime, eventId);
  }

  /** The pool of the drawn one's pair with the best price, fee included, for a swap of the base (or the quote) in. */
  private static bestFor(drawn: SimPool, baseIn: boolean): SimPool {
    let best = drawn;
    let bestPrice = Number.NaN;
    for (const sim of drawn.pair.pools) {
      if (sim.pool.baseReserve <= 0 || sim.pool.quoteReserve <= 0) continue;
      const fee = sim.pool.feeBps / 10_000;
      // Base in buys the quote: the lowest price after the fee; quote in sells it: the highest.
      const price = baseIn ? Simulator.priceOf(sim) / (1 - fee) : -Simulator.priceOf(sim) * (1 - fee);
      if (!(price >= bestPrice)) {
        best = sim;
        bestPrice = price;
      }
    }
    return best;
  }

  /**
   * Arbitrage after a block: each pool of the pair whose price is beyond the band arbitrage keeps it in
   * (arbitrage.ts) is swapped back to the edge of its fee band around the fair price. Event ids go on
   * from `next`; returns the next free one.
   */
  private arbitrage(pair: SimPair, blockTime: number, random: Random, next: number): number {
    const fair = this.fairOf(pair, blockTime, random);
    let id = next;
    for (const sim of pair.pools) {
      const { pool } = sim;
      if (pool.baseReserve <= 0 || pool.quoteReserve <= 0) continue;
      const deviation = Math.log(Simulator.priceOf(sim) / fair.price);
      const fee = pool.feeBps / 10_000;
      const baseAda = (pool.baseReserve / unitScale(pool.pair.base.decimals)) * fair.baseAda;
      if (!(Math.abs(deviation) > arbitrageBand(sim.curve, baseAda, fee))) continue;
      const left = Math.sign(deviation) * Math.max(0, fee + ARBITRAGE_NOISE * random.normal());
      const target =
        (fair.price * Math.exp(left) * unitScale(pool.pair.base.decimals)) / unitScale(pool.pair.quote.decimals);
      const { amountIn, baseIn } = sim.curve.inputToPrice(pool.baseReserve, pool.quoteReserve, target, fee);
      if (amountIn > 0 && this.swap(sim, amountIn, baseIn, blockTime, `sim:${this.height}:${id}`)) id++;
    }
    return id;
  }

  /** Swaps `amountIn` of the base (or the quote) into the pool and records the trade; false when it cannot. */
  private swap(sim: SimPool, amountIn: number, baseIn: boolean, blockTime: number, eventId: string): boolean {
    const { pool } = sim;
    const x = pool.baseReserve;
    const [newX, newY] = sim.curve.swap(x, pool.quoteReserve, amountIn, baseIn, pool.feeBps / 10_000);
    if (!(newX > 0 && newY > 0) || !Number.isFinite(newX) || !Number.isFinite(newY)) return false;
    const volumeRaw = baseIn ? amountIn : x - newX;
    if (!(volumeRaw > 0)) return false;
    this.ingestor.swap(pool, newX, newY, blockTime, volumeRaw, eventId, { newId: true });
    return true;
  }

  private state(): SimState {
    const view = new Float64Array(STATE_HEADER + this.fair.stateLength);
    view[0] = STATE_VERSION;
    view[1] = this.lastBlockTime;
    this.fair.save(view, STATE_HEADER);
    return { height: this.height, nextBlockTime: this.nextBlockTime, fair: Buffer.from(view.buffer) };
  }

  private restore(row: SimState | undefined): void {
    if (!row) return;
    const n = this.tokenCount;
    const view = new Float64Array(
      row.fair.buffer.slice(row.fair.byteOffset, row.fair.byteOffset + row.fair.byteLength),
    );
    if (view.length === STATE_HEADER + this.fair.stateLength && view[0] === STATE_VERSION) {
      this.lastBlockTime = view[1] ?? 0;
      this.fair.restore(view, STATE_HEADER);
    } else if (view.length === 2 * n + 1) {
      // The first format: each token's log ADA price, their times, the last block's time.
      this.lastBlockTime = view[2 * n] ?? 0;
      this.fair.restoreFirstFormat(view.slice(0, n), view.slice(n, 2 * n), this.lastBlockTime);
    } else {
      throw new Error('the saved simulator state does not match this market');
    }
    this.height = row.height;
    this.nextBlockTime = row.nextBlockTime;
  }
}
