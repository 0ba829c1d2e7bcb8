import type { SimState, SimStateStore } from '../store/ports';
import type { MarketSpec } from './generate';
import type { Ingestor } from './ingest';
import { unitScale, type Market, type Pool } from './model';
import { Random } from './random';

/**
 * The embedded market's trading. Every token has a latent fair price in ADA that wanders (a random
 * walk with occasional jumps); traders swap against pools (x*y=k with the pool's fee) and arbitrageurs
 * pull pools back towards the fair price, so the pools of a pair stay close. Deeper pools trade more.
 * A block comes about every 20 s; the trades of a block share its block_time.
 *
 * Determinism: a block's randomness depends only on (seed, height), and the state (fair prices,
 * reserves, clock) is saved with the trades of every commit, so a restart continues exactly as an
 * uninterrupted run would have.
 */

export interface SimulatorOptions {
  readonly seed: number;
  /** Mean trades per block. */
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
  readonly baseToken: number;
  readonly quoteToken: number;
}

/** A forced block's trades all on one pool's pair (test control): `trades` of them, exactly. */
export interface ForcedTrades {
  /** A DEX pool (its trades land there) or an Aggregate pool (on the pair's DEX pools), by pool ID. */
  readonly pool: string;
  readonly trades: number;
}

const DAY = 86_400;
/** Jumps of the fair price: expected count per token per day, and their size (log scale). */
const JUMPS_PER_DAY = 0.15;
const JUMP_SIZE = 0.08;
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

export class Simulator {
  private readonly simPools: SimPool[] = [];
  /** The pools a forced block may target, by pool ID: a DEX pool itself, an Aggregate its pair's pools. */
  private readonly targets = new Map<string, SimPool[]>();
  private readonly chooser: AliasTable;
  private readonly volatility: Float64Array;
  /** Log fair price in ADA, and the time it was last advanced to, per spec token. */
  private fairLog: Float64Array;
  private fairTime: Float64Array;
  private height = 0;
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
    this.volatility = Float64Array.from(spec.tokens, (t) => t.dailyVolatility);
    this.fairLog = Float64Array.from(spec.tokens, (t) => Math.log(t.priceAda));
    this.fairTime = new Float64Array(spec.tokens.length);
    const weights: number[] = [];
    for (const poolSpec of spec.pools) {
      const pool = market.pools.get(poolSpec.poolId);
      const baseToken = tokenIndex.get(poolSpec.baseUnit);
      const quoteToken = tokenIndex.get(poolSpec.quoteUnit);
      if (!pool || baseToken === undefined || quoteToken === undefined) continue;
      // Pairs that hold imported pools carry real history: simulated trades there would interleave
      // with it out of order in the pair's Aggregate series, so the simulator leaves them alone.
      if (pool.pair.pools.some((p) => !p.simulated)) continue;
      const sim = { pool, baseToken, quoteToken };
      this.simPools.push(sim);
      this.targets.set(pool.poolId, [sim]);
      const aggregate = this.targets.get(pool.pair.aggregate.poolId);
      if (aggregate) aggregate.push(sim);
      else this.targets.set(pool.pair.aggregate.poolId, [sim]);
      // Deeper pools trade more (sub-linearly, so the tail still trades now and then).
      weights.push(
        ((2 * poolSpec.baseReserve * Math.exp(this.fairLog[baseToken] ?? 0)) / 10 ** pool.pair.base.decimals) ** 0.75,
      );
    }
    if (this.simPools.length === 0) throw new Error('the simulator has no pools');
    this.chooser = new AliasTable(weights);
  }

  /** Sets the start of history on a fresh market (before any block). */
  async startAt(time: number): Promise<void> {
    if (this.height > 0) throw new Error('the simulator has already produced blocks');
    this.nextBlockTime = Math.floor(time);
    this.fairTime.fill(this.nextBlockTime);
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
    let count = target?.count ?? random.poisson(this.options.tradesPerBlock);
    if (atLeastOne) count = Math.max(1, count);
    let traded = 0;
    for (let i = 0; i < count; i++) {
      const sim = target ? target.pools[random.int(target.pools.length)] : this.simPools[this.chooser.sample(random)];
      if (sim && this.trade(sim, blockTime, random, `sim:${this.height}:${i}`)) traded++;
    }
    this.height++;
    this.lastBlockTime = blockTime;
    this.nextBlockTime = blockTime + Math.max(1, Math.round(random.exponential(this.meanBlockSeconds)));
    return traded;
  }

  /** Advances a token's fair price to `time` (lazily: only tokens that trade are ever advanced). */
  private fair(token: number, time: number, random: Random): number {
    const dt = time - (this.fairTime[token] ?? time);
    if (dt > 0) {
      const days = dt / DAY;
      let step = (this.volatility[token] ?? 0) * Math.sqrt(days) * random.normal();
      if (random.chance(1 - Math.exp(-JUMPS_PER_DAY * days))) step += JUMP_SIZE * random.normal();
      this.fairLog[token] = (this.fairLog[token] ?? 0) + step;
      this.fairTime[token] = time;
    }
    return Math.exp(this.fairLog[token] ?? 0);
  }

  /** One swap against the pool; false when none fits (an empty pool, a swap the arithmetic refuses). */
  private trade(sim: SimPool, blockTime: number, random: Random, eventId: string): boolean {
    const { pool } = sim;
    const { base, quote } = pool.pair;
    const x = pool.baseReserve;
    const y = pool.quoteReserve;
    if (x <= 0 || y <= 0) return false;
    const baseAda = this.fair(sim.baseToken, blockTime, random);
    const fairPrice = this.fair(sim.quoteToken, blockTime, random) / baseAda;
    const baseScale = unitScale(base.decimals);
    const quoteScale = unitScale(quote.decimals);
    const price = x / baseScale / (y / quoteScale);
    const fee = pool.feeBps / 10_000;
    const deviation = Math.log(price / fairPrice);

    let baseIn = 0;
    let quoteIn = 0;
    if (Math.abs(deviation) > fee + 0.002 && random.chance(0.8)) {
      // Arbitrage: swap until the pool's price is back at the edge of the fee band around fair.
      const target = fairPrice * Math.exp(Math.sign(deviation) * fee);
      const ratio = (target * baseScale) / quoteScale;
      const k = x * y;
      const xTarget = Math.sqrt(k * ratio);
      if (xTarget > x) baseIn = (xTarget - x) / (1 - fee);
      else quoteIn = (Math.sqrt(k / ratio) - y) / (1 - fee);
    } else {
      // A trader: size in ADA is log-normal (median ~120 ADA), capped by the pool's depth;
      // direction leans towards the fair price.
      const sizeBase = Math.min((Math.exp(Math.log(120) + 1.3 * random.normal()) / baseAda) * baseScale, x * 0.04);
      const buyProbability = Math.min(0.8, Math.max(0.2, 0.5 - deviation * 4));
      if (random.chance(buyProbability)) baseIn = sizeBase;
      else quoteIn = (sizeBase / x) * y;
    }

    let newX: number;
    let newY: number;
    let volumeRaw: number;
    if (baseIn > 0) {
      const out = (y * baseIn * (1 - fee)) / (x + baseIn * (1 - fee));
      newX = x + baseIn;
      newY = y - out;
      volumeRaw = baseIn;
    } else if (quoteIn > 0) {
      const out = (x * quoteIn * (1 - fee)) / (y + quoteIn * (1 - fee));
      newX = x - out;
      newY = y + quoteIn;
      volumeRaw = out;
    } else {
      return false;
    }
    if (!(newX > 0 && newY > 0) || !Number.isFinite(newX) || !Number.isFinite(newY)) return false;
    this.ingestor.swap(pool, newX, newY, blockTime, volumeRaw, eventId, { newId: true });
    return true;
  }

  private state(): SimState {
    const blob = Buffer.alloc((this.fairLog.length * 2 + 1) * 8);
    const view = new Float64Array(blob.buffer, blob.byteOffset, this.fairLog.length * 2 + 1);
    view.set(this.fairLog, 0);
    view.set(this.fairTime, this.fairLog.length);
    view[this.fairLog.length * 2] = this.lastBlockTime;
    return { height: this.height, nextBlockTime: this.nextBlockTime, fair: blob };
  }

  private restore(row: SimState | undefined): void {
    if (!row) return;
    const n = this.fairLog.length;
    if (row.fair.byteLength !== (n * 2 + 1) * 8)
      throw new Error('the saved simulator state does not match this market');
    const view = new Float64Array(
      row.fair.buffer.slice(row.fair.byteOffset, row.fair.byteOffset + row.fair.byteLength),
    );
    this.fairLog = view.slice(0, n);
    this.fairTime = view.slice(n, 2 * n);
    this.lastBlockTime = view[2 * n] ?? 0;
    this.height = row.height;
    this.nextBlockTime = row.nextBlockTime;
  }
}
