import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openMarket } from '../../src/service/runtime';
import { FakeOgmios } from '../support/fake-ogmios';
import { hasPrise, realOgmiosBlocks } from '../support/prise';
import { startServerProcess } from '../support/server-process';

/**
 * `serve --source chain` as a real server process following a local fake Ogmios that sends prise's
 * real blocks slowly: killed (-9) in the middle of the sync and started again on the same data
 * directory, it resumes at its stored tip, and the one trade of those blocks is stored exactly once,
 * with bars equal to a rebuild.
 */
const dir = mkdtempSync(join(tmpdir(), 'chain-process-'));
let fake: FakeOgmios | undefined;
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Health {
  readonly source: string;
  readonly chain: { readonly tipSlot: number | null; readonly state: string };
}

describe.skipIf(!hasPrise)('serve --source chain, killed mid-sync', () => {
  it('resumes at the stored tip after kill -9: every block applied once, bars equal a rebuild', async () => {
    const blocks = realOgmiosBlocks();
    fake = await FakeOgmios.start(blocks);
    fake.blockDelayMs = 250;
    const start = blocks[0];
    const args = ['--source', 'chain', '--ogmios', fake.url, '--chain-start', `${start?.slot}.${start?.id}`];
    const health = async (origin: string) => (await (await fetch(`${origin}/healthz`)).json()) as Health;

    const first = await startServerProcess({ dataDir: dir, args });
    const middle = blocks[4]?.slot ?? 0;
    await vi.waitUntil(async () => ((await health(first.origin)).chain.tipSlot ?? 0) >= middle, { timeout: 20_000, interval: 50 });
    const killedAt = (await health(first.origin)).chain.tipSlot ?? 0;
    await first.stop();
    expect(killedAt).toBeLessThan(blocks.at(-1)?.slot ?? 0);

    fake.blockDelayMs = 0;
    const second = await startServerProcess({ dataDir: dir, args: ['--source', 'chain', '--ogmios', fake.url] });
    try {
      const last = blocks.at(-1)?.slot;
      await vi.waitUntil(async () => (await health(second.origin)).chain.tipSlot === last, { timeout: 20_000, interval: 50 });
      expect((await health(second.origin)).source).toBe('chain');
    } finally {
      await second.stop();
    }

    const handle = await openMarket(dir, 'check');
    try {
      const trades = await handle.store.trades.list();
      expect(trades.map((t) => t.eventId)).toEqual([expect.stringMatching(/^3ed2b954/)]);
      const bars = await handle.store.bars.all();
      await handle.store.bars.rebuild();
      expect(await handle.store.bars.all()).toEqual(bars);
    } finally {
      await handle.close();
    }
  });
});
