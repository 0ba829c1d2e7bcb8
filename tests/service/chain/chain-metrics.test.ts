import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LogFields } from '../../../src/node/log';
import { FakeOgmios } from '../../support/fake-ogmios';
import { registryValue } from '../../support/metrics';
import type { OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';
import { nextSyntheticBlock, syntheticBlocks, syntheticPools, type ChainCursor } from '../../support/synthetic-chain';

/**
 * The chain source as an operator sees it, in process against a local fake Ogmios (a real WebSocket
 * server): not ready until it has caught up with the node, then ready; its metrics equal its
 * follower's status (tip, node tip, lag, blocks, trades, state); a rollback observed with its depth and
 * logged with its slot and block; an undecodable pool output counted by DEX and logged with its block.
 */
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  id: 'cd'.repeat(32),
  height: 0,
  slot: 130_000_000,
  ancestor: 'genesis',
  transactions: [],
};

let fake: FakeOgmios;
let service: TestService;
const registry = new Registry();
const lines: { line: string; fields: LogFields | undefined }[] = [];
const value = (name: string, labels: Record<string, string> = {}) => registryValue(registry, name, labels);
const pools = syntheticPools(3);
const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: ANCHOR.height };
const chain: OgmiosWireBlock[] = [ANCHOR];

beforeAll(async () => {
  // One minute between blocks: 40 blocks are 40 minutes of chain, far behind the node's tip at first.
  chain.push(
    ...syntheticBlocks(cursor, pools, 1, { updates: 3, sequential: true, slotStep: 60 }),
    ...syntheticBlocks(cursor, pools, 40, { updates: 1, slotStep: 60 }),
  );
  fake = await FakeOgmios.start(chain);
  fake.blockDelayMs = 40;
  service = await createTestService({
    env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${ANCHOR.slot}.${ANCHOR.id}` },
    metrics: registry,
    log: (line, fields) => lines.push({ line, fields }),
  });
});
afterAll(async () => {
  await service?.close();
  await fake?.close();
});

describe('the chain source, observed', () => {
  it('is not ready while it catches up with the node, then is, and says so once', async () => {
    expect(await service.runtime.readiness()).toEqual({ store: 'ok', chain: 'catching up with the node (connecting)' });
    service.runtime.startLive();
    const seen: string[] = [];
    await vi.waitUntil(
      async () => {
        const checks = await service.runtime.readiness();
        seen.push(checks.chain ?? '');
        return checks.chain === 'ok';
      },
      { timeout: 20_000, interval: 20 },
    );
    // Far behind first (the node's tip is 40 minutes ahead), then caught up.
    expect(seen.some((s) => /^catching up with the node \(syncing, \d+ s behind\)$/.test(s))).toBe(true);
    const last = chain.at(-1) as OgmiosWireBlock;
    await vi.waitUntil(() => lines.some((l) => l.line.startsWith('chain: caught up')), { timeout: 5_000 });
    const caughtUp = lines.filter((l) => l.line.startsWith('chain: caught up'));
    expect(caughtUp).toHaveLength(1);
    expect(caughtUp[0]?.fields).toMatchObject({
      slot: expect.any(Number),
      block: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await vi.waitUntil(async () => (await value('cdx_chain_tip_slot')) === last.slot, {
      timeout: 20_000,
      interval: 50,
    });
  });

  it("exports what its follower's status says", async () => {
    const health = (await (await service.request('/healthz', { key: null })).json()) as {
      chain: Record<string, unknown>;
    };
    const chainHealth = health.chain;
    expect(await value('cdx_chain_tip_slot')).toBe(chainHealth.tipSlot);
    expect(await value('cdx_chain_node_tip_slot')).toBe(chainHealth.nodeTipSlot);
    expect(await value('cdx_chain_lag_seconds')).toBe(0);
    expect(await value('cdx_chain_blocks_total')).toBe(chainHealth.blocks);
    expect(chainHealth.blocks).toBe(41);
    expect(await value('cdx_chain_trades_total')).toBe(chainHealth.trades);
    expect(chainHealth.trades).toBe(40);
    expect(await value('cdx_chain_state', { state: 'live' })).toBe(1);
    expect(await value('cdx_chain_state', { state: 'syncing' })).toBe(0);
    expect(await value('cdx_chain_reconnects_total')).toBe(0);
    // Read a moment after /healthz's: the wall clock may have crossed a second's rounding in between.
    const age = await value('cdx_chain_tip_age_seconds');
    expect(typeof chainHealth.tipAgeSeconds).toBe('number');
    expect(Math.abs((age ?? Number.NaN) - (chainHealth.tipAgeSeconds as number))).toBeLessThanOrEqual(1);
  });

  it("observes a rollback's depth and logs it with its slot and block", async () => {
    const point = chain.at(-3) as OgmiosWireBlock;
    fake.rollBackTo(point.slot);
    await vi.waitUntil(async () => (await value('cdx_chain_rollback_depth_blocks_count')) === 1, {
      timeout: 10_000,
      interval: 25,
    });
    expect(await value('cdx_chain_rollback_depth_blocks_sum')).toBe(2);
    expect(await value('cdx_chain_rollback_depth_blocks_bucket', { le: '1' })).toBe(0);
    expect(await value('cdx_chain_rollback_depth_blocks_bucket', { le: '2' })).toBe(1);
    expect(await value('cdx_chain_deepest_rollback_blocks')).toBe(2);
    const logged = lines.find((l) => l.line === `chain: rolled back 2 block(s) to slot ${point.slot}`);
    expect(logged?.fields).toMatchObject({ slot: point.slot, block: point.id, blocks: 2 });
    // Still ready: a rollback is the chain's life, not a reason to leave the load balancer.
    expect((await service.runtime.readiness()).chain).toBe('ok');
  });

  it('counts an undecodable pool output by DEX and logs it, at warn, with its block', async () => {
    const after = { slot: chain.at(-3)?.slot ?? 0, id: chain.at(-3)?.id ?? '', height: chain.at(-3)?.height ?? 0 };
    const block = nextSyntheticBlock(after, pools, { updates: 1, fork: 1 });
    const tx = block.transactions[0] as { id: string; outputs: { datum?: string }[] };
    const output = tx.outputs[0];
    if (!output) throw new Error('no pool output');
    output.datum = 'd87980'; // A constructor with no fields: not a Minswap V2 pool datum.
    fake.extend([block]);
    await vi.waitUntil(async () => (await value('cdx_chain_undecodable_outputs_total', { dex: 'MinswapV2' })) === 1, {
      timeout: 10_000,
      interval: 25,
    });
    const logged = lines.find((l) => l.line.includes(`pool output ${tx.id}#0`));
    expect(logged?.fields).toMatchObject({
      level: 'warn',
      dex: 'MinswapV2',
      output: `${tx.id}#0`,
      slot: block.slot,
      block: block.id,
      height: block.height,
    });
  });
});
