import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChainTx } from '../../../src/service/chain/block';
import { poolOutputs } from '../../../src/service/chain/dexes';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DEX_GROUPS } from '../../../src/shared/groups';
import { CHAIN_FIXTURES_DIR, fixtureBlock, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { FakeOgmios } from '../../support/fake-ogmios';
import {
  hasPrise,
  qualifiedTransactions,
  realOgmiosBlocks,
  toChainTxs,
  type OgmiosWireBlock,
} from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';

/**
 * A chain-fed market with pools of every DEX group: prise's ten real mainnet blocks (Minswap V1/V2,
 * SundaeSwap, WingRiders, MuesliSwap, Spectrum pools among their transactions) and one more block
 * holding every real pool output kept in tests/fixtures/chain (SundaeSwap V3, WingRiders V2, Splash,
 * VyFi and the others) and the outputs of one of prise's real Minswap V2, SundaeSwap and WingRiders transactions, followed
 * through a fake Ogmios by the real runtime. symbol_info lists exactly
 * the pools seen on chain, each in its group, and an Aggregate sums its pair's pools across groups
 * (ADA/NIGHT trades on SundaeSwap V3 and WingRiders V2).
 */

/** A real transaction's outputs (prise's qualified transactions) as fixture outputs. */
function asFixtureOutputs(tx: ChainTx): FixtureOutput[] {
  return tx.outputs.map((o) => {
    const value: Record<string, string> = { lovelace: o.lovelace.toString() };
    for (const [unit, amount] of o.assets) value[unit] = amount.toString();
    const witnessDatum = o.datumHash ? tx.datums.get(o.datumHash) : undefined;
    return {
      tx: tx.id,
      index: o.index,
      address: o.address,
      value,
      ...(o.datum ? { datum: o.datum } : {}),
      ...(o.datumHash ? { datumHash: o.datumHash } : {}),
      ...(witnessDatum ? { witnessDatum } : {}),
    };
  });
}

describe.skipIf(!hasPrise)('a chain-fed market of every DEX group', () => {
  let fake: FakeOgmios;
  let service: TestService;
  let chain: OgmiosWireBlock[];

  beforeAll(async () => {
    const real = realOgmiosBlocks();
    const seen = new Set(real.flatMap((b) => (b.transactions as { id: string }[]).map((tx) => tx.id)));
    // Every decodable fixture output (not the left-out kinds), except those of transactions the real blocks already hold.
    // Prise's ten blocks after the start hold no Minswap V2, SundaeSwap V1 or WingRiders V1 pool output: one of its real transactions
    // of each (with its resolved outputs) joins them.
    const qualified = [...qualifiedTransactions().values()].map((q) => toChainTxs(q).outputs);
    const ofGroup = (group: string) => {
      const tx = qualified.find(
        (t) => !seen.has(t.id) && poolOutputs(t).some((o) => 'state' in o && o.state.group === group),
      );
      if (!tx) throw new Error(`prise holds no ${group} transaction`);
      return asFixtureOutputs(tx);
    };
    const outputs = [
      ...readdirSync(CHAIN_FIXTURES_DIR)
        .filter((f) => f.endsWith('.json') && !f.includes('not-decoded'))
        .flatMap((f) => readChainFixture(f).outputs),
      ...ofGroup('MinswapV2'),
      ...ofGroup('SundaeSwap'),
      ...ofGroup('WingRiders'),
    ].filter((o) => !seen.has(o.tx));
    chain = [...real, fixtureBlock(real.at(-1) as OgmiosWireBlock, outputs)];
    fake = await FakeOgmios.start(chain);
    const start = real[0] as OgmiosWireBlock;
    service = await createTestService({
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${start.slot}.${start.id}` },
    });
    service.runtime.startLive();
    await vi.waitUntil(
      async () =>
        ((await (await service.request('/healthz', { key: null })).json()) as { chain: { tipSlot: number } }).chain
          .tipSlot === chain.at(-1)?.slot,
      { timeout: 20_000 },
    );
  }, 30_000);
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });

  it('lists in symbol_info exactly the pools seen on chain, each in its group, and every group has pools', async () => {
    // What the decoders read from the blocks after the start (the start block itself is not applied).
    const expected = new Map<string, Set<string>>(DEX_GROUPS.map((g) => [g, new Set<string>()]));
    for (const block of chain.slice(1))
      for (const tx of fromOgmiosBlock(block).transactions)
        for (const out of poolOutputs(tx)) if ('state' in out) expected.get(out.state.group)?.add(out.state.poolId);
    for (const group of DEX_GROUPS) {
      const body = (await service.getJson(`/api/v1/symbol_info?group=${group}`)) as {
        ticker: string[];
        'exchange-listed': string[];
      };
      expect(new Set(body.ticker), group).toEqual(expected.get(group));
      expect(body.ticker.length, group).toBeGreaterThan(0);
      expect(new Set(body['exchange-listed'])).toEqual(new Set([group]));
    }
  });

  it('sums every pool of a pair across groups in its Aggregate: ADA/NIGHT on SundaeSwap V3 and WingRiders V2', async () => {
    const aggregates = (await service.getJson('/api/v1/symbol_info?group=Aggregate')) as {
      ticker: string[];
      currency: string[];
    };
    const night = aggregates.currency.findIndex((unit) => unit.endsWith('4e49474854'));
    expect(night).toBeGreaterThanOrEqual(0);
    const aggregate = aggregates.ticker[night] as string;
    const pools = (await service.getJson(`/api/x/pair-pools?pool=${aggregate}`)) as {
      pools: { pool_id: string; group: string }[];
    };
    expect(new Set(pools.pools.map((p) => p.group))).toEqual(new Set(['SundaeSwapV3', 'WingRidersV2']));
    const tvl = async (pool: string) =>
      ((await service.getJson(`/api/v1/tokens/current?pool=${pool}`)) as { current_tvl: number }).current_tvl;
    const parts = await Promise.all(pools.pools.map((p) => tvl(p.pool_id)));
    expect(await tvl(aggregate)).toBeCloseTo(
      parts.reduce((a, b) => a + b, 0),
      6,
    );
  });
});
