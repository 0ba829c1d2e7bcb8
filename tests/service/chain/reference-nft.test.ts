import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import { tokenInfoSchema } from '../../../src/shared/api/extensions';
import { tokenStatsSchema } from '../../../src/shared/api/tokens';
import { cip68ByTicker } from '../../support/cip68-fixtures';
import { FakeOgmios } from '../../support/fake-ogmios';
import type { OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';
import {
  nextSyntheticBlock,
  syntheticPoolId,
  type ChainCursor,
  type SyntheticPool,
} from '../../support/synthetic-chain';

/**
 * A CIP-68 token named by chain-sync (docs/chain.md "Token identity"): a Minswap V2 pool of USDM (label 333) trades,
 * then a block moves USDM's reference NFT (label 100) to an output whose inline datum is a real USDM reference datum
 * (tests/fixtures/identity/cip68-reference-datums.json, from cardano-foundation/cf-token-metadata-registry @ 28bd1c67,
 * MIT): the token is named in that block's commit, and a rollback of the block takes it back to its asset name.
 */
const usdm = cip68ByTicker('USDM');

/** A block after `cursor` moving USDM's reference NFT to an output holding `datum` inline. */
function referenceBlock(cursor: ChainCursor, datum: string, fork = 0): OgmiosWireBlock {
  const block = nextSyntheticBlock(cursor, [], { updates: 0, fork });
  return {
    ...block,
    transactions: [
      {
        id: `${block.id.slice(0, 56)}${'ee'.repeat(4)}`,
        spends: 'inputs',
        outputs: [
          {
            address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0',
            value: {
              ada: { lovelace: 3_000_000n },
              [usdm.unit.slice(0, 56)]: { [usdm.unit.slice(56)]: 1n },
              // Another policy's assets beside it: passed by on the asset name prefix.
              ['ab'.repeat(28)]: { '41': 5n },
            },
            datum,
          },
        ],
      },
    ],
  };
}

describe('a CIP-68 reference NFT seen by chain-sync', () => {
  let fake: FakeOgmios;
  let service: TestService;
  const cursor: ChainCursor = { slot: 130_000_000, id: 'c0'.repeat(32), height: 100 };
  const pool: SyntheticPool = {
    lp: '0d'.repeat(32),
    token: usdm.ftUnit,
    a: 5_000_000_000_000n,
    b: 4_000_000_000_000n,
    liquidity: 7_000_000_000n,
  };
  const blocks: OgmiosWireBlock[] = [];

  beforeAll(async () => {
    blocks.push(nextSyntheticBlock(cursor, [], { updates: 0 }));
    for (let i = 0; i < 3; i++) blocks.push(nextSyntheticBlock(cursor, [pool], { updates: 1 }));
    blocks.push(referenceBlock(cursor, usdm.datum));
    fake = await FakeOgmios.start(blocks);
    const start = blocks[0] as OgmiosWireBlock;
    service = await createTestService({
      startMs: (cursor.slot + 1_591_566_291 + 600) * 1000,
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${start.slot}.${start.id}` },
    });
    service.runtime.startLive();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });

  const token = () => service.runtime.market.tokens.get(usdm.ftUnit);
  const info = async () => tokenInfoSchema.parse(await service.getJson(`/api/x/token-info/${usdm.ftUnit}`));
  const price = async () =>
    tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${syntheticPoolId(pool)}`)).current_price;

  it("names the token in the reference NFT's block: its record, row, answers and journal", async () => {
    await vi.waitFor(() => expect(token()?.decimals).toBe(usdm.expected.decimals), { timeout: 20_000, interval: 50 });
    const { name, ticker, decimals } = usdm.expected;
    expect(token()).toMatchObject({ name, ticker, decimals });
    expect(await info()).toMatchObject({
      source: 'cip68',
      name,
      ticker,
      decimals,
      description: 'Fiat-backed stablecoin native to the Cardano blockchain',
      url: 'https://mehen.io/',
    });
    // Whole USDM: the reserves' ratio times 10^6 (USDM's decimals) / 10^6 (ADA's).
    expect(await price()).toBeCloseTo(Number(pool.a) / Number(pool.b), 9);
    const { store } = runtimeInternals(service.runtime);
    const tip = blocks.at(-1) as OgmiosWireBlock;
    expect((await store.market.load()).identities).toEqual([
      expect.objectContaining({ unit: usdm.ftUnit, source: 'cip68', name, decimals, at: tip.slot + 1_591_566_291 }),
    ]);
    expect((await store.market.journal()).at(-1)).toMatchObject({
      slot: tip.slot,
      identities: [[usdm.ftUnit, 'cip68', null]],
    });
  });

  it('puts the asset name back when the block is rolled back, and names it again when a block brings it back', async () => {
    const before = blocks[3] as OgmiosWireBlock;
    fake.rollBackTo(before.slot);
    await vi.waitFor(() => expect(token()?.decimals).toBe(0), { timeout: 20_000, interval: 50 });
    expect(token()?.name).toBe('USDM');
    expect(await info()).toMatchObject({ source: 'asset-name', decimals: 0 });
    expect(await info()).not.toHaveProperty('description');
    const { store } = runtimeInternals(service.runtime);
    expect((await store.market.load()).identities).toBeUndefined();
    expect(service.runtime.market.identities.size).toBe(0);
    // Raw units in the store: the price in whole units of 0 decimals, 10^6 off again, nothing rewritten.
    expect(await price()).toBeCloseTo((Number(pool.a) / Number(pool.b)) * 1e-6, 15);

    const again = referenceBlock(cursor, usdm.datum, 1);
    fake.extend([{ ...again, ancestor: before.id }]);
    await vi.waitFor(() => expect(token()?.decimals).toBe(usdm.expected.decimals), { timeout: 20_000, interval: 50 });
    expect((await info()).source).toBe('cip68');
  });
});
