import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainBlock } from '../../../src/service/chain/block';
import { ChainGapError, ChainIngest } from '../../../src/service/chain/chain-ingest';
import { poolOutputs } from '../../../src/service/chain/dexes';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';
import {
  syntheticBlocks,
  syntheticPoolId,
  syntheticPools,
  type ChainCursor,
  type SyntheticPool,
} from '../../support/synthetic-chain';

/** ChainIngest on a real store: undecodable pool outputs are skipped alone, replays change nothing. */
let dir: string;
let handle: MarketHandle;
let lines: string[];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chain-ingest-'));
  handle = await openMarket(dir, 'test');
  lines = [];
});
afterEach(async () => {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

const start = (): ChainCursor => ({ slot: 120_000_000, id: '00'.repeat(32), height: 0 });
const blocks = (): ChainBlock[] => realOgmiosBlocks().map((b) => fromOgmiosBlock(b));

describe.skipIf(!hasPrise)('ChainIngest', () => {
  it('skips a pool output that cannot be decoded (logged with its transaction and index, counted per DEX) and applies the rest of its block', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
    const all = blocks();
    // Block 115586003 holds five Minswap pool outputs; without its witness datums none can be decoded.
    const broken = all.find((b) => b.slot === 115_586_003) as ChainBlock;
    // And a Minswap V2 pool output (inline datum) beside them, which must be applied.
    const v2 = syntheticPools(1);
    const v2Tx = fromOgmiosBlock(syntheticBlocks(start(), v2, 1, { updates: 1 })[0]).transactions;
    const stripped: ChainBlock = {
      ...broken,
      transactions: [...broken.transactions.map((tx) => ({ ...tx, datums: new Map() })), ...v2Tx],
    };
    const minswapOutputs = broken.transactions.flatMap((tx) =>
      poolOutputs(tx)
        .filter((o) => 'state' in o && o.state.group === 'Minswap')
        .map((o) => `${tx.id}#${o.index}`),
    );
    expect(minswapOutputs).toHaveLength(5);
    const pools = new Set<string>();
    for (const block of all) {
      const report = await ingest.applyBlock(block === broken ? stripped : block);
      if (block === broken) {
        expect(report.skipped).toBeUndefined();
        expect(report.undecodable).toBe(5);
        // Its other pool output (MinswapV2's inline datum needs no witness) was applied.
        for (const tx of stripped.transactions)
          for (const o of poolOutputs(tx)) if ('state' in o) pools.add(o.state.poolId);
      }
    }
    expect([...pools]).toEqual([syntheticPoolId(v2[0] as SyntheticPool)]);
    expect(handle.market.pools.has(syntheticPoolId(v2[0] as SyntheticPool))).toBe(true);
    expect(ingest.undecodable).toBe(5);
    expect(ingest.undecodableOutputs).toEqual(new Map([['Minswap', 5]]));
    for (const output of minswapOutputs)
      expect(lines.some((l) => l.includes(output) && l.includes('slot 115586003') && l.includes('datum missing'))).toBe(
        true,
      );
    expect(ingest.tip?.slot).toBe(all.at(-1)?.slot);
  });

  it('ignores a block at or before the tip (a replay after a reconnect): nothing doubles', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const all = blocks();
    for (const block of all) await ingest.applyBlock(block);
    const trades = await handle.store.trades.count();
    const bars = await handle.store.bars.all();
    for (const block of all) expect((await ingest.applyBlock(block)).skipped).toBe('already applied');
    expect(await handle.store.trades.count()).toBe(trades);
    expect(await handle.store.bars.all()).toEqual(bars);
    expect(trades).toBeGreaterThan(0);
  });
});

describe("ChainIngest on blocks shaped like Ogmios's", () => {
  it('refuses a block that does not follow the stored tip, and applies nothing of it', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const pools = syntheticPools(3);
    const cursor = start();
    const chain = syntheticBlocks(cursor, pools, 4, { updates: 3, sequential: true });
    for (const block of chain.slice(0, 2)) await ingest.applyBlock(fromOgmiosBlock(block));
    const trades = await handle.store.trades.count();
    // The fourth block's ancestor is the third, which was never applied: a gap.
    await expect(ingest.applyBlock(fromOgmiosBlock(chain[3]))).rejects.toThrow(ChainGapError);
    expect(ingest.tip?.id).toBe(chain[1]?.id);
    expect(await handle.store.trades.count()).toBe(trades);
    await ingest.applyBlock(fromOgmiosBlock(chain[2]));
    await ingest.applyBlock(fromOgmiosBlock(chain[3]));
    expect(ingest.tip?.id).toBe(chain[3]?.id);
  });

  it('keeps the journal in the store: after a reopen it offers older points to intersect at and can still undo blocks', async () => {
    const pools = syntheticPools(2);
    const cursor = start();
    const chain = syntheticBlocks(cursor, pools, 20, { updates: 2, sequential: true });
    let ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    for (const block of chain) await ingest.applyBlock(fromOgmiosBlock(block));
    const reservesAt = (id: string) => {
      const pool = handle.ingestor.market.pools.get(id);
      return [pool?.baseReserve, pool?.quoteReserve];
    };
    const first = pools[0];
    if (!first) throw new Error('no pool');
    const pool = syntheticPoolId(first);
    await handle.close();
    handle = await openMarket(dir, 'test');
    const afterTen = await (async () => {
      // The reserves after block 10, from a fresh store that applies only the first ten.
      const other = mkdtempSync(join(tmpdir(), 'chain-ingest-ten-'));
      const ten = await openMarket(other, 'test');
      try {
        const first = await ChainIngest.open(ten.ingestor, ten.store.market);
        for (const block of chain.slice(0, 10)) await first.applyBlock(fromOgmiosBlock(block));
        return {
          reserves: [
            ten.ingestor.market.pools.get(pool)?.baseReserve,
            ten.ingestor.market.pools.get(pool)?.quoteReserve,
          ],
          trades: await ten.store.trades.count(),
          bars: await ten.store.bars.all(),
        };
      } finally {
        await ten.close();
        rmSync(other, { recursive: true, force: true });
      }
    })();
    ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const at = (i: number) => ({ slot: chain[i]?.slot, id: chain[i]?.id });
    // Newest first: the tip, then 1, 2, 4, 8, 16 blocks back, then the oldest block, then the start.
    expect(ingest.intersectionPoints({ slot: 1, id: 'ff'.repeat(32) })).toEqual([
      at(19),
      at(18),
      at(17),
      at(15),
      at(11),
      at(3),
      at(0),
      { slot: 1, id: 'ff'.repeat(32) },
    ]);
    expect(await ingest.rollBackTo({ slot: chain[9]?.slot ?? 0, id: chain[9]?.id ?? '' })).toBe(10);
    expect(reservesAt(pool)).toEqual(afterTen.reserves);
    expect(await handle.store.trades.count()).toBe(afterTen.trades);
    expect(await handle.store.bars.all()).toEqual(afterTen.bars);
    expect((await handle.store.market.journal()).map((r) => r.slot)).toEqual(chain.slice(0, 10).map((b) => b.slot));
  });
});
