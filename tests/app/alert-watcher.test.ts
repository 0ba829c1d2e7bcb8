import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATE_GROUP } from '../../src/shared/groups';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import type { Alert } from '../../src/app/features/alerts/lib/alert';
import { AlertBook } from '../../src/app/features/alerts/lib/alert-book';
import { AlertWatcher, type AlertFeed } from '../../src/app/features/alerts/lib/alert-watcher';
import { createHarness, type Harness } from '../datafeed/harness';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { memoryStorage } from './render-app';

/**
 * The watcher on the real datafeed over the in-process platform: an Aggregate pool's alerts follow its
 * trades through the live connection, a DEX pool's are asked; a trade that crosses fires once.
 */
describe('the alert watcher', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ pools: 120, days: 1 });
  });
  afterAll(async () => h.close());

  const feedOf = (harness: Harness): AlertFeed => ({
    onTrades: (target, listener) => harness.datafeed.onTrades(target, listener),
    poolPrice: async (pool) =>
      (await harness.datafeed.gateway.getOrThrow('/tokens/current', { pool }, tokenStatsSchema)).current_price,
  });
  const price = async (pool: string) =>
    (await h.datafeed.gateway.getOrThrow('/tokens/current', { pool }, tokenStatsSchema)).current_price;

  it('fires the alert a trade crosses, once, on a pool not shown anywhere, and marks it in the book', async () => {
    const [pool] = await aggregatesByActivity(h.tp.runtime);
    if (!pool) throw new Error('no Aggregate pool');
    const now = await price(pool.poolId);
    const book = new AlertBook(memoryStorage());
    const base = {
      symbol: 'x',
      group: AGGREGATE_GROUP,
      pool: pool.poolId,
      label: 'X/ADA on Aggregate',
      inverted: false,
    };
    const above = book.add({ ...base, condition: { kind: 'above', price: now * (1 + 1e-9) } });
    const below = book.add({ ...base, condition: { kind: 'below', price: now * (1 - 1e-9) } });
    const fired: Alert[] = [];
    let live = false;
    const watcher = new AlertWatcher(book, feedOf(h), (alert) => fired.push(alert), {
      onLive: (value) => (live = value),
    });
    await expect.poll(() => live, { timeout: 10_000 }).toBe(true);

    // Trades until the pool's price moves (a trade on any pool of the pair moves the Aggregate).
    let after = now;
    for (let i = 0; i < 50 && after === now; i++) {
      await forceTradesOn(h.tp.runtime, [pool], h.tp.nowSeconds());
      after = await price(pool.poolId);
    }
    expect(after).not.toBe(now);
    await expect.poll(() => fired.length, { timeout: 10_000 }).toBe(1);
    const expected = after > now ? above : below;
    expect(fired[0]?.id).toBe(expected.id);
    expect(book.getSnapshot().find((a) => a.id === expected.id)).toMatchObject({ status: 'fired' });
    expect(book.getSnapshot().find((a) => a.id !== expected.id)?.status).toBe('armed');
    watcher.dispose();
  });

  it("asks a DEX pool's price (they do not stream): a price that crosses fires", async () => {
    const [aggregate] = await aggregatesByActivity(h.tp.runtime);
    const dex = aggregate?.pair.pools[0];
    if (!aggregate || !dex) throw new Error('no DEX pool');
    const now = await price(dex.poolId);
    const book = new AlertBook(memoryStorage());
    const base = { symbol: 'y', group: dex.group, pool: dex.poolId, label: 'Y/ADA on a DEX', inverted: false };
    book.add({ ...base, condition: { kind: 'above', price: now * (1 + 1e-9) } });
    book.add({ ...base, condition: { kind: 'below', price: now * (1 - 1e-9) } });
    const fired: Alert[] = [];
    const watcher = new AlertWatcher(book, feedOf(h), (alert) => fired.push(alert), { pollMs: 50 });
    // The first price asked is the one before the trade.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Trades on the pair until one is on this DEX pool.
    let after = now;
    for (let i = 0; i < 50 && after === now; i++) {
      await forceTradesOn(h.tp.runtime, [aggregate], h.tp.nowSeconds());
      after = await price(dex.poolId);
    }
    expect(after).not.toBe(now);
    await expect.poll(() => fired.length, { timeout: 10_000 }).toBe(1);
    expect(fired[0]?.condition.kind).toBe(after > now ? 'above' : 'below');
    expect(fired[0]?.firedPrice).toBe(after);
    watcher.dispose();
  });
});
