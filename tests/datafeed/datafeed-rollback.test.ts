import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LiveRollback } from '../../src/shared/api/gateway';
import type { TradeEvent } from '../../src/shared/api/stream';
import type { Bar } from '../../src/shared/bars';
import { slotTime } from '../../src/service/chain/block';
import type { BarsReplacement } from '../../src/datafeed/live-series';
import type { LibrarySymbolInfo, ResolutionString } from '../../src/datafeed/tradingview-types';
import { ensureDefined } from '../support/ensure';
import { FakeOgmios } from '../support/fake-ogmios';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import type { OgmiosWireBlock } from '../support/prise';
import {
  nextSyntheticBlock,
  syntheticBlocks,
  syntheticPoolId,
  syntheticPools,
  type ChainCursor,
} from '../support/synthetic-chain';
import { attachDatafeed, historyBars, resolveSymbol, subscribe } from './harness';

/**
 * The datafeed's reaction to a chain rollback, against the real platform following a fake Ogmios: a
 * pool trades in block B, the node rolls back before B and sends B' where the same pool trades at
 * another price. Bars (our `onBars`) are replaced from the rollback's bucket on and end on B''s price,
 * equal to /history; the library's face hears `onResetCacheNeeded`; trade listeners hear the point.
 */
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'ee'.repeat(32),
  height: 0,
  slot: 130_000_000,
  ancestor: 'genesis',
  transactions: [],
};
const pools = syntheticPools(1, 40);
const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
let fake: FakeOgmios;
let tp: TestPlatform;
let chain: OgmiosWireBlock[];
let info: LibrarySymbolInfo;

/** What a chart holds: bars put in by time, a replacement's bars in place of those from its time on. */
class HeldBars {
  bars: Bar[] = [];
  readonly replacements: BarsReplacement[] = [];
  put(bar: Bar): void {
    this.bars = [...this.bars.filter((b) => b.time !== bar.time), bar].sort((a, b) => a.time - b.time);
  }
  replace(replacement: BarsReplacement): void {
    this.replacements.push(replacement);
    this.bars = [...this.bars.filter((b) => b.time < replacement.from), ...replacement.bars];
  }
}

const tipSlot = async () =>
  ((await (await tp.fetch('/healthz')).json()) as { chain: { tipSlot: number | null } }).chain.tipSlot;

beforeAll(async () => {
  // The first block makes the pool (no event), the second trades it.
  chain = [ANCHOR, ...syntheticBlocks(cursor, pools, 2, { updates: 1, sequential: true })];
  fake = await FakeOgmios.start(chain);
  tp = await createTestPlatform({
    env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${ANCHOR.slot}.${ANCHOR.id}` },
  });
  tp.platform.startLive();
  await vi.waitUntil(async () => (await tipSlot()) === chain.at(-1)?.slot, { timeout: 20_000, interval: 20 });
  const pool = ensureDefined(tp.runtime.market.pools.get(syntheticPoolId(ensureDefined(pools[0]))));
  info = await resolveSymbol(attachDatafeed(tp).datafeed, pool.pair.aggregate.poolId);
}, 30_000);
afterAll(async () => {
  await tp?.close();
  await fake?.close();
});

describe('a chain rollback in the datafeed', () => {
  it('replaces the bars from the rollback on, tells trade listeners and the library, and follows the new chain', async () => {
    const { datafeed, close } = attachDatafeed(tp);
    const resolution = '1' as ResolutionString;
    const first = await datafeed.bars(info, resolution, { from: 0, to: slotTime(cursor.slot) + 3600, countBack: 10 });
    const held = new HeldBars();
    first.bars.forEach((bar) => held.put(bar));
    datafeed.onBars(
      info,
      resolution,
      { onBar: (bar) => held.put(bar), onReset: (replacement) => held.replace(ensureDefined(replacement)) },
      first.bars.at(-1),
    );
    const library = subscribe(datafeed, info, resolution, 'library');
    const rollbacks: LiveRollback[] = [];
    const trades: TradeEvent[] = [];
    datafeed.onTrades(info, {
      onTrade: (event) => trades.push(event),
      onRollback: (rollback) => rollbacks.push(rollback),
    });
    await vi.waitFor(() => expect(datafeed.liveStatus.state).toBe('live'), { timeout: 5000 });

    // Block B: the pool trades at P1.
    const point = ensureDefined(chain.at(-1));
    const pool = ensureDefined(pools[0]);
    const state = { a: pool.a, b: pool.b, cursor: { ...cursor } };
    fake.extend([nextSyntheticBlock(cursor, pools, { updates: 1 })]);
    await vi.waitFor(() => expect(trades).toHaveLength(1), { timeout: 5000 });
    const p1 = ensureDefined(trades[0]).current_price;
    await vi.waitFor(() => expect(held.bars.at(-1)?.close).toBe(p1));

    // The node rolls back before B and sends B': the same pool, three swaps from the state before B.
    pool.a = state.a;
    pool.b = state.b;
    Object.assign(cursor, state.cursor);
    fake.rollBackTo(point.slot);
    fake.extend([nextSyntheticBlock(cursor, pools, { updates: 3, fork: 1 })]);
    await vi.waitFor(
      () => expect(rollbacks).toEqual([{ slot: point.slot, id: point.id, time: slotTime(point.slot) }]),
      { timeout: 5000 },
    );
    await vi.waitFor(() => expect(trades).toHaveLength(4), { timeout: 5000 });
    const p2 = ensureDefined(trades.at(-1)).current_price;
    expect(p2).not.toBe(p1);

    // The bars held end on P2 and equal the server's, every one of them (B's bar is gone).
    await vi.waitFor(async () => {
      const server = await historyBars(tp, info.ticker ?? '', '1min', 0, slotTime(cursor.slot) + 3600);
      expect(held.bars.map((b) => ({ ...b, time: b.time * 1000 }))).toEqual(server);
      expect(held.bars.at(-1)?.close).toBe(p2);
    });
    expect(held.replacements.length).toBeGreaterThanOrEqual(1);
    expect(ensureDefined(held.replacements[0]).from).toBeLessThanOrEqual(slotTime(point.slot) + 1);
    expect(library.resets).toBeGreaterThanOrEqual(1);
    await close();
  });
});
