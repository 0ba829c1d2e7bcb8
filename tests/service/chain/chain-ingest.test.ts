import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainBlock } from '../../../src/service/chain/block';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { fromOgmiosBlock, type OgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { openMarket, type MarketHandle } from '../../../src/service/runtime';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/** ChainIngest on a real store: undecodable blocks are skipped whole, replays change nothing. */
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

const blocks = (): ChainBlock[] => realOgmiosBlocks().map((b) => fromOgmiosBlock(b as unknown as OgmiosBlock));

describe.skipIf(!hasPrise)('ChainIngest', () => {
  it('skips a block whose pool output cannot be decoded whole (logged with slot and hash, counted), and moves past it', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
    const all = blocks();
    // Block 115586003 holds five Minswap pool outputs; without its witness datums none can be decoded.
    const broken = all.find((b) => b.slot === 115_586_003) as ChainBlock;
    const stripped: ChainBlock = { ...broken, transactions: broken.transactions.map((tx) => ({ ...tx, datums: new Map() })) };
    for (const block of all) {
      const report = await ingest.applyBlock(block === broken ? stripped : block);
      if (block === broken) expect(report.skipped).toMatch(/Minswap pool output .*datum missing/);
    }
    expect(ingest.undecodable).toBe(1);
    expect(lines.find((l) => l.includes('skipped'))).toContain(`slot 115586003 (${broken.id})`);
    expect(ingest.tip?.slot).toBe(all.at(-1)?.slot);
    // None of the skipped block's pools exist: nothing of it was applied (the later sighting creates them).
    expect(await handle.store.trades.count()).toBe(0);
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
    expect(trades).toBe(1);
  });
});
