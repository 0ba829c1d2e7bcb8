import { describe, expect, it } from 'vitest';
import { STABLECOINS } from '../../src/app/lib/stablecoins';
import { generateMarket } from '../../src/service/market/generate';
import { isAggregate, poolPrice } from '../../src/service/market/model';
import { runtimeInternals } from '../../src/service/runtime-internals';
import { ensureDefined } from '../support/ensure';
import { createTestService, TEST_MARKET, type TestService } from '../support/service';

const DAY = 86_400;

/** The ADA price of a stablecoin's Aggregate, in USD at the simulator's rate. */
function stablecoinUsd(service: TestService, ticker: string): number {
  const aggregate = ensureDefined(
    [...service.runtime.market.pools.values()].find(
      (p) => isAggregate(p) && p.pair.base.unit === '' && p.pair.quote.ticker === ticker,
    ),
    `the ADA pair of ${ticker}`,
  );
  return poolPrice(aggregate) * service.runtime.simulator.adaUsd;
}

/** Replaces the saved simulator state (as a commit of the simulator would). */
async function saveState(service: TestService, fair: Float64Array): Promise<void> {
  const { store, ingestor } = runtimeInternals(service.runtime);
  const saved = ensureDefined(await store.sim.load(), 'a saved state');
  await ingestor.commit({
    simState: { height: saved.height, nextBlockTime: saved.nextBlockTime, fair: Buffer.from(fair.buffer) },
  });
}

describe("the simulator's saved state", () => {
  it('goes on from a state of the first format (before issue 40), each stablecoin pulled back to its dollar', async () => {
    let service = await createTestService({ days: 1 });
    try {
      const tokens = generateMarket(TEST_MARKET.seed, TEST_MARKET.pools).tokens;
      const n = tokens.length;
      const last = service.runtime.simulator.lastBlockAt;
      // The first format: each token's log ADA price, the times they were advanced to, the last block's
      // time. The stablecoins as far apart as that market had taken them (issue 40: DJED 2.26 ADA, iUSD 0.99).
      const first = new Float64Array(2 * n + 1);
      tokens.forEach((token, i) => {
        const price = token.ticker === 'DJED' ? 2.26 : token.ticker === 'iUSD' ? 0.99 : token.priceAda;
        first[i] = Math.log(price);
        first[n + i] = last;
      });
      first[2 * n] = last;
      await saveState(service, first);
      const height = service.runtime.simulator.blockHeight;

      service.clock.advanceSeconds(4 * DAY);
      service = await service.restart();
      expect(service.runtime.simulator.blockHeight).toBeGreaterThan(height + (4 * DAY) / 20 / 1.5);
      // Four half-lives later: within a few percent of a dollar again (from 1.40 and 0.61 USD).
      for (const coin of STABLECOINS)
        expect(Math.abs(stablecoinUsd(service, coin.ticker) - 1), coin.ticker).toBeLessThan(0.1);
      // And saved again in the current format (its version first).
      const saved = ensureDefined(await runtimeInternals(service.runtime).store.sim.load());
      expect(new Float64Array(saved.fair.buffer.slice(saved.fair.byteOffset, saved.fair.byteOffset + 8))[0]).toBe(2);
    } finally {
      await service.close();
    }
  }, 120_000);

  it('refuses a state that is not of this market, saying so', async () => {
    const service = await createTestService({ days: 0.1 });
    let reopened: TestService | undefined;
    try {
      await saveState(service, new Float64Array(7));
      await expect(
        service.restart().then((s) => {
          reopened = s;
        }),
      ).rejects.toThrow('the saved simulator state does not match this market');
    } finally {
      await (reopened ?? service).close();
    }
  }, 120_000);
});
