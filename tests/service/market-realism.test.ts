import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STABLECOINS } from '../../src/app/lib/stablecoins';
import { usdPerAda } from '../../src/app/lib/usd';
import { DEFAULT_POOLS, DEFAULT_SEED } from '../../src/service/config';
import { CATALOG } from '../../src/service/market/catalog';
import { isAggregate, type Pool } from '../../src/service/market/model';
import type { TradeRecord } from '../../src/service/store/ports';
import { storedTrades, wholeTrades } from '../support/market';
import {
  compareWithReal,
  hourlySpreads,
  MarketHistory,
  median,
  quantile,
  realRecords,
  realSwaps,
  simulatedRecords,
  simulatedSwaps,
  standardDeviation,
} from '../support/market-realism';
import { hasPrise } from '../support/prise';
import { createTestService, type TestService } from '../support/service';

/**
 * The default market (17,600 pools, 30 days, the default seed) as a trader sees it (issue 40): the
 * dollar stablecoins at a dollar, the pools of a liquid pair within their fees of each other, no
 * warm-up at the start of the history, tokens moving with ADA, and trading that looks like the real
 * market's (prise's mainnet swaps, read at test time). Built once, in memory.
 */

const DAYS = 30;
const HOUR = 3600;
/** Pairs whose Aggregate holds this much (valued in ADA) are the liquid ones the spreads are judged on. */
const LIQUID_PAIR_ADA = 100_000;
/** Pools count towards a spread from this TVL (valued in ADA), as `/api/x/spreads` counts them by default. */
const SPREAD_POOL_ADA = 10_000;

/** Hourly log returns of an Aggregate over [from, to). */
function hourlyReturns(history: MarketHistory, aggregate: Pool, from: number, to: number): number[] {
  const closes: number[] = [];
  for (let t = from; t <= to; t += HOUR) closes.push(history.aggregateAt(aggregate, t).price);
  return closes.slice(1).map((c, i) => Math.log(c / (closes[i] as number)));
}

describe('the default market', () => {
  let service: TestService;
  let trades: TradeRecord[];
  let history: MarketHistory;
  let from: number;
  let to: number;

  beforeAll(async () => {
    service = await createTestService({ pools: DEFAULT_POOLS, days: DAYS, seed: DEFAULT_SEED, dataDir: ':memory:' });
    trades = wholeTrades(service.runtime.market, await storedTrades(service.runtime));
    history = new MarketHistory(service.runtime.market, trades);
    to = service.clock.seconds();
    from = to - DAYS * 86_400;
  }, 900_000);
  afterAll(async () => service?.close());

  /** The ADA pair's Aggregate of a token, by ticker. */
  const aggregateOf = (ticker: string): Pool => {
    const token = [...service.runtime.market.tokens.values()].find((t) => t.ticker === ticker);
    const aggregate = token && history.adaPair(token.unit);
    if (!aggregate) throw new Error(`no ADA pair for ${ticker}`);
    return aggregate;
  };

  /** USD per ADA at a time, as the app reads it from the stablecoins' Aggregates. */
  const adaUsdAt = (time: number): number => {
    const quotes = STABLECOINS.map((coin) => aggregateOf(coin.ticker)).map((a) => history.aggregateAt(a, time));
    const rate = usdPerAda(quotes);
    if (rate === undefined) throw new Error('no stablecoin quote');
    return rate;
  };

  it('keeps each dollar stablecoin within 3 % of 1 USD at every hour, pegged to the simulated ADA/USD', () => {
    let worst = { ticker: '', hour: 0, usd: 1 };
    for (let t = from + HOUR; t <= to; t += HOUR) {
      const rate = adaUsdAt(t);
      for (const coin of STABLECOINS) {
        const usd = history.aggregateAt(aggregateOf(coin.ticker), t).price * rate;
        if (Math.abs(usd - 1) > Math.abs(worst.usd - 1)) worst = { ticker: coin.ticker, hour: (t - from) / HOUR, usd };
      }
    }
    expect(Math.abs(worst.usd - 1), `${worst.ticker} at ${worst.usd} USD, hour ${worst.hour}`).toBeLessThan(0.03);
    // The rate the app reads from them is the simulator's own, within the stablecoins' spread.
    expect(Math.abs(Math.log(adaUsdAt(to + 1) / service.runtime.simulator.adaUsd))).toBeLessThan(0.03);
  }, 120_000);

  it('keeps the pools of a liquid pair within their fees of each other: median spread <= 1 %, p95 <= 3 % over the 30 days', () => {
    const spreads = hourlySpreads(service.runtime.market, trades, from, to, LIQUID_PAIR_ADA, SPREAD_POOL_ADA);
    const percents = spreads.map((s) => s.percent);
    // Some 50 pairs at every hour.
    expect(new Set(spreads.map((s) => s.pair)).size).toBeGreaterThan(40);
    expect(spreads.length).toBeGreaterThan(40 * DAYS * 24);
    const figures = `median ${median(percents).toFixed(2)} %, p95 ${quantile(percents, 0.95).toFixed(2)} %`;
    expect(median(percents), figures).toBeLessThanOrEqual(1);
    expect(quantile(percents, 0.95), figures).toBeLessThanOrEqual(3);
  }, 120_000);

  it("starts as it goes on, within the model's own tail: no liquid pair makes its largest hourly move in the first hours, no large cap moves 10 % in an hour, no small cap 25 %", () => {
    const first = 6;
    const liquid = [...service.runtime.market.pools.values()].filter(
      (p) => isAggregate(p) && p.pair.base.unit === '' && history.aggregateAt(p, from + HOUR).tvl >= LIQUID_PAIR_ADA,
    );
    expect(liquid.length).toBeGreaterThan(30);
    const early: string[] = [];
    const catalog = new Set(CATALOG.map((t) => t.ticker));
    const largest = { large: { ticker: '', hour: 0, move: 0 }, small: { ticker: '', hour: 0, move: 0 } };
    for (const aggregate of liquid) {
      const returns = hourlyReturns(history, aggregate, from, to).map(Math.abs);
      const start = Math.max(...returns.slice(0, first));
      if (start >= Math.max(...returns.slice(first))) early.push(`${aggregate.pair.quote.ticker} ${start}`);
      const move = Math.max(...returns);
      const kind = catalog.has(aggregate.pair.quote.ticker) ? 'large' : 'small';
      if (move > largest[kind].move)
        largest[kind] = { ticker: aggregate.pair.quote.ticker, hour: returns.indexOf(move), move };
    }
    // Were the first hours drawn from the same process, each pair's record would fall in them with a
    // chance of 6 in 720: about 0.3 pairs of 40.
    expect(early.length, early.join(', ')).toBeLessThanOrEqual(2);
    // A large cap moves about 0.7 % in an hour, a jump of its own a few percent (3 %); a small cap's
    // jumps are larger (5 %, the generated tail's own walk up to 10 % a day): a jump of three of its
    // standard deviations is a 15 % hour, five would be beyond the model's tail.
    const { large, small } = largest;
    expect(large.move, `${large.ticker} at hour ${large.hour}`).toBeLessThan(0.1);
    expect(small.move, `${small.ticker} at hour ${small.hour}`).toBeLessThan(0.25);
  }, 120_000);

  it('moves tokens with ADA, each kind with a daily volatility of its own (in USD)', () => {
    const days = Array.from({ length: DAYS }, (_, d) => from + (d + 1) * 86_400 - 60);
    const adaUsd = days.map(adaUsdAt);
    const adaReturns = adaUsd.slice(1).map((r, i) => Math.log(r / (adaUsd[i] as number)));
    const usdReturns = (aggregate: Pool) => {
      const usd = days.map((t, i) => history.aggregateAt(aggregate, t).price * (adaUsd[i] as number));
      return usd.slice(1).map((p, i) => Math.log(p / (usd[i] as number)));
    };
    const correlation = (a: readonly number[], b: readonly number[]) => {
      const ma = a.reduce((x, y) => x + y, 0) / a.length;
      const mb = b.reduce((x, y) => x + y, 0) / b.length;
      let ab = 0;
      for (let i = 0; i < a.length; i++) ab += ((a[i] as number) - ma) * ((b[i] as number) - mb);
      return ab / (a.length - 1) / (standardDeviation(a) * standardDeviation(b));
    };
    const catalog = new Set(CATALOG.map((t) => t.ticker));
    const stable = new Set(STABLECOINS.map((c) => c.ticker));
    const liquid = [...service.runtime.market.pools.values()].filter(
      (p) => isAggregate(p) && p.pair.base.unit === '' && history.aggregateAt(p, to).tvl >= LIQUID_PAIR_ADA,
    );
    const kinds = { stablecoin: [] as Pool[], large: [] as Pool[], small: [] as Pool[] };
    for (const aggregate of liquid) {
      const ticker = aggregate.pair.quote.ticker;
      kinds[stable.has(ticker) ? 'stablecoin' : catalog.has(ticker) ? 'large' : 'small'].push(aggregate);
    }
    expect(kinds.large.length).toBeGreaterThan(10);
    expect(kinds.small.length).toBeGreaterThan(5);
    const volatility = (pools: readonly Pool[]) => median(pools.map((p) => standardDeviation(usdReturns(p))));
    const figures = `ADA ${standardDeviation(adaReturns)}, stablecoins ${volatility(kinds.stablecoin)}, large caps ${volatility(kinds.large)}, small caps ${volatility(kinds.small)}`;
    // ADA moves 2-6 % a day; a stablecoin well under 1 %; a large cap 3-8 %; a small cap more.
    expect(standardDeviation(adaReturns), figures).toBeGreaterThan(0.02);
    expect(standardDeviation(adaReturns), figures).toBeLessThan(0.06);
    expect(volatility(kinds.stablecoin), figures).toBeLessThan(0.01);
    expect(volatility(kinds.large), figures).toBeGreaterThan(0.03);
    expect(volatility(kinds.large), figures).toBeLessThan(0.08);
    expect(volatility(kinds.small), figures).toBeGreaterThan(volatility(kinds.large));
    expect(volatility(kinds.small), figures).toBeLessThan(0.15);
    // Large caps follow ADA in USD: most of their daily move is ADA's.
    const correlations = kinds.large.map((p) => correlation(usdReturns(p), adaReturns));
    expect(median(correlations), figures).toBeGreaterThan(0.5);
  }, 120_000);

  it.skipIf(!hasPrise)(
    'trades like the real market: every figure within a factor of 2 of real swaps',
    () => {
      const comparisons = compareWithReal(
        { swaps: realSwaps(), records: realRecords() },
        {
          swaps: simulatedSwaps(service.runtime.market, trades),
          records: simulatedRecords(service.runtime.market, trades, from),
        },
      );
      expect(comparisons).toHaveLength(4);
      for (const c of comparisons) {
        const line = `${c.name}: real ${c.real} (${c.realCount}), simulated ${c.simulated} (${c.simulatedCount})`;
        expect(c.realCount, line).toBeGreaterThanOrEqual(5);
        expect(c.simulated / c.real, line).toBeGreaterThanOrEqual(0.5);
        expect(c.simulated / c.real, line).toBeLessThanOrEqual(2);
      }
    },
    120_000,
  );
});
