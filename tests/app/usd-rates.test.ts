import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsdRateBook } from '../../src/app/api/usd-rate-book';
import type { ResolutionString } from '../../src/datafeed';
import { STABLECOINS } from '../../src/app/lib/stablecoins';
import { attachDatafeed } from '../datafeed/harness';
import { expectClose } from '../support/expect-close';
import { forceTradesOn } from '../support/market';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { rateAtTime, rateNow, stablePools } from '../support/usd';

/**
 * The rate book (api/ada-usd) on the real service in-process, through a real datafeed: ADA/USD at bar
 * times equals what the gateway's own bars say (computed here), and a stablecoin's live trade moves
 * the bucket it falls in as the server's bar of that bucket has it.
 */
let tp: TestPlatform;
beforeAll(async () => {
  tp = await createTestPlatform();
});
afterAll(async () => tp?.close());

const HOUR = '60' as ResolutionString;

describe('the ADA/USD rate book', () => {
  it('finds the stablecoins’ Aggregate pools against ADA by unit', async () => {
    const { datafeed, close } = attachDatafeed(tp);
    const book = new UsdRateBook(datafeed);
    const pools = await book.pools();
    expect(pools.map((p) => p.coin.ticker)).toEqual(STABLECOINS.map((c) => c.ticker));
    expect(pools.map((p) => p.poolId).sort()).toEqual((await stablePools(tp.fetch)).sort());
    await close();
  });

  it('gives ADA/USD at each hour of a span as the stablecoins’ bars of that hour or before say, from one fill', async () => {
    const { datafeed, fetched, close } = attachDatafeed(tp);
    const book = new UsdRateBook(datafeed);
    const now = tp.nowSeconds();
    const to = now - (now % 3600) + 3600;
    const from = to - 24 * 3600;
    await book.ensure(HOUR, from, to);
    for (const time of [from, from + 7 * 3600, to - 3600])
      expectClose(book.rateAt(HOUR, time) ?? Number.NaN, await rateAtTime(tp.fetch, time), 1e-12, `rate at ${time}`);
    // The span is filled: asking again, or for a part of it, asks the server nothing.
    const history = () => fetched.filter((url) => url.includes('/history')).length;
    const asked = history();
    expect(asked).toBeLessThanOrEqual(2 * STABLECOINS.length);
    await book.ensure(HOUR, from + 3600, to);
    expect(history()).toBe(asked);
    // Older: the part before is loaded, with the bar before it carried in.
    await book.ensure(HOUR, from - 12 * 3600, from);
    expect(history()).toBeGreaterThan(asked);
    expectClose(book.rateAt(HOUR, from - 12 * 3600) ?? Number.NaN, await rateAtTime(tp.fetch, from - 12 * 3600), 1e-12);
    expect(book.rateAt(HOUR, 0)).toBeUndefined();
    await close();
  });

  it('follows the stablecoins’ live trades: the bucket in progress moves as the server’s bar of it', async () => {
    const { datafeed, close } = attachDatafeed(tp);
    const book = new UsdRateBook(datafeed);
    const now = tp.nowSeconds();
    const bucket = now - (now % 3600);
    await book.ensure(HOUR, bucket - 6 * 3600, bucket + 3600);
    const changes = vi.fn();
    const stop = book.subscribe(changes);
    await vi.waitFor(() => expect(book.liveEpoch()).toBeGreaterThan(0), { timeout: 10_000 });
    const before = book.rateAt(HOUR, bucket);
    await forceTradesOn(tp.runtime, await stablePools(tp.fetch), tp.nowSeconds());
    await vi.waitFor(() => expect(book.rateAt(HOUR, bucket)).not.toBe(before), { timeout: 10_000 });
    expect(changes).toHaveBeenCalled();
    // Live, the bucket in progress has the stablecoins' latest states: ADA/USD now.
    await vi.waitFor(async () => expectClose(book.rateAt(HOUR, bucket) ?? Number.NaN, await rateNow(tp.fetch), 1e-12), {
      timeout: 10_000,
    });
    expect(book.liveQuotes().size).toBeGreaterThan(0);
    stop();
    await close();
  });
});
