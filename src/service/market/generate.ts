import { createHash } from 'node:crypto';
import { ADA_DECIMALS, ADA_TICKER, ADA_UNIT } from '../../shared/id-rules';
import { DEX_GROUPS, type DexGroup } from '../../shared/groups';
import { arbitrageBand } from './arbitrage';
import { CATALOG, CATALOG_TOKEN_PAIRS } from './catalog';
import { constantProduct } from './pool-pricing';
import { Random } from './random';

/** What drives a token's price (docs/decisions.md: the figures and where they come from). */
export type TokenKind = 'ada' | 'stablecoin' | 'large' | 'small';

/**
 * Deterministic generation of the embedded market: tokens (the real catalog, then a generated long
 * tail) and constant-product pools over the DEX groups. Same (seed, poolCount) -> same market.
 */

export interface TokenSpec {
  readonly unit: string;
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
  /** What drives its fair price (fair-value.ts). */
  readonly kind: TokenKind;
  /** Fair price in ADA per whole token at the start of history. */
  readonly priceAda: number;
  /** Daily volatility (log) of the token's own move beside ADA's; 0 for ADA and stablecoins. */
  readonly dailyVolatility: number;
  /** Whether the token gets a generated logo (some tokens have none). */
  readonly hasLogo: boolean;
}

export interface PoolSpec {
  readonly poolId: string;
  readonly group: DexGroup;
  readonly baseUnit: string;
  readonly quoteUnit: string;
  /** Fee in basis points (30 = 0.3 %). */
  readonly feeBps: number;
  /** Reserves in raw (smallest) units. */
  readonly baseReserve: number;
  readonly quoteReserve: number;
}

export interface MarketSpec {
  readonly tokens: readonly TokenSpec[];
  /** In creation order: the order numbers the pools of a pair within a group (Pool1, Pool2, ...). */
  readonly pools: readonly PoolSpec[];
}

/** Default fee and share of listings of each DEX group. */
export const DEX_PROFILE: Readonly<Record<DexGroup, { readonly feeBps: readonly number[]; readonly share: number }>> = {
  Minswap: { feeBps: [30], share: 0.12 },
  MinswapV2: { feeBps: [30, 30, 30, 50, 100], share: 0.26 },
  SundaeSwap: { feeBps: [30], share: 0.07 },
  SundaeSwapV3: { feeBps: [5, 30, 30, 100], share: 0.1 },
  WingRiders: { feeBps: [35], share: 0.07 },
  WingRidersV2: { feeBps: [35], share: 0.08 },
  Spectrum: { feeBps: [30, 30, 100], share: 0.06 },
  Splash: { feeBps: [30, 30, 50], share: 0.1 },
  MuesliSwap: { feeBps: [30], share: 0.08 },
  VyFi: { feeBps: [30], share: 0.06 },
};

/** At most this many pools per pair (every DEX once, plus a few second pools). */
const MAX_POOLS_PER_PAIR = DEX_GROUPS.length + 3;

/** Pools per token of the generated market (17,600 pools -> about 6,300 tokens). */
const POOLS_PER_TOKEN = 2.8;

export const ADA_TOKEN: TokenSpec = {
  unit: ADA_UNIT,
  ticker: ADA_TICKER,
  name: 'Cardano',
  decimals: ADA_DECIMALS,
  kind: 'ada',
  priceAda: 1,
  dailyVolatility: 0,
  hasLogo: true,
};

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The stable pool ID of a pair's Aggregate pool: derived from the pair only (decisions "Aggregate"). */
export function aggregatePoolId(baseUnit: string, quoteUnit: string): string {
  return sha256Hex(`aggregate:${baseUnit}:${quoteUnit}`).slice(0, 56);
}

const SYLLABLES = [
  'ka',
  'zo',
  'mi',
  'ru',
  'te',
  'no',
  'sa',
  'vi',
  'lo',
  'da',
  'xe',
  'po',
  'qu',
  'fi',
  'ge',
  'bu',
  'ny',
  'ha',
  'ji',
  'wo',
  'ce',
  'yu',
  'tra',
  'ble',
  'spi',
  'kro',
  'dra',
  'glo',
];
const SUFFIXES = [
  'Token',
  'Coin',
  'Finance',
  'Protocol',
  'DAO',
  'Network',
  'Swap',
  'Labs',
  'Inu',
  'Verse',
  'AI',
  'Cash',
];

function asciiHex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

function generateTokens(random: Random, count: number): TokenSpec[] {
  const tokens: TokenSpec[] = CATALOG.map((t) => ({
    unit: t.policyId + t.assetName,
    ticker: t.ticker,
    name: t.name,
    decimals: t.decimals,
    kind: t.kind,
    priceAda: t.priceAda,
    dailyVolatility: t.dailyVolatility,
    hasLogo: true,
  }));
  const tickers = new Set(tokens.map((t) => t.ticker.toUpperCase()));
  tickers.add(ADA_TICKER);
  while (tokens.length < count) {
    let word = '';
    const syllables = 2 + random.int(2);
    for (let i = 0; i < syllables; i++) word += random.pick(SYLLABLES);
    let ticker = word.slice(0, 3 + random.int(4)).toUpperCase();
    if (tickers.has(ticker)) ticker = `${ticker}${random.int(90) + 10}`;
    if (tickers.has(ticker)) continue;
    tickers.add(ticker);
    const display = word.charAt(0).toUpperCase() + word.slice(1);
    const name = random.chance(0.3) ? display : `${display} ${random.pick(SUFFIXES)}`;
    // Some tokens use CIP-68 fungible names (label 333 = 0014df10).
    const assetName = (random.chance(0.12) ? '0014df10' : '') + asciiHex(ticker);
    const decimalsRoll = random.float();
    const decimals = decimalsRoll < 0.6 ? 6 : decimalsRoll < 0.85 ? 0 : decimalsRoll < 0.95 ? 8 : 4;
    // Log-uniform fair price, skewed towards small prices; tokens with 0 decimals tend to be meme-priced.
    const exponent = decimals === 0 ? -8 + random.float() * 6 : -5 + random.float() * 5.5;
    tokens.push({
      unit: random.hex(28) + assetName,
      ticker,
      name,
      decimals,
      kind: 'small',
      priceAda: Number((10 ** exponent).toPrecision(4)),
      dailyVolatility: 0.035 + random.float() * 0.065,
      hasLogo: random.chance(0.8),
    });
  }
  return tokens;
}

interface PairPlan {
  readonly base: TokenSpec;
  readonly quote: TokenSpec;
  /** ADA value of the pair's whole TVL. */
  readonly depthAda: number;
  readonly groups: Map<DexGroup, number>;
}

function pickGroup(random: Random): DexGroup {
  let roll = random.float();
  for (const group of DEX_GROUPS) {
    roll -= DEX_PROFILE[group].share;
    if (roll < 0) return group;
  }
  return 'MinswapV2';
}

/** Generates the market for a seed; `poolCount` DEX pools (Aggregate pools come on top, one per pair). */
export function generateMarket(seed: number, poolCount: number): MarketSpec {
  const random = new Random(seed, 0x6d61726b);
  const tokenCount = Math.max(CATALOG.length, Math.round(poolCount / POOLS_PER_TOKEN));
  const tokens = generateTokens(random, tokenCount);
  const byTicker = new Map(tokens.map((t) => [t.ticker, t]));

  const catalogDepth = new Map(CATALOG.map((t) => [t.ticker, t.depthAda]));
  const pairs: PairPlan[] = tokens.map((quote) => ({
    base: ADA_TOKEN,
    quote,
    // A few deep markets, a long tail of dust.
    depthAda: catalogDepth.get(quote.ticker) ?? Math.min(2_000_000, 60 * random.pareto(0.75)),
    groups: new Map(),
  }));
  for (const [baseTicker, quoteTicker] of CATALOG_TOKEN_PAIRS) {
    const base = byTicker.get(baseTicker);
    const quote = byTicker.get(quoteTicker);
    if (base && quote) pairs.push({ base, quote, depthAda: 40_000 + random.float() * 400_000, groups: new Map() });
  }
  // A few token/token pairs in the generated long tail too. The same two tokens drawn twice make one
  // pair, not two (two would give their pools the same pool id). A draw that repeats a pair is skipped
  // after the same draws as any other, so a market without repeats is what it always was.
  const tokenPairCount = Math.round(poolCount * 0.01);
  const drawnPairs = new Set<string>();
  for (let i = 0; i < tokenPairCount && tokens.length > CATALOG.length + 2; i++) {
    const base = tokens[random.int(CATALOG.length)];
    const quote = tokens[CATALOG.length + random.int(tokens.length - CATALOG.length)];
    const depthAda = base && quote && base !== quote ? 50 + 500 * random.pareto(1.2) : 0;
    if (!base || !quote || base === quote || drawnPairs.has(`${base.unit}/${quote.unit}`)) continue;
    drawnPairs.add(`${base.unit}/${quote.unit}`);
    pairs.push({ base, quote, depthAda, groups: new Map() });
  }

  // Every pair gets one pool; the rest go to pairs in proportion to depth, so deep pairs are on many DEXs.
  const listings: { pair: PairPlan; group: DexGroup; n: number }[] = [];
  const list = (pair: PairPlan, group: DexGroup) => {
    const n = (pair.groups.get(group) ?? 0) + 1;
    pair.groups.set(group, n);
    listings.push({ pair, group, n });
  };
  for (const pair of pairs) if (listings.length < poolCount) list(pair, pickGroup(random));

  const weights = pairs.map((p) => p.depthAda ** 0.7);
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) cumulative.push((total += w));
  while (listings.length < poolCount) {
    const target = random.float() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 0) < target) lo = mid + 1;
      else hi = mid;
    }
    const pair = pairs[lo];
    if (!pair) continue;
    let group = pickGroup(random);
    if (pair.groups.has(group)) {
      // Mostly a listing on another DEX; sometimes a second pool on the same one (Pool2), within a cap.
      const free = DEX_GROUPS.filter((g) => !pair.groups.has(g));
      const poolsOfPair = [...pair.groups.values()].reduce((a, b) => a + b, 0);
      if (free.length > 0 && !random.chance(0.1)) group = random.pick(free);
      else if (poolsOfPair >= MAX_POOLS_PER_PAIR || !random.chance(0.15)) continue;
    }
    list(pair, group);
  }

  // Split each pair's depth over its pools; later duplicates on one DEX are shallow.
  const shares = listings.map(
    ({ group, n }) => (DEX_PROFILE[group].share * Math.exp(random.normal() * 0.8)) / (n > 1 ? 8 * n : 1),
  );
  const shareSums = new Map<PairPlan, number>();
  listings.forEach(({ pair }, i) => shareSums.set(pair, (shareSums.get(pair) ?? 0) + (shares[i] ?? 0)));

  const pools: PoolSpec[] = listings.map(({ pair, group, n }, i) => {
    const share = (shares[i] ?? 0) / (shareSums.get(pair) ?? 1);
    const tvlAda = Math.max(10, pair.depthAda * share);
    const fairPrice = pair.quote.priceAda / pair.base.priceAda;
    const fees = DEX_PROFILE[group].feeBps;
    const feeBps = random.pick(fees);
    // Where arbitrage keeps the pool from the start (no warm-up): deep pools within their fee of the
    // fair price, dust further (an arbitrage there does not pay).
    const band = arbitrageBand(constantProduct, tvlAda / 2, feeBps / 10_000);
    const price = fairPrice * Math.exp(Math.min(band, 0.5) * Math.tanh(random.normal()));
    const baseWhole = tvlAda / 2 / pair.base.priceAda;
    const quoteWhole = baseWhole / price;
    return {
      poolId: sha256Hex(`pool:${seed}:${group}:${pair.base.unit}:${pair.quote.unit}:${n}`).slice(0, 56),
      group,
      baseUnit: pair.base.unit,
      quoteUnit: pair.quote.unit,
      feeBps,
      baseReserve: baseWhole * 10 ** pair.base.decimals,
      quoteReserve: quoteWhole * 10 ** pair.quote.decimals,
    };
  });

  return { tokens: [ADA_TOKEN, ...tokens], pools };
}
