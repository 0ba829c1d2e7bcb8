import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotTime } from '../../../src/service/chain/block';
import { tokenStatsSchema } from '../../../src/shared/api/tokens';
import { symbolInfoResponseSchema } from '../../../src/shared/api/symbol-info';
import { displayAssetName, splitTokenUnit } from '../../../src/shared/id-rules';
import { fallbackTicker } from '../../../src/service/identity/identity';
import { importTrades } from '../../../src/service/importers/trades';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STREAM_PATH, streamInit } from '../../support/builders';
import { FakeOgmios } from '../../support/fake-ogmios';
import { hasPrise, realOgmiosBlocks, type OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';
import { readStream } from '../../support/stream';
import { runtimeInternals } from '../../../src/service/runtime-internals';

/**
 * `--source chain` end to end, in process: the real runtime follows a local fake Ogmios (a real
 * WebSocket server speaking Ogmios v6 JSON-RPC) serving prise's real mainnet blocks 9,894,906-915.
 * In them, the Minswap pool of NFT …b6c6ff405909 first appears at slot 115586003 (created, no event)
 * and trades at slot 115586077 (transaction 3ed2b954…): one trade event. (Other DEXs' pools trade in
 * them too, MuesliSwap's ADA/PBX at slots 115586039 and 115586077: these tests follow the Minswap pool.)
 */
const TRADE_SLOT = 115_586_077;

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!hasPrise)('--source chain through Ogmios', () => {
  let blocks: OgmiosWireBlock[];
  let fake: FakeOgmios;
  let service: TestService;
  const lines: string[] = [];
  const health = async () =>
    (await (await service.request('/healthz', { key: null })).json()) as {
      source: string;
      chain: {
        tipSlot: number | null;
        tipTime: number | null;
        tipAgeSeconds: number | null;
        state: string;
        reconnects: number;
        garbage: number;
        lastError: string | null;
      };
    };
  const poolId = () => [...service.runtime.market.pools.keys()].find((id) => id.endsWith('b6c6ff405909')) ?? '';
  /** The Minswap pool's stored trades. */
  const poolTrades = async () =>
    runtimeInternals(service.runtime).store.trades.list({ pool: service.runtime.market.pools.get(poolId())?.id ?? -1 });

  beforeAll(async () => {
    blocks = realOgmiosBlocks();
    fake = await FakeOgmios.start(blocks.slice(0, 9));
    const start = blocks[0] as OgmiosWireBlock;
    service = await createTestService({
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${start.slot}.${start.id}` },
      log: (line) => lines.push(line),
    });
    service.runtime.startLive();
  });
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });

  it('creates the pools it sees, with no event and no simulated market beside them', async () => {
    await until('the first nine blocks', async () => (await health()).chain.tipSlot === blocks[8]?.slot);
    const h = await health();
    expect(h.source).toBe('chain');
    expect(h.chain.state).toBe('live');
    // The tip's time is its slot's (Shelley on: slot + 1591566291), its age the wall clock's distance to it.
    expect(h.chain.tipTime).toBe((blocks[8]?.slot ?? 0) + 1_591_566_291);
    expect(h.chain.tipAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(h.chain.garbage).toBe(0);
    expect(poolId()).toMatch(/^0be55d262b29f564998ff81efe21bdc0022621c12f15af08d0f2ddb1/);
    expect(await poolTrades()).toEqual([]);
    expect([...service.runtime.market.pools.values()].every((p) => !p.simulated)).toBe(true);
    expect(() => service.runtime.simulator).toThrow(/source is chain/);
  });

  it('names the tokens it creates as the registry importer names a token without a registry entry, and lists the pools in symbol_info', async () => {
    const tokens = [...service.runtime.market.tokens.values()].filter((t) => t.unit !== '');
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) {
      const { policyId, assetName } = splitTokenUnit(token.unit);
      const decoded = displayAssetName(assetName);
      const name =
        assetName !== '' && decoded !== assetName ? decoded : `${policyId.slice(0, 8)}…${assetName.slice(0, 8)}`;
      expect(token.name, token.unit).toBe(name);
      expect(token.ticker, token.unit).toBe(fallbackTicker(token.unit, name));
      expect(token.decimals).toBe(0);
    }
    // SNEK's pool among them (asset name "SNEK", no registry import here).
    expect(
      tokens.find((t) => t.unit === '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b')?.ticker,
    ).toBe('SNEK');
    const symbols = symbolInfoResponseSchema.parse(await service.getJson('/api/v1/symbol_info?group=Minswap'));
    const dexPools = [...service.runtime.market.pools.values()].filter((p) => p.group === 'Minswap');
    expect(new Set(symbols.ticker)).toEqual(new Set(dexPools.map((p) => p.poolId)));
  });

  it('refuses to import trades into the chain-fed market (a rollback would remove them)', async () => {
    const file = join(service.dataDir, 'import.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'x1', block_time: 1_707_152_000, pool_id: poolId(), previous_price: 1, current_price: 1, previous_tvl: 1, current_tvl: 1, volume: 1 })}\n`,
    );
    const stored = await runtimeInternals(service.runtime).store.trades.count();
    await expect(
      importTrades({ ...runtimeInternals(service.runtime), market: service.runtime.market }, file),
    ).rejects.toThrow(/follows the chain.*--source none/);
    expect(await runtimeInternals(service.runtime).store.trades.count()).toBe(stored);
  });

  it('turns the next state change into a trade event: /history, /tokens/current and an open stream connection get it', async () => {
    // The stream carries Aggregate pools (the spec): the pair's Aggregate moves with its one pool.
    const aggregate = service.runtime.market.pools.get(poolId())?.pair.aggregate.poolId ?? '';
    const stream = readStream(await service.request(STREAM_PATH, streamInit([aggregate])));
    fake.extend(blocks.slice(9));
    let event = await stream.next(15_000);
    while ('s' in event && event.s === 'ok') event = await stream.next(15_000);
    // block_time: the slot's Unix time, 115,586,077 + 1,591,566,291 (Shelley's start, docs/decisions.md);
    // the previous state is the pool's as first seen at slot 115586003 (2,264.525560 ADA, 7,541,914,768 tokens).
    expect(event).toMatchObject({ pool_id: aggregate, block_time: 1_707_152_368 });
    expect((event as { previous_price: number }).previous_price).toBeCloseTo(2_264.52556 / 7_541_914_768, 15);
    await stream.cancel();
    const trades = await poolTrades();
    expect(trades.map((t) => t.eventId)).toEqual([expect.stringMatching(/^3ed2b954[0-9a-f]{56}#\d+$/)]);
    // ADA 2,264.525560 -> 2,364.525560 in the pool: volume 100 ADA; price = ADA per whole token.
    expect(trades[0]?.volume).toBe(100_000_000);
    const t = slotTime(TRADE_SLOT);
    const history = (await service.getJson(
      `/api/v1/history?symbol=${poolId()}&resolution=1min&from=${t - 600}&to=${t + 600}`,
    )) as { s: string; c: number[] };
    expect(history.s).toBe('ok');
    expect(history.c).toHaveLength(1);
    expect(history.c[0]).toBeCloseTo(2_364.52556 / 7_223_870_283, 12);
    const current = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${poolId()}`));
    expect(current.current_price).toBeCloseTo(2_364.52556 / 7_223_870_283, 15);
    expect(current.current_tvl).toBeCloseTo(2 * 2_364.52556, 6);
  });

  it('undoes a rolled-back block: the trade is gone, reserves are back, bars equal a rebuild; the block again gives it once', async () => {
    const before = await runtimeInternals(service.runtime).store.bars.all();
    const trades = await runtimeInternals(service.runtime).store.trades.count();
    // A stream that asked for our rollback lines (the gateway's) gets one naming the point; one that did not (a spec client) gets none.
    const aggregate = service.runtime.market.pools.get(poolId())?.pair.aggregate.poolId ?? '';
    const asked = readStream(
      await service.request(STREAM_PATH, {
        ...streamInit([aggregate], { 'X-Stream-Extensions': 'rollback' }),
        key: service.keys.pro,
      }),
    );
    const spec = readStream(await service.request(STREAM_PATH, streamInit([aggregate])));
    expect(await asked.next()).toEqual({ s: 'ok' });
    expect(await spec.next()).toEqual({ s: 'ok' });
    fake.rollBackTo(blocks[8]?.slot ?? 0);
    await until('the rollback', async () => (await poolTrades()).length === 0);
    const point = blocks[8] as OgmiosWireBlock;
    expect(await asked.next(5_000)).toEqual({
      s: 'rollback',
      slot: point.slot,
      id: point.id,
      block_time: point.slot + 1_591_566_291,
    });
    expect(spec.drainBuffered()).toEqual([]);
    await asked.cancel();
    await spec.cancel();
    const pool = service.runtime.market.pools.get(poolId());
    expect([pool?.baseReserve, pool?.quoteReserve]).toEqual([2_264_525_560, 7_541_914_768]);
    const t = slotTime(TRADE_SLOT);
    const current = tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${poolId()}`));
    expect(current.current_price).toBeCloseTo(2_264.52556 / 7_541_914_768, 15);
    const after = (await service.getJson(
      `/api/v1/history?symbol=${poolId()}&resolution=1min&from=${t - 600}&to=${t + 600}`,
    )) as { t: number[] };
    expect(after.t).toEqual([]);
    const rolledBack = await runtimeInternals(service.runtime).store.bars.all();
    await runtimeInternals(service.runtime).store.bars.rebuild();
    expect(await runtimeInternals(service.runtime).store.bars.all()).toEqual(rolledBack);
    fake.extend(blocks.slice(9));
    await until(
      'the block again',
      async () =>
        (await poolTrades()).length === 1 && (await runtimeInternals(service.runtime).store.trades.count()) === trades,
    );
    // Every series as before, the ADA/PBX Aggregate among them: block 9,894,915 creates a Minswap pool
    // on MuesliSwap's ADA/PBX pair, and the rollback deleted it with the block, so the block again
    // creates it from the same state and the Aggregate sums the same pools.
    expect(await runtimeInternals(service.runtime).store.bars.all()).toEqual(before);
  });

  it('reconnects when Ogmios drops the connection or sends garbage, and resumes at the stored tip with no gap and no double', async () => {
    const reconnects = (await health()).chain.reconnects;
    fake.dropConnections();
    await until(
      'a reconnect',
      async () => (await health()).chain.reconnects > reconnects && (await health()).chain.state === 'live',
    );
    fake.sendGarbage();
    await until(
      'a reconnect after garbage',
      async () => (await health()).chain.reconnects > reconnects + 1 && fake.connections > 0,
    );
    expect((await health()).chain.garbage).toBeGreaterThan(0);
    expect(lines.some((l) => /not JSON/.test(l))).toBe(true);
    await until('following again', async () => (await health()).chain.state === 'live');
    expect(await poolTrades()).toHaveLength(1);
  });

  it('resumes after a restart exactly once, and refuses to start the data directory with another source', async () => {
    service = await service.restart({
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url },
      log: (line) => lines.push(line),
    });
    service.runtime.startLive();
    await until('the stored tip', async () => (await health()).chain.state === 'live');
    expect((await health()).chain.tipSlot).toBe(TRADE_SLOT);
    expect(await poolTrades()).toHaveLength(1);
    await expect(service.restart({ env: { SOURCE: 'simulated' } })).rejects.toThrow(
      /fed by the chain source.*--source simulated/,
    );
  });
});
