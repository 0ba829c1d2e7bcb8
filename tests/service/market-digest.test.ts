import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketDigest, storedTrades } from '../support/market';
import { createTestService, type TestService } from '../support/service';

/**
 * The embedded market is a function of its seed: however the start builds it (bulk load, bars folded
 * as the trades are made, writes on another thread), the same seed and clock give the same tokens,
 * pairs, pools, reserves, trades, bars and simulator state, to the bit. The digests below were
 * recorded from the code before the first start was made faster (commit f898428), where the backfill
 * committed trades alone and then built every bar from the stored trades in one pass.
 */
const RECORDED = {
  /** A first start: 3 days backfilled over 300 pools, seed 11. */
  backfill: 'be58268d87c1ead41c6721b6353c15d97053312192dc2c85487706b8a6cd74ed',
  /** The same data directory started again 7 hours later: the catch-up folds bars as it commits. */
  catchUp: '77e40510a2b9747dd9526de00528585cd4e7df581b881a6cf2e5363de6f9cf1c',
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
