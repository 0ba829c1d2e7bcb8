import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketDigest, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';

/**
 * The embedded market is a function of its seed: however the start builds it (bulk load, bars folded
 * as the trades are made, writes on another thread), the same seed and clock give the same tokens,
 * pairs, pools, reserves, trades, bars and simulator state, to the bit. The digests below were
 * recorded from the market of issue 40 (one ADA/USD rate, pegged stablecoins, arbitrage after each
 * block): a new market on purpose. Before it, they pinned the code of commit f898428 through every
 * change that made the first start faster (the backfill's bulk load, bars folded on another thread).
 */
const RECORDED = {
  /** A first start: 3 days backfilled over 300 pools, seed 11. */
  backfill: 'd91ba7c275f671644fef7ca7f13097416301b1d3c7d703e00781bffb864952ac',
  /** The same data directory started again 7 hours later: the catch-up folds bars as it commits. */
  catchUp: '1c9e64032c3b1757c836847c7785e65c8f28cf8091fe5d36112d97acb970943c',
} as const;

describe('the market of a seed', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService({ pools: 300, days: 3, seed: 11 });
  }, 60_000);
  afterAll(async () => service?.close());

  it('is the recorded market after the first start (backfill)', async () => {
    expect((await storedTrades(service.runtime)).length).toBeGreaterThan(15_000);
    expect(await marketDigest(service.runtime)).toBe(RECORDED.backfill);
  });

  it('is the recorded market after a restart catches up 7 hours', async () => {
    service.clock.advanceSeconds(7 * 3600);
    service = await service.restart();
    expect(service.runtime.startupTrades).toBeGreaterThan(1_000);
    expect(await marketDigest(service.runtime)).toBe(RECORDED.catchUp);
  });
});
