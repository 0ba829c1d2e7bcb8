import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { ChainFollower } from '../../../src/service/chain/follower';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import { FakeOgmios } from '../../support/fake-ogmios';
import { faultyEndpoint } from '../../support/faulty-endpoints';
import { installFault, removeFault } from '../../support/sqlite-faults';
import { syntheticBlocks, syntheticPools, type ChainCursor, type SyntheticPool } from '../../support/synthetic-chain';

/**
 * The chain follower against a local Ogmios (a real WebSocket server speaking v6 JSON-RPC) that fails
 * in the ways a real one can: a commit that fails in the middle of a pipelined sync, a node that
 * switched forks while the source was away, frames that are valid JSON but not blocks or points, a
 * node that stops answering. Each time: nothing lost, nothing doubled, bars equal a rebuild.
 */
let dir: string;
let handle: MarketHandle;
let fake: FakeOgmios | undefined;
let follower: ChainFollower | undefined;
const lines: string[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chain-faults-'));
  handle = await openMarket(dir, 'test');
  lines.length = 0;
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  await fake?.close();
  fake = undefined;
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

const origin = (): ChainCursor => ({ slot: 120_000_000, id: 'ee'.repeat(32), height: 0 });
const copy = (pools: readonly SyntheticPool[]) => pools.map((p) => ({ ...p }));

/** The block the source starts at (`--chain-start`): the synthetic chains follow it. */
const ANCHOR = {
  type: 'praos',
  era: 'babbage',
  id: 'ee'.repeat(32),
  height: 0,
  slot: 120_000_000,
  ancestor: 'genesis',
  transactions: [],
} as const;

async function follow(
  blocks: Parameters<typeof FakeOgmios.start>[0],
  options: { heartbeatMs?: number } = {},
): Promise<ChainFollower> {
  fake = await FakeOgmios.start([ANCHOR, ...blocks]);
  const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
  follower = new ChainFollower(ingest, {
    url: fake.url,
    start: { kind: 'point', point: origin() },
    backoff: { initialMs: 20, maxMs: 200 },
    log: (line) => lines.push(line),
    ...options,
  });
  follower.start();
  return follower;
}

/** Every trade's event id, once, and bars equal to a rebuild. */
async function expectWholeAndOnce(expectedEvents: number): Promise<void> {
  const trades = await handle.store.trades.list();
  expect(new Set(trades.map((t) => t.eventId)).size).toBe(trades.length);
  expect(trades).toHaveLength(expectedEvents);
  const bars = await handle.store.bars.all();
  await handle.store.bars.rebuild();
  expect(await handle.store.bars.all()).toEqual(bars);
}

describe('the chain follower, when things go wrong', () => {
  it('asks again for a block whose commit failed mid-sync, and for the blocks already in flight after it: each applied once', async () => {
    const pools = syntheticPools(4);
    const cursor = origin();
    // 40 blocks of one swap each after a first block that creates the pools: 40 trades.
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 4, sequential: true }),
      ...syntheticBlocks(cursor, pools, 40, { updates: 1 }),
    ];
    const failing = chain[12]?.slot ?? 0;
    installFault(
      dir,
      'fail_once',
      `BEFORE INSERT ON chain_journal WHEN NEW.slot = ${failing} BEGIN SELECT RAISE(ABORT, 'injected commit failure'); END`,
    );
    const f = await follow(chain);
    // The failure, then the fault is taken away: the next attempt succeeds.
    await vi.waitUntil(() => lines.some((l) => l.includes('injected commit failure')), {
      timeout: 10_000,
      interval: 20,
    });
    removeFault(dir, 'fail_once');
    await vi.waitUntil(() => f.status().tip?.slot === chain.at(-1)?.slot, { timeout: 15_000, interval: 20 });
    expect(f.status().reconnects).toBeGreaterThan(0);
    expect((await handle.store.market.journal()).map((r) => r.slot)).toEqual(chain.map((b) => b.slot));
    await expectWholeAndOnce(40);
  });

  it('finds its way back when the node switched forks while it was away: the orphaned blocks are undone, the new fork applied', async () => {
    const pools = syntheticPools(3);
    const cursor = origin();
    const common = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 3, sequential: true }),
      ...syntheticBlocks(cursor, pools, 9, { updates: 1 }),
    ];
    const forkPools = copy(pools);
    const forkCursor = { ...cursor };
    const orphaned = syntheticBlocks(cursor, pools, 6, { updates: 2 });
    const f = await follow([...common, ...orphaned]);
    await vi.waitUntil(() => f.status().tip?.slot === orphaned.at(-1)?.slot, { timeout: 10_000, interval: 20 });
    expect(await handle.store.trades.count()).toBe(9 + 12);
    // The node moves to another fork from the last common block while the connection is down.
    const fork = syntheticBlocks(forkCursor, forkPools, 8, { updates: 1, fork: 1 });
    fake?.dropConnections();
    fake?.rollBackTo(common.at(-1)?.slot ?? 0);
    fake?.extend(fork);
    await vi.waitUntil(() => f.status().tip?.slot === fork.at(-1)?.slot, { timeout: 15_000, interval: 20 });
    expect(f.status().tip?.id).toBe(fork.at(-1)?.id);
    const events = (await handle.store.trades.list()).map((t) => t.eventId.split('#')[0]);
    // The orphaned blocks' transactions are gone; the fork's are there.
    const orphanTx = orphaned.flatMap((b) => b.transactions.map((tx) => (tx as { id: string }).id));
    expect(events.filter((e) => orphanTx.includes(e ?? ''))).toEqual([]);
    await expectWholeAndOnce(9 + 8);
    const pool = handle.ingestor.market.pools.get(
      `f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c${forkPools[0]?.lp ?? ''}`,
    );
    expect([pool?.baseReserve, pool?.quoteReserve]).toEqual([Number(forkPools[0]?.a), Number(forkPools[0]?.b)]);
  });

  it('never crashes on frames that are valid JSON but no block or point: counted as garbage, the connection made again, the tip kept', async () => {
    const pools = syntheticPools(2);
    const cursor = origin();
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 5, { updates: 1 }),
    ];
    const f = await follow(chain);
    await vi.waitUntil(() => f.status().tip?.slot === chain.at(-1)?.slot, { timeout: 10_000, interval: 20 });
    const tip = f.status().tip;
    const nodeTip = { slot: 1, id: 'ab'.repeat(32), height: 1 };
    const frames = [
      { direction: 'forward', block: null, tip: nodeTip },
      { direction: 'forward', block: 5, tip: nodeTip },
      { direction: 'forward', block: { id: 'not-a-hash', slot: 1, height: 1 }, tip: nodeTip },
      { direction: 'forward', block: { id: 'ab'.repeat(32), height: 99, transactions: [] }, tip: nodeTip },
      { direction: 'backward', point: { slot: 'x', id: 'ab'.repeat(32) }, tip: nodeTip },
      { direction: 'backward', point: 42, tip: nodeTip },
    ];
    for (const frame of frames) {
      const garbage = f.status().garbage + f.status().reconnects;
      await vi.waitUntil(() => (fake?.connections ?? 0) > 0 && f.status().state === 'live', {
        timeout: 10_000,
        interval: 20,
      });
      // Waiting on a request the follower has in flight at the tip.
      await vi.waitUntil(() => (fake?.requests.filter((r) => r === 'nextBlock').length ?? 0) > 0, {
        timeout: 5_000,
        interval: 20,
      });
      fake?.sendResult(frame);
      await vi.waitUntil(() => f.status().garbage + f.status().reconnects > garbage, { timeout: 10_000, interval: 20 });
    }
    await vi.waitUntil(() => f.status().state === 'live', { timeout: 10_000, interval: 20 });
    expect(f.status().tip).toEqual(tip);
    expect(f.status().garbage).toBe(frames.length);
    expect((await handle.store.market.journal()).at(-1)?.slot).toBe(tip?.slot);
    // A block whose header reads but whose body does not is skipped whole, counted, and the tip moves past it.
    const unreadable = {
      id: 'cd'.repeat(32),
      slot: (tip?.slot ?? 0) + 20,
      height: (tip?.height ?? 0) + 1,
      ancestor: tip?.id,
      transactions: [{ id: 'ef'.repeat(32), outputs: 'none' }],
    };
    fake?.sendResult({ direction: 'forward', block: unreadable, tip: nodeTip });
    await vi.waitUntil(() => f.status().tip?.id === unreadable.id, { timeout: 10_000, interval: 20 });
    expect(f.status().unreadableBlocks).toBe(1);
    expect(lines.some((l) => l.includes(`slot ${unreadable.slot} (${unreadable.id}) skipped`))).toBe(true);
    await expectWholeAndOnce(5);
  });

  it('drops a connection the node stopped answering (no pong) and resumes once it answers again', async () => {
    const pools = syntheticPools(2);
    const cursor = origin();
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 3, { updates: 1 }),
    ];
    const f = await follow(chain, { heartbeatMs: 100 });
    await vi.waitUntil(() => f.status().tip?.slot === chain.at(-1)?.slot, { timeout: 10_000, interval: 20 });
    if (!fake) throw new Error('no fake');
    fake.silent = true;
    await vi.waitUntil(() => f.status().state === 'reconnecting' || f.status().state === 'connecting', {
      timeout: 5_000,
      interval: 10,
    });
    expect(f.status().lastError).toMatch(/did not answer a ping/);
    const more = syntheticBlocks(cursor, pools, 2, { updates: 1 });
    fake.extend(more);
    fake.resume();
    await vi.waitUntil(() => f.status().tip?.slot === more.at(-1)?.slot, { timeout: 10_000, interval: 20 });
    await expectWholeAndOnce(5);
  });
});

describe("the chain follower's state", () => {
  it('gives up a connection a node accepts and never answers (not even its health check), says so, tries again, and stops at once', async () => {
    const silent = await faultyEndpoint('timeout');
    try {
      const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
      follower = new ChainFollower(ingest, {
        url: `ws://127.0.0.1:${silent.port}`,
        start: { kind: 'point', point: origin() },
        backoff: { initialMs: 20, maxMs: 50 },
        connectTimeoutMs: 200,
        log: (line) => lines.push(line),
      });
      follower.start();
      await vi.waitUntil(() => (follower?.status().reconnects ?? 0) >= 2, { timeout: 5_000, interval: 20 });
      expect(follower.status().lastError).toMatch(/did not answer a connection within/);
      expect(follower.status().state).not.toBe('live');
      await follower.stop();
      // A stop does not wait for an attempt under way: with a 60 s limit, it ends long before.
      follower = new ChainFollower(ingest, {
        url: `ws://127.0.0.1:${silent.port}`,
        start: { kind: 'point', point: origin() },
        connectTimeoutMs: 60_000,
      });
      follower.start();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(follower.status().state).toBe('connecting');
      const stopping = performance.now();
      await follower.stop();
      expect(performance.now() - stopping).toBeLessThan(10_000);
      follower = undefined;
    } finally {
      await silent.close();
    }
  });

  it('is syncing while behind the node, reconnecting when the connection drops mid-sync, live at the tip; tip age and lag follow', async () => {
    const pools = syntheticPools(2);
    const cursor = origin();
    const chain = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true }),
      ...syntheticBlocks(cursor, pools, 30, { updates: 1, slotStep: 600 }),
    ];
    const f = await follow([]);
    if (!fake) throw new Error('no fake');
    fake.blockDelayMs = 40;
    fake.extend(chain);
    const seen = new Set<string>();
    const lags: number[] = [];
    await vi.waitUntil(
      () => {
        const status = f.status();
        seen.add(status.state);
        if (status.lagSeconds !== undefined) lags.push(status.lagSeconds);
        return (status.tip?.slot ?? 0) >= (chain[10]?.slot ?? 0);
      },
      { timeout: 10_000, interval: 5 },
    );
    expect(seen).toContain('syncing');
    // Behind the node by whole blocks of 600 s each while syncing.
    expect(Math.max(...lags)).toBeGreaterThanOrEqual(600);
    fake.dropConnections();
    await vi.waitUntil(
      () => {
        seen.add(f.status().state);
        return seen.has('reconnecting');
      },
      { timeout: 5_000, interval: 2 },
    );
    fake.blockDelayMs = 0;
    await vi.waitUntil(() => f.status().tip?.slot === chain.at(-1)?.slot && f.status().state === 'live', {
      timeout: 10_000,
      interval: 20,
    });
    const status = f.status();
    expect(status.lagSeconds).toBe(0);
    // The tip's block was made at slot + 1,591,566,291: its age is measured from then.
    expect(status.tipAgeSeconds).toBeCloseTo(Date.now() / 1000 - ((chain.at(-1)?.slot ?? 0) + 1_591_566_291), -1);
    await expectWholeAndOnce(30);
  });
});
