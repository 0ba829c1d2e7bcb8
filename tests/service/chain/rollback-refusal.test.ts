import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChainIngest, JOURNAL_BLOCKS, RollbackRefusedError } from '../../../src/service/chain/chain-ingest';
import { ChainFollower } from '../../../src/service/chain/follower';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import { FakeOgmios } from '../../support/fake-ogmios';
import type { OgmiosWireBlock } from '../../support/prise';
import { syntheticBlocks, syntheticPools, type ChainCursor } from '../../support/synthetic-chain';

/**
 * Issue 45: a RollBackward to a point this source does not have — `origin`, a slot before the journal
 * can undo to, a wrong block id at a slot of ours, a slot after the tip — is garbage: refused, counted,
 * the connection made again, the stored tip unchanged. Each case is followed by an honest node, and
 * the market reaches its tip equal to a fresh store that ingested the same chain straight.
 */
const dirs: string[] = [];
let handle: MarketHandle;
let fake: FakeOgmios | undefined;
let follower: ChainFollower | undefined;
const lines: string[] = [];

const START = { slot: 120_000_000, id: 'ee'.repeat(32) };
const ANCHOR = { type: 'praos', era: 'babbage', ...START, height: 0, ancestor: 'genesis', transactions: [] } as const;
const cursorAtStart = (): ChainCursor => ({ ...START, height: 0 });

async function openDir(): Promise<MarketHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'chain-refusal-'));
  dirs.push(dir);
  return openMarket(dir, 'test');
}

beforeEach(async () => {
  handle = await openDir();
  lines.length = 0;
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  await fake?.close();
  fake = undefined;
  await handle.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function follow(blocks: readonly OgmiosWireBlock[]): Promise<ChainFollower> {
  fake = await FakeOgmios.start([ANCHOR, ...blocks]);
  const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
  follower = new ChainFollower(ingest, {
    url: fake.url,
    start: { kind: 'point', point: START },
    backoff: { initialMs: 20, maxMs: 200 },
    log: (line) => lines.push(line),
  });
  follower.start();
  return follower;
}

/** What must equal a straight ingest's: trades, bars, pools and reserves, the journal, LP supplies, the tip. */
async function contents(market: MarketHandle) {
  return {
    rows: await market.store.market.load(),
    trades: (await market.store.trades.list()).map(({ seq: _seq, ...trade }) => trade),
    bars: await market.store.bars.all(),
    journal: await market.store.market.journal(),
    lp: [...(await market.store.market.chainLp())].sort((a, b) => a[0] - b[0]),
    tip: await market.store.market.meta('chain:tip'),
  };
}

/** A fresh store fed `blocks` in order, one commit each. */
async function straight(blocks: readonly OgmiosWireBlock[]): Promise<Awaited<ReturnType<typeof contents>>> {
  const fresh = await openDir();
  try {
    const ingest = await ChainIngest.open(fresh.ingestor, fresh.store.market);
    ingest.startAt(START);
    for (const block of blocks) await ingest.applyBlock(fromOgmiosBlock(block));
    return await contents(fresh);
  } finally {
    await fresh.close();
  }
}

const nodeTip = { slot: 1, id: 'ab'.repeat(32), height: 1 };

describe('a rollback to a point the source does not have', () => {
  const cases: readonly [string, (chain: readonly OgmiosWireBlock[]) => unknown, RegExp][] = [
    ['origin', () => 'origin', /the origin, while the market holds blocks/],
    [
      'a point before the journal (before the market started)',
      () => ({ slot: START.slot - 100, id: '12'.repeat(32) }),
      /before the oldest point the journal can undo to/,
    ],
    [
      'a wrong id at a slot of the journal',
      (chain) => ({ slot: chain[3]?.slot, id: '34'.repeat(32) }),
      /names block 3434.*, but ours there is/,
    ],
    [
      'a point in the future',
      (chain) => ({ slot: (chain.at(-1)?.slot ?? 0) + 500, id: '56'.repeat(32) }),
      /after the tip .*a point in the future/,
    ],
  ];

  for (const [name, pointOf, reason] of cases) {
    it(`is refused as garbage: ${name}; the tip kept, and an honest node then brings the market to its tip as a straight ingest`, async () => {
      const pools = syntheticPools(3);
      const cursor = cursorAtStart();
      const first = [
        ...syntheticBlocks(cursor, pools, 1, { updates: 3, sequential: true }),
        ...syntheticBlocks(cursor, pools, 8, { updates: 1 }),
      ];
      const f = await follow(first);
      await vi.waitUntil(() => f.status().tip?.slot === first.at(-1)?.slot && f.status().state === 'live', {
        timeout: 15_000,
        interval: 20,
      });
      const tip = await handle.store.market.meta('chain:tip');
      const before = await contents(handle);
      // The hostile frame answers the request the follower has waiting at the tip.
      await vi.waitUntil(() => (fake?.requests.filter((r) => r === 'nextBlock').length ?? 0) > 0, {
        timeout: 5_000,
        interval: 20,
      });
      const reconnects = f.status().reconnects;
      fake?.sendResult({ direction: 'backward', point: pointOf(first), tip: nodeTip });
      await vi.waitUntil(() => f.status().reconnects > reconnects, { timeout: 10_000, interval: 20 });
      expect(f.status().refusedRollbacks).toBe(1);
      expect(f.status().garbage).toBe(1);
      expect(f.status().rollbacks).toBe(0);
      // Said in the log (the status's lastError says it too, until the reconnect it asks for succeeds, which may
      // already have happened by now).
      expect(lines.some((line) => reason.test(line))).toBe(true);
      // Nothing changed: the stored tip, the trades, the bars, the journal.
      expect(await handle.store.market.meta('chain:tip')).toBe(tip);
      expect(await contents(handle)).toEqual(before);
      // The honest node goes on: the follower resumes at its tip and takes what follows.
      const more = syntheticBlocks(cursor, pools, 6, { updates: 2 });
      fake?.extend(more);
      await vi.waitUntil(() => f.status().tip?.slot === more.at(-1)?.slot, { timeout: 15_000, interval: 20 });
      expect(await contents(handle)).toEqual(await straight([...first, ...more]));
      expect(await handle.store.trades.count()).toBe(8 + 12);
    });
  }

  it('still takes every point it has: the tip, a block of the journal, and its start (undoing every block)', async () => {
    const pools = syntheticPools(2);
    const cursor = cursorAtStart();
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 5, { updates: 1 }),
    ];
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    ingest.startAt(START);
    for (const block of chain) await ingest.applyBlock(fromOgmiosBlock(block));
    const at = (i: number) => ({ slot: chain[i]?.slot ?? 0, id: chain[i]?.id ?? '' });
    expect(await ingest.rollBackTo(at(5))).toBe(0);
    expect(await ingest.rollBackTo(at(3))).toBe(2);
    expect(await ingest.rollBackTo(START)).toBe(4);
    expect(await handle.store.trades.count()).toBe(0);
    expect(JSON.parse((await handle.store.market.meta('chain:tip')) ?? '{}')).toMatchObject(START);
    // After a reopen the start is still the journal's base.
    const reopened = await ChainIngest.open(handle.ingestor, handle.store.market);
    // `origin`, as fromOgmiosPoint gives it.
    await expect(reopened.rollBackTo({ slot: -1, id: '' })).rejects.toThrow(/the origin/);
    await expect(reopened.rollBackTo({ slot: START.slot, id: '99'.repeat(32) })).rejects.toBeInstanceOf(
      RollbackRefusedError,
    );
    expect(await reopened.rollBackTo(START)).toBe(0);
  });

  it(`keeps ${JOURNAL_BLOCKS} blocks (k) and can undo every one of them: to the newest block it let go, and no further`, async () => {
    const pools = syntheticPools(2);
    const cursor = cursorAtStart();
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, JOURNAL_BLOCKS + 9, { updates: 1 }),
    ];
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    ingest.startAt(START);
    for (const [i, block] of chain.entries()) {
      await ingest.applyBlock(fromOgmiosBlock(block), { commit: false });
      if (i % 500 === 499) await ingest.flush();
    }
    await ingest.flush();
    const journal = await handle.store.market.journal();
    expect(journal).toHaveLength(JOURNAL_BLOCKS);
    // The base: the block before the journal's oldest row.
    const base = chain[chain.length - JOURNAL_BLOCKS - 1] as OgmiosWireBlock;
    const deeper = chain[chain.length - JOURNAL_BLOCKS - 2] as OgmiosWireBlock;
    expect(journal[0]?.slot).toBe(chain[chain.length - JOURNAL_BLOCKS]?.slot);
    await expect(ingest.rollBackTo({ slot: deeper.slot, id: deeper.id })).rejects.toThrow(
      /before the oldest point the journal can undo to/,
    );
    expect(await ingest.rollBackTo({ slot: base.slot, id: base.id })).toBe(JOURNAL_BLOCKS);
    expect(JSON.parse((await handle.store.market.meta('chain:tip')) ?? '{}')).toMatchObject({
      slot: base.slot,
      id: base.id,
      height: base.height,
    });
  }, 120_000);
});
