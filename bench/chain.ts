import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainIngest, JOURNAL_BLOCKS } from '../src/service/chain/chain-ingest';
import { fromOgmiosBlock } from '../src/service/chain/ogmios-block';
import { openMarket } from '../src/service/runtime';
import { nextSyntheticBlock, syntheticPools, type ChainCursor } from '../tests/support/synthetic-chain';
import type { BenchRow } from './measure';

/**
 * The chain source's write side: blocks shaped like real Ogmios v6 blocks (tests/support/synthetic-chain:
 * Minswap V2 pool outputs with inline datums among ordinary payment outputs) converted, decoded and
 * applied through ChainIngest and the Ingestor into a real SQLite store, one commit per block, after a
 * warm-up that fills the rollback journal to its steady size (k = 2,160 blocks, one row written and one
 * pruned per block). Reports pool updates/s, blocks/s, and the time to catch up one day of mainnet
 * (4,320 blocks) at that rate.
 */
/** Mainnet blocks a day: one every 20 s on average. */
const BLOCKS_PER_DAY = 4_320;

export async function chainBench(options: { log: (line: string) => void }): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-chain-'));
  const handle = await openMarket(dir, 'bench');
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const pools = syntheticPools(1_000);
    const cursor: ChainCursor = { slot: 120_000_000, id: '00'.repeat(32), height: 0 };
    // Every pool once (created, no event).
    for (let i = 0; i < pools.length; i += 100) await ingest.applyBlock(fromOgmiosBlock(nextSyntheticBlock(cursor, pools.slice(i, i + 100), { updates: 100, sequential: true })));
    const updatesPerBlock = 50;
    const blocks = 400;
    const warmUp = JOURNAL_BLOCKS + 40;
    options.log(`chain: ${warmUp} blocks to fill the rollback journal, then ${blocks} measured blocks of ${updatesPerBlock} pool updates and 40 other transactions over ${pools.length} pools...`);
    for (let b = 0; b < warmUp; b++) await ingest.applyBlock(fromOgmiosBlock(nextSyntheticBlock(cursor, pools, { updates: updatesPerBlock, noise: 40 })));
    const started = performance.now();
    let trades = 0;
    for (let b = 0; b < blocks; b++) trades += (await ingest.applyBlock(fromOgmiosBlock(nextSyntheticBlock(cursor, pools, { updates: updatesPerBlock, noise: 40 })))).trades;
    const seconds = (performance.now() - started) / 1000;
    const updatesPerSecond = (blocks * updatesPerBlock) / seconds;
    const blocksPerSecond = blocks / seconds;
    // A mainnet day: 4,320 blocks; its DEX pool updates at the rate measured, blocks at the block rate.
    const dayBlocksSeconds = BLOCKS_PER_DAY / blocksPerSecond;
    options.log(`chain: ${trades} trades in ${seconds.toFixed(1)} s`);
    return [
      { suite: 'chain', name: 'pool updates applied (decode + ingest + one commit per block)', value: Math.round(updatesPerSecond), unit: 'updates/s', target: '>= 2000', pass: updatesPerSecond >= 2_000, note: `${updatesPerBlock} per block, SQLite, ${trades} trade events, journal at its ${JOURNAL_BLOCKS}-block steady size` },
      { suite: 'chain', name: 'blocks applied (50 pool updates + 40 other transactions each)', value: Math.round(blocksPerSecond), unit: 'blocks/s' },
      {
        suite: 'chain',
        name: 'one day of mainnet (4,320 blocks) at these blocks',
        value: Math.round(dayBlocksSeconds),
        unit: 's',
        note: `each block with ${updatesPerBlock} pool updates, far above mainnet's; Ogmios transfer not included`,
      },
    ];
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
