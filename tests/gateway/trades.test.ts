import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradesResponseSchema } from '../../src/shared/api/extensions';
import { busiestPools, forceTradesOn } from '../support/market';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** /gw/v1/trades forwards our /api/x/trades live (never cached: a new trade shows at once). */
let tp: TestPlatform;
beforeAll(async () => {
  tp = await createTestPlatform({ pools: 80, days: 0.3 });
});
afterAll(async () => tp.close());

describe('GET /gw/v1/trades', () => {
  it('answers the service’s trades, and a new trade at once', async () => {
    const { aggregate } = await busiestPools(tp.runtime);
    const first = tradesResponseSchema.parse(
      await (await tp.fetch(`/gw/v1/trades?pool=${aggregate.poolId}&limit=3`)).json(),
    );
    expect(first.trades).toHaveLength(3);
    await forceTradesOn(tp.runtime, [aggregate], tp.nowSeconds() + 1);
    const newest = (await runtimeInternals(tp.runtime).store.trades.recent(aggregate.id, true, 1))[0];
    expect(newest?.eventId).not.toBe(first.trades[0]?.id);
    const again = tradesResponseSchema.parse(
      await (await tp.fetch(`/gw/v1/trades?pool=${aggregate.poolId}&limit=3`)).json(),
    );
    expect(again.trades[0]?.id).toBe(newest?.eventId);
  });

  it('refuses bad input in the price family’s shape', async () => {
    const response = await tp.fetch('/gw/v1/trades?pool=zz');
    expect(response.status).toBe(400);
  });
});
