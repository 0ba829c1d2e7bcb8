import { marketStatusSchema } from '../../src/shared/api/extensions';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openMarket } from '../../src/service/open-market';
import { FakeOgmios } from '../support/fake-ogmios';
import { BREAK, deepNesting, sharedReferenceBomb, toHex } from '../support/plutus-cbor';
import type { OgmiosWireBlock } from '../support/prise';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { nextSyntheticBlock, syntheticBlocks, syntheticPools } from '../support/synthetic-chain';

/**
 * Issue 29's datum bomb, end to end: a real `serve --source chain` process follows a local Ogmios
 * (tests/support/fake-ogmios.ts) whose chain holds, among blocks of ordinary Minswap V2 swaps, a block
 * whose Minswap V2 pool output carries the 147-byte shared-reference bomb as its datum (2^24 leaves to
 * a decoder that honours tags 28/29: such a process ran a 1 GiB heap out and died on every restart), and
 * a block whose pool output carries a datum nested 10,000 deep. The process stays up, keeps following
 * (every swap of the blocks after them is stored), its peak memory stays bounded, the undecodable
 * outputs are counted in /healthz and logged with their transaction and output index.
 */
let fake: FakeOgmios | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** The block the source starts at (`--chain-start`): the synthetic chain follows it. */
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'ee'.repeat(32),
  height: 0,
  slot: 120_000_000,
  ancestor: 'genesis',
  transactions: [],
};
/** Peak resident memory allowed the server process (VmHWM): a safety bound; the bomb honoured takes gigabytes. */
const PEAK_RSS_BOUND = 512 * 2 ** 20;

type WireTx = { id: string; outputs: { datum?: string }[] };

/** A block of `updates` swaps whose first pool output's datum is replaced by `datum`: its transaction id. */
function hostileBlock(
  cursor: Parameters<typeof nextSyntheticBlock>[0],
  pools: Parameters<typeof nextSyntheticBlock>[1],
  datum: string,
): { block: OgmiosWireBlock; tx: string } {
  const block = nextSyntheticBlock(cursor, pools, { updates: 2 });
  const tx = block.transactions[0] as WireTx;
  const output = tx.outputs[0];
  if (!output?.datum) throw new Error('a synthetic block without a pool output');
  output.datum = datum;
  return { block, tx: tx.id };
}

/** The event ids (`tx#0`) of the swaps in `blocks`. */
const swapsOf = (blocks: readonly OgmiosWireBlock[]) =>
  blocks.flatMap((b) => (b.transactions as WireTx[]).map((tx) => `${tx.id}#0`));

/** The process's peak resident memory (bytes), from /proc. */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) * 1024;
}

interface Health {
  readonly chain: {
    readonly tipSlot: number | null;
    readonly trades: number;
    readonly undecodable: number;
    readonly undecodableByDex: Record<string, number>;
  };
}

describe('serve --source chain, fed hostile pool datums', () => {
  it('stays up and keeps following past a shared-reference bomb and a 10,000-deep datum, memory bounded, the outputs counted and logged', async () => {
    const pools = syntheticPools(4);
    const cursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: ANCHOR.height };
    const created = syntheticBlocks(cursor, pools, 1, { updates: 4, sequential: true });
    const before = syntheticBlocks(cursor, pools, 3, { updates: 1 });
    const bombDatum = toHex([0xd8, 0x79, 0x9f, ...sharedReferenceBomb(24), BREAK]);
    expect(bombDatum.length / 2).toBe(147);
    const bomb = hostileBlock(cursor, pools, bombDatum);
    const between = syntheticBlocks(cursor, pools, 3, { updates: 1 });
    const deep = hostileBlock(cursor, pools, toHex([0xd8, 0x79, 0x9f, ...deepNesting(10_000), BREAK]));
    const after = syntheticBlocks(cursor, pools, 5, { updates: 1 });
    const chain = [ANCHOR, ...created, ...before, bomb.block, ...between, deep.block, ...after];

    fake = await FakeOgmios.start(chain);
    const dir = mkdtempSync(join(tmpdir(), 'chain-hostile-'));
    server = await startServerProcess({
      dataDir: dir,
      args: ['--source', 'chain', '--ogmios', fake.url, '--chain-start', `${ANCHOR.slot}.${ANCHOR.id}`],
    });
    const origin = server.origin;
    const health = async () => (await (await fetch(`${origin}/healthz`)).json()) as Health;

    const last = chain.at(-1)?.slot;
    await vi.waitUntil(async () => (await health()).chain.tipSlot === last, { timeout: 30_000, interval: 50 });
    const report = await health();
    // Exactly the two hostile outputs; the other swap of each hostile block is applied.
    expect(report.chain.undecodable).toBe(2);
    expect(report.chain.undecodableByDex).toEqual({ MinswapV2: 2 });
    expect(report.chain.trades).toBe(before.length + between.length + after.length + 2);
    const peak = peakRss(server.pid);
    console.log(
      `hostile datums: peak RSS of the server ${(peak / 2 ** 20).toFixed(0)} MiB, undecodable ${JSON.stringify(report.chain.undecodableByDex)}, trades ${report.chain.trades}`,
    );
    expect(peak).toBeLessThan(PEAK_RSS_BOUND);
    const output = server.output();
    expect(output).toContain(`${bomb.tx}#0`);
    expect(output).toMatch(/CBOR tag 28 \(a shared value\) is refused/);
    expect(output).toContain(`${deep.tx}#0`);
    expect(output).toMatch(/nested deeper than 64/);
    // /api/x/status, without a key: the same outputs per group over the last hour and day of block time, the tip, and
    // how far behind the node's it is (the fake's tip is the last block).
    const status = marketStatusSchema.parse(await (await fetch(`${origin}/api/x/status`)).json());
    const decodedSwaps = 4 + before.length + between.length + after.length + 2;
    const minswap = status.groups.find((g) => g.group === 'MinswapV2');
    expect(minswap).toEqual({
      group: 'MinswapV2',
      pools: 4,
      decoded_1h: decodedSwaps,
      undecodable_1h: 2,
      decoded_24h: decodedSwaps,
      undecodable_24h: 2,
    });
    expect(
      status.groups.filter((g) => g.group !== 'MinswapV2').every((g) => g.pools === 0 && g.decoded_24h === 0),
    ).toBe(true);
    expect(status).toMatchObject({
      source: 'chain',
      state: 'live',
      tip: { slot: last, height: chain.at(-1)?.height },
      node_tip_slot: last,
      behind: { slots: 0, seconds: 0 },
    });
    // Still up and answering.
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    await server.stop();
    server = undefined;

    // Every swap of the blocks before, between and after the hostile ones is stored, once.
    const handle = await openMarket(dir, 'check');
    try {
      const stored = new Set((await handle.store.trades.list()).map((t) => t.eventId));
      for (const id of swapsOf([...before, ...between, ...after])) expect(stored, id).toContain(id);
      for (const hostile of [bomb.block, deep.block])
        expect(stored).toContain(`${(hostile.transactions[1] as WireTx).id}#0`);
      expect(stored.has(`${bomb.tx}#0`)).toBe(false);
      expect(stored.has(`${deep.tx}#0`)).toBe(false);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
