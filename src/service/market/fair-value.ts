import type { TokenKind, TokenSpec } from './generate';
import type { Random } from './random';

/**
 * The simulated market's fair prices: what a token is worth, which traders lean towards and
 * arbitrageurs bring the pools back to. One ADA/USD rate moves the whole market (a random walk, ADA's
 * daily volatility); every token's price in USD follows it with its kind's beta plus a walk of its own
 * (rare jumps on top); a dollar stablecoin's price in USD stays near 1 (a mean-reverting deviation
 * from its peg). A token's fair price in ADA is its USD price over ADA's.
 *
 * The rate moves at every block; a token's own walk is advanced lazily, when it trades (a random walk
 * and a mean-reverting process both have exact steps over any interval), so a block costs nothing for
 * the thousands of tokens that do not trade in it.
 */

/** ADA/USD at the start of history and its daily volatility (log). */
export const ADA_USD_START = 0.62;
export const ADA_USD_DAILY_VOLATILITY = 0.035;

/** A stablecoin's deviation from its peg (log): its spread around 1 USD and how fast it returns. */
export const PEG_DEVIATION = 0.005;
export const PEG_HALF_LIFE_DAYS = 1;

interface KindProfile {
  /** How much of ADA's move in USD the token's USD price follows (1: its ADA price does not move with it). */
  readonly beta: number;
  /** Jumps of the token's own price: expected count per day and size (log). */
  readonly jumpsPerDay: number;
  readonly jumpSize: number;
}

const KINDS: Readonly<Record<Exclude<TokenKind, 'ada' | 'stablecoin'>, KindProfile>> = {
  large: { beta: 1.15, jumpsPerDay: 0.04, jumpSize: 0.03 },
  small: { beta: 1.3, jumpsPerDay: 0.08, jumpSize: 0.05 },
};

const DAY = 86_400;
const PEG_RATE = Math.LN2 / PEG_HALF_LIFE_DAYS;

/** Float64 slots of the saved state besides the tokens' two each: the rate's log and its time. */
const HEADER = 2;

export class FairValues {
  private readonly kind: readonly TokenKind[];
  private readonly volatility: Float64Array;
  private readonly adaUsdStartLog = Math.log(ADA_USD_START);
  /** Log ADA/USD, and the time it was advanced to. */
  private adaUsdLog = this.adaUsdStartLog;
  private adaUsdTime = 0;
  /**
   * Per token: a stablecoin's log USD price; another token's log ADA price less its share of ADA's
   * move since the start ((beta − 1)·(log rate − log start rate)). And the time it was advanced to.
   */
  private level: Float64Array;
  private time: Float64Array;

  constructor(tokens: readonly TokenSpec[]) {
    this.kind = tokens.map((t) => t.kind);
    this.volatility = Float64Array.from(tokens, (t) => t.dailyVolatility);
    this.level = Float64Array.from(tokens, (t) =>
      t.kind === 'stablecoin' ? Math.log(t.priceAda * ADA_USD_START) : Math.log(t.priceAda),
    );
    this.time = new Float64Array(tokens.length);
  }

  /** Sets the start of history: every process starts at `time`. */
  startAt(time: number): void {
    this.adaUsdTime = time;
    this.time.fill(time);
  }

  /** USD per ADA now. */
  get adaUsd(): number {
    return Math.exp(this.adaUsdLog);
  }

  /** Advances ADA/USD to `time` (each block does, before its trades). */
  advanceMarket(time: number, random: Random): void {
    const dt = time - this.adaUsdTime;
    if (dt <= 0) return;
    this.adaUsdLog += ADA_USD_DAILY_VOLATILITY * Math.sqrt(dt / DAY) * random.normal();
    this.adaUsdTime = time;
  }

  /** A token's fair price in ADA per whole token at `time`, its own process advanced to it. */
  priceAda(token: number, time: number, random: Random): number {
    const kind = this.kind[token];
    if (kind === 'ada' || kind === undefined) return 1;
    const dt = time - (this.time[token] ?? time);
    let level = this.level[token] ?? 0;
    if (dt > 0) {
      const days = dt / DAY;
      if (kind === 'stablecoin') {
        // Ornstein-Uhlenbeck towards log 1 USD = 0, stepped exactly over dt.
        const decay = Math.exp(-PEG_RATE * days);
        level = level * decay + PEG_DEVIATION * Math.sqrt(1 - decay * decay) * random.normal();
      } else {
        const profile = KINDS[kind];
        level += (this.volatility[token] ?? 0) * Math.sqrt(days) * random.normal();
        if (random.chance(1 - Math.exp(-profile.jumpsPerDay * days))) level += profile.jumpSize * random.normal();
      }
      this.level[token] = level;
      this.time[token] = time;
    }
    if (kind === 'stablecoin') return Math.exp(level - this.adaUsdLog);
    return Math.exp(level + (KINDS[kind].beta - 1) * (this.adaUsdLog - this.adaUsdStartLog));
  }

  /** Float64 slots `save` writes. */
  get stateLength(): number {
    return HEADER + 2 * this.level.length;
  }

  /** Writes the state into `into` from `offset`. */
  save(into: Float64Array, offset: number): void {
    into[offset] = this.adaUsdLog;
    into[offset + 1] = this.adaUsdTime;
    into.set(this.level, offset + HEADER);
    into.set(this.time, offset + HEADER + this.level.length);
  }

  /** Reads a state `save` wrote. */
  restore(from: Float64Array, offset: number): void {
    const n = this.level.length;
    this.adaUsdLog = from[offset] ?? this.adaUsdStartLog;
    this.adaUsdTime = from[offset + 1] ?? 0;
    this.level = from.slice(offset + HEADER, offset + HEADER + n);
    this.time = from.slice(offset + HEADER + n, offset + HEADER + 2 * n);
  }

  /**
   * Reads the first format's state (each token's log ADA price and its time, every token a walk of
   * its own; `time` the last block's): the market goes on from those prices, ADA/USD at its start
   * value from `time` and each stablecoin from the USD price that gives it, pulled back to its peg.
   */
  restoreFirstFormat(logPrices: Float64Array, times: Float64Array, time: number): void {
    this.adaUsdLog = this.adaUsdStartLog;
    this.adaUsdTime = time;
    this.level = logPrices.map((log, i) => (this.kind[i] === 'stablecoin' ? log + this.adaUsdStartLog : log));
    this.time = times.slice();
  }
}
