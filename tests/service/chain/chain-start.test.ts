import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseChainStart } from '../../../src/service/chain/start';
import { parseServiceConfig } from '../../../src/service/config';
import { FakeKupo } from '../../support/fake-kupo';
import { FakeOgmios } from '../../support/fake-ogmios';
import type { OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';
import { syntheticBlocks, syntheticPools, type ChainCursor } from '../../support/synthetic-chain';
import { runtimeInternals } from '../../../src/service/runtime-internals';

/**
 * Where a new chain-fed market starts (`--chain-start`, docs/chain.md "Start where you want"): the
 * node's tip by default (Ogmios' queryNetwork/tip), about N days back through a Kupo beside Ogmios
 * (`GET /checkpoints/{slot-no}`), or a given block; against a fake Ogmios and a fake Kupo, both real
 * HTTP servers speaking the documented protocols.
 */
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'ee'.repeat(32),
  height: 0,
  slot: 120_000_000,
  ancestor: 'genesis',
  transactions: [],
};
const DAY = 86_400;

let fake: FakeOgmios | undefined;
let kupo: FakeKupo | undefined;
let service: TestService | undefined;
const lines: string[] = [];
afterEach(async () => {
  await service?.close();
  await fake?.close();
  await kupo?.close();
  service = undefined;
  fake = undefined;
  kupo = undefined;
  lines.length = 0;
});

type Health = { chain: { tipSlot: number | null; state: string; lastError: string | null; blocks: number } };
const health = async () => (await (await (service as TestService).request('/healthz', { key: null })).json()) as Health;

async function follow(env: Record<string, string>): Promise<TestService> {
  service = await createTestService({
    env: { SOURCE: 'chain', OGMIOS_URL: fake?.url ?? '', ...env },
    log: (line) => lines.push(line),
    chainBackoff: { initialMs: 20, maxMs: 200 },
  });
  service.runtime.startLive();
  return service;
}

describe('--chain-start', () => {
  it('parses tip, <N>d and <slot>.<block hash>, and says what it takes otherwise', () => {
    expect(parseChainStart('tip')).toEqual({ kind: 'tip' });
    expect(parseChainStart('30d')).toEqual({ kind: 'days', days: 30 });
    expect(parseChainStart(`115585913.${'AB'.repeat(32)}`)).toEqual({
      kind: 'point',
      point: { slot: 115_585_913, id: 'ab'.repeat(32) },
    });
    for (const bad of ['', 'yesterday', '0d', '401d', '30 days', '12.abc', `x.${'ab'.repeat(32)}`])
      expect(() => parseChainStart(bad), bad).toThrow(/tip, <N>d|days back must be/);
  });

  it('refuses <N>d without a chain index to find the block there, naming --kupo and the other way', () => {
    expect(() =>
      parseServiceConfig({ source: 'chain', ogmios: 'ws://127.0.0.1:1337', 'chain-start': '30d' }, {}),
    ).toThrow(
      /--chain-start 30d .*cannot seek by time.*--kupo http:\/\/127\.0\.0\.1:1442.*--chain-start <slot>\.<block hash>/,
    );
    expect(() =>
      parseServiceConfig({ source: 'chain', ogmios: 'ws://127.0.0.1:1337', 'chain-start': 'soon' }, {}),
    ).toThrow(/--chain-start \/ CHAIN_START: chain-start must be tip, <N>d/);
    expect(() =>
      parseServiceConfig({ source: 'chain', ogmios: 'ws://127.0.0.1:1337', 'chain-start': '30d', kupo: 'ftp://x' }, {}),
    ).toThrow(/--kupo \/ KUPO_URL: kupo must be an HTTP address/);
    expect(
      parseServiceConfig(
        { source: 'chain', ogmios: 'ws://127.0.0.1:1337', 'chain-start': '30d', kupo: 'http://127.0.0.1:1442' },
        {},
      ),
    ).toMatchObject({ chainStart: { kind: 'days', days: 30 }, kupoUrl: 'http://127.0.0.1:1442' });
  });

  it("starts a new market at the node's tip by default: nothing before it is applied, the blocks after it are, and it says how to start earlier", async () => {
    const pools = syntheticPools(3);
    const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
    const history = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 3, sequential: true }),
      ...syntheticBlocks(cursor, pools, 10, { updates: 1 }),
    ];
    fake = await FakeOgmios.start([ANCHOR, ...history]);
    await follow({});
    await vi.waitUntil(() => lines.some((l) => l.includes('following')), { timeout: 10_000 });
    expect(fake.requests).toContain('queryNetwork/tip');
    expect(lines.find((l) => l.includes("starts at the node's tip"))).toMatch(
      new RegExp(`slot ${history.at(-1)?.slot}.*--chain-start 30d --kupo .*--chain-start <slot>\\.<block hash>`),
    );
    // Two blocks after the tip: the first sees the pools (created, no event), the second trades one.
    const after = syntheticBlocks(cursor, pools, 2, { updates: 3, sequential: true });
    fake.extend(after);
    await vi.waitUntil(async () => (await health()).chain.tipSlot === after.at(-1)?.slot, { timeout: 10_000 });
    const runtime = (service as TestService).runtime;
    expect((await runtimeInternals(runtime).store.market.journal()).map((r) => r.slot)).toEqual(
      after.map((b) => b.slot),
    );
    const trades = await runtimeInternals(runtime).store.trades.list();
    expect(trades.map((t) => t.eventId.slice(0, 64))).toEqual(
      (after[1]?.transactions as { id: string }[]).map((tx) => tx.id),
    );
  });

  it('starts about N days back at the block a Kupo beside Ogmios names, and catches up from there', async () => {
    const pools = syntheticPools(2);
    const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
    // 60 blocks a day apart, then 5 recent ones: the tip is 60 days after the first.
    const daily = [
      ...syntheticBlocks(cursor, pools, 1, { updates: 2, sequential: true, slotStep: DAY }),
      ...syntheticBlocks(cursor, pools, 59, { updates: 1, slotStep: DAY }),
    ];
    const recent = syntheticBlocks(cursor, pools, 5, { updates: 1 });
    const chain = [ANCHOR, ...daily, ...recent];
    fake = await FakeOgmios.start(chain);
    kupo = await FakeKupo.start(chain.map((b) => ({ slot: b.slot, id: b.id })));
    const tip = chain.at(-1) as OgmiosWireBlock;
    // Kupo's newest block at or before 30 days before the tip: the start, exclusive.
    const target = tip.slot - 30 * DAY;
    const startIndex = chain.findLastIndex((b) => b.slot <= target);
    await follow({ CHAIN_START: '30d', KUPO_URL: kupo.url });
    await vi.waitUntil(async () => (await health()).chain.tipSlot === tip.slot, { timeout: 15_000 });
    expect(kupo.requests).toEqual([`/checkpoints/${target}`]);
    const journal = await runtimeInternals((service as TestService).runtime).store.market.journal();
    expect(journal.map((r) => r.slot)).toEqual(chain.slice(startIndex + 1).map((b) => b.slot));
    expect(lines.some((l) => l.includes(`about 30 day(s) back, at slot ${chain[startIndex]?.slot}`))).toBe(true);
  });

  it('says what is wrong when Kupo cannot name the block (holding nothing that old, answering what is not a point, an error), and starts once it can', async () => {
    const pools = syntheticPools(1);
    const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
    const chain = [ANCHOR, ...syntheticBlocks(cursor, pools, 40, { updates: 1, sequential: true, slotStep: DAY })];
    fake = await FakeOgmios.start(chain);
    // A Kupo that indexes only the last 10 days.
    kupo = await FakeKupo.start(chain.slice(-10).map((b) => ({ slot: b.slot, id: b.id })));
    await follow({ CHAIN_START: '20d', KUPO_URL: kupo.url });
    const reason = async (pattern: RegExp) =>
      vi.waitUntil(async () => pattern.test((await health()).chain.lastError ?? ''), { timeout: 10_000, interval: 50 });
    await reason(/Kupo holds no block at or before slot \d+ \(20 day\(s\) before the tip\).*--since/);
    kupo.answer = { status: 200, body: '{"slot":1}' };
    await reason(
      /cannot find the block 20 day\(s\) back: Kupo's answer to GET \/checkpoints\/\d+ is not what its API documents: slot_no: must be a number/,
    );
    // A point out of range is never the start point (issue 45): it stays an error, and the source retries.
    kupo.answer = { status: 200, body: `{"slot_no":-5,"header_hash":"${'ab'.repeat(32)}"}` };
    await reason(/slot_no: must be at least 0/);
    kupo.answer = { status: 200, body: `{"slot_no":${2 ** 53},"header_hash":"${'ab'.repeat(32)}"}` };
    await reason(/slot_no: must be at most \d+, the slot asked/);
    kupo.answer = { status: 503, body: '{}' };
    await reason(/Kupo answered 503/);
    expect((await health()).chain.blocks).toBe(0);
    expect((await runtimeInternals((service as TestService).runtime).store.market.journal()).length).toBe(0);
    // Kupo indexed further back: the start is found, and the market follows from there to the tip.
    kupo.answer = undefined;
    kupo.setPoints(chain.map((b) => ({ slot: b.slot, id: b.id })));
    const tip = chain.at(-1) as OgmiosWireBlock;
    await vi.waitUntil(async () => (await health()).chain.tipSlot === tip.slot, { timeout: 10_000 });
    const journal = await runtimeInternals((service as TestService).runtime).store.market.journal();
    expect(journal[0]?.slot).toBe(chain[chain.findLastIndex((b) => b.slot <= tip.slot - 20 * DAY) + 1]?.slot);
  }, 30_000);
});
