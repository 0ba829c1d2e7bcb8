import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROLLBACK_MERGE_MS } from '../../src/datafeed/live-feed';
import type { LibrarySymbolInfo } from '../../src/datafeed/tradingview-types';
import type { LiveRollback } from '../../src/shared/api/gateway';
import type { TradeEvent } from '../../src/shared/api/stream';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { attachDatafeed, createHarness, getBars, resolveSymbol, type Harness } from './harness';

/**
 * Issue 45: a storm of rollbacks reached each browser as one `rollback` event per rollback, and a
 * 4-chart page reloaded every chart (and its tape and statistics) for each. The datafeed now merges
 * them (ROLLBACK_MERGE_MS): the first at once, the rest of a window as one naming the deepest point.
 * The platform's gateway here sends every rollback as it comes (GATEWAY_ROLLBACK_WINDOW_MS 0), so what
 * is measured is the datafeed's own merge, behind a gateway that does not merge.
 */
let h: Harness;
let pools: Pool[];
let infos: LibrarySymbolInfo[];

beforeAll(async () => {
  h = await createHarness({ gateway: { rollbackWindowMs: 0 } });
  pools = (await aggregatesByActivity(h.tp.runtime)).slice(0, 4);
  infos = await Promise.all(pools.map((p) => resolveSymbol(h.datafeed, p.poolId)));
}, 30_000);
afterAll(async () => h.close());

describe('a storm of rollbacks in the datafeed', () => {
  it('300 rollbacks in well under a second: a 4-chart page hears a few, names the deepest, and asks a few dozen requests', async () => {
    const { datafeed, fetched, close } = attachDatafeed(h.tp);
    const now = h.tp.nowSeconds();
    const resets: number[] = [0, 0, 0, 0];
    infos.forEach((info, i) => {
      datafeed.onBars(info, '1', { onBar: () => undefined, onReset: () => (resets[i] = (resets[i] ?? 0) + 1) });
    });
    const rollbacks: LiveRollback[] = [];
    const trades: TradeEvent[] = [];
    datafeed.onTrades(ensureDefined(infos[0]), {
      onTrade: (event) => trades.push(event),
      onRollback: (rollback) => rollbacks.push(rollback),
    });
    await getBars(datafeed, ensureDefined(infos[0]), '1', { from: now - 3600, to: now + 60, countBack: 10 });
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('live'), { timeout: 10_000 });
    // The charts' first syncs are done: what follows is the storm's.
    await vi.waitFor(() => expect(fetched.filter((url) => url.includes('/history')).length).toBeGreaterThanOrEqual(4));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = fetched.length;

    const hub = h.tp.platform.gateway.hub;
    const deepest = { s: 'rollback' as const, slot: 90_000_000, id: 'cd'.repeat(32), block_time: now - 900 };
    for (let n = 0; n < 300; n++) {
      const line =
        n === 150
          ? deepest
          : {
              s: 'rollback' as const,
              slot: 90_000_100 + n,
              id: n.toString(16).padStart(64, '0'),
              block_time: now - 60,
            };
      hub.onRollback(line, {});
      if (n % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // A trade of the new chain after the storm: heard after the last rollback, not dropped.
    await forceTradesOn(h.tp.runtime, [ensureDefined(pools[0])], h.tp.nowSeconds());
    await vi.waitFor(
      () => expect(rollbacks).toContainEqual({ slot: deepest.slot, id: deepest.id, time: deepest.block_time }),
      { timeout: 10_000 },
    );
    await vi.waitFor(() => expect(trades.length).toBeGreaterThan(0), { timeout: 10_000 });
    // Nothing more comes once a window has passed.
    await new Promise((resolve) => setTimeout(resolve, ROLLBACK_MERGE_MS + 500));
    expect(rollbacks.length).toBeGreaterThanOrEqual(2);
    expect(rollbacks.length).toBeLessThanOrEqual(4);
    const storm = fetched.slice(before);
    const history = storm.filter((url) => url.includes('/history'));
    expect(history.length).toBeLessThanOrEqual(4 * rollbacks.length);
    expect(storm.length).toBeLessThanOrEqual(36);
    for (const count of resets) expect(count).toBeGreaterThanOrEqual(1);
    await close();
  }, 60_000);
});
