import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketStatusSchema } from '../../src/shared/api/extensions';
import { forceTradesOn, busiestPools } from '../support/market';
import { createTestPlatform, type TestPlatform } from '../support/platform';

/** /gw/v1/status passes the service's /api/x/status on: the same answer for a second, then the next block's. */
let tp: TestPlatform;
beforeAll(async () => {
  tp = await createTestPlatform({ pools: 80, days: 0.3 });
});
afterAll(async () => tp.close());

describe('GET /gw/v1/status', () => {
  it('answers the service’s freshness, uncached by the browser, and follows the market', async () => {
    const response = await tp.fetch('/gw/v1/status');
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toMatch(/no-store|max-age=0/);
    const first = marketStatusSchema.parse(await response.json());
    expect(first).toMatchObject({ source: 'simulated', state: 'live' });
    expect(first.groups.reduce((n, g) => n + g.pools, 0)).toBe(
      [...tp.runtime.market.pools.values()].filter((p) => p.group !== 'Aggregate').length,
    );
    const { aggregate } = await busiestPools(tp.runtime);
    await forceTradesOn(tp.runtime, [aggregate], tp.nowSeconds() + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = marketStatusSchema.parse(await (await tp.fetch('/gw/v1/status')).json());
    expect(again.tip?.height).toBeGreaterThan(first.tip?.height ?? Infinity);
  });
});
