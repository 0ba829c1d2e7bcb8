import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { fromOgmiosBlock } from '../../src/service/chain/ogmios-block';
import { openMarket } from '../../src/service/open-market';
import { FakeOgmios } from '../support/fake-ogmios';
import { hasPrise, realOgmiosBlocks, type OgmiosWireBlock } from '../support/prise';
import { startServerProcess } from '../support/server-process';
import { syntheticBlocks, syntheticPools } from '../support/synthetic-chain';

/**
 * `serve --source chain` as a real server process following a local fake Ogmios that sends blocks
 * slowly: prise's ten real mainnet blocks, then 24 blocks shaped like them that continue the chain
 * with a Minswap V2 swap each. Killed (-9) once some of those trades are stored and before the end,
 * then started again on the same data directory, it resumes at its stored tip: every trade exactly
 * once, and the same trades and bars as a run that was never interrupted.
 */
const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), name));
  dirs.push(dir);
  return dir;
};
let fake: FakeOgmios | undefined;
afterAll(async () => {
  await fake?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Health {
  readonly source: string;
  readonly chain: { readonly tipSlot: number | null; readonly trades: number; readonly pendingBlocks: number };
}

/** The chain: the real blocks, then one block creating four pools and 24 blocks of one swap each. */
function chain(): { blocks: OgmiosWireBlock[]; trades: number } {
  const real = realOgmiosBlocks();
  const last = real.at(-1);
  if (!last) throw new Error('no real blocks');
  const cursor = { slot: last.slot, id: last.id, height: last.height };
  const pools = syntheticPools(4);
  const synthetic = [
    ...syntheticBlocks(cursor, pools, 1, { updates: 4, sequential: true }),
    ...syntheticBlocks(cursor, pools, 24, { updates: 1 }),
  ];
  // The real blocks hold three trades: Minswap's (3ed2b954…) and two of MuesliSwap's ADA/PBX pool (05a77fb8…, 53748ef2…).
  return { blocks: [...real, ...synthetic], trades: 3 + 24 };
}

describe.skipIf(!hasPrise)('serve --source chain, killed mid-sync', () => {
  it('resumes at the stored tip after kill -9: every trade once, the same trades and bars as an uninterrupted run', async () => {
    const { blocks, trades } = chain();
    fake = await FakeOgmios.start(blocks);
    fake.blockDelayMs = 150;
    const start = blocks[0];
    const dir = tempDir('chain-process-');
    const args = ['--source', 'chain', '--ogmios', fake.url, '--chain-start', `${start?.slot}.${start?.id}`];
    const health = async (origin: string) => (await (await fetch(`${origin}/healthz`)).json()) as Health;

    const first = await startServerProcess({ dataDir: dir, args });
    // Killed once at least five of the synthetic blocks' trades are stored, long before the last block.
    await vi.waitUntil(async () => (await health(first.origin)).chain.trades >= 8, { timeout: 30_000, interval: 20 });
    await first.stop();
    const stored = await (async () => {
      const handle = await openMarket(dir, 'check');
      try {
        return await handle.store.trades.count();
      } finally {
        await handle.close();
      }
    })();
    expect(stored).toBeGreaterThanOrEqual(8);
    expect(stored).toBeLessThan(trades);

    fake.blockDelayMs = 0;
    const second = await startServerProcess({ dataDir: dir, args: ['--source', 'chain', '--ogmios', fake.url] });
    try {
      const last = blocks.at(-1)?.slot;
      await vi.waitUntil(async () => (await health(second.origin)).chain.tipSlot === last, {
        timeout: 30_000,
        interval: 50,
      });
      expect((await health(second.origin)).source).toBe('chain');
    } finally {
      await second.stop();
    }

    // The same blocks applied in one go, in process, on a fresh store (after the start point, as the source does).
    const reference = tempDir('chain-reference-');
    const whole = await openMarket(reference, 'reference');
    let expected;
    try {
      const ingest = await ChainIngest.open(whole.ingestor, whole.store.market);
      for (const block of blocks.slice(1)) await ingest.applyBlock(fromOgmiosBlock(block));
      expected = { trades: await whole.store.trades.list(), bars: await whole.store.bars.all() };
    } finally {
      await whole.close();
    }

    const handle = await openMarket(dir, 'check');
    try {
      const stored = await handle.store.trades.list();
      expect(stored).toHaveLength(trades);
      expect(new Set(stored.map((t) => t.eventId)).size).toBe(trades);
      const fields = (list: typeof stored) => list.map(({ seq: _seq, ...trade }) => trade);
      expect(fields(stored)).toEqual(fields(expected.trades));
      const bars = await handle.store.bars.all();
      expect(bars).toEqual(expected.bars);
      await handle.store.bars.rebuild();
      expect(await handle.store.bars.all()).toEqual(bars);
    } finally {
      await handle.close();
    }
  }, 90_000);
});
