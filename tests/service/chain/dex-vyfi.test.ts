import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake2b } from '@noble/hashes/blake2.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainOutput, ChainTx } from '../../../src/service/chain/block';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { poolOutputs } from '../../../src/service/chain/dexes/index';
import { vyFi, vyFiDecoder } from '../../../src/service/chain/dexes/vyfi';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DatumError } from '../../../src/service/chain/plutus';
import { poolPrice, poolTvl } from '../../../src/service/market/model';
import { openMarket, type MarketHandle } from '../../../src/service/runtime';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { expectClose } from '../../support/expect-close';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * VyFi on its one real mainnet pool output found in a public repository (tests/fixtures/chain/vyfi.json:
 * the ADA/VYFI pool, output 0 of transaction 39d10447…). The expected numbers were read by hand from the
 * output's value and its witness datum, decoded by hand:
 *   d8799f                   Constr 0 [
 *     1a 19abde7e              barFeeA = 430,694,014      (lovelace owed to the Bar)
 *     1a 08f9be91              barFeeB = 150,584,977      (VYFI owed to the Bar)
 *     1b 000002e46f4eeb64      totalLpTokens = 3,180,143,242,084
 *   ff                       ]
 * Value: 2,781,797,238,187 lovelace, 3,807,417,460,645 VYFI, the pool NFT c285d6d7… (empty name) ×1.
 */
const fixture = readChainFixture('vyfi.json');
const raw = fixture.outputs[0] as FixtureOutput;

const POOL_NFT = 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db';
const VYFI = '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649';
// reserve A = 2,781,797,238,187 (lovelace) − 430,694,014 (bar fee A) = 2,781,366,544,173
const RESERVE_A = 2_781_366_544_173n;
// reserve B = 3,807,417,460,645 (VYFI) − 150,584,977 (bar fee B) = 3,807,266,875,668
const RESERVE_B = 3_807_266_875_668n;

describe('VyFi decoder on a real mainnet output', () => {
  it('the fixture datum is the witness of the output datum hash', () => {
    expect(Buffer.from(blake2b(Buffer.from(raw.witnessDatum ?? '', 'hex'), { dkLen: 32 })).toString('hex')).toBe(raw.datumHash);
  });

  it('decodes the ADA/VYFI pool: NFT, assets, reserves less the Bar fees, LP supply, fee', () => {
    expect(vyFi.isPool(fixtureOutput(raw))).toBe(true);
    expect(vyFi.decode(fixtureOutput(raw), fixtureTx(raw))).toEqual({
      group: 'VyFi',
      poolId: POOL_NFT,
      assetA: '',
      assetB: VYFI,
      reserveA: RESERVE_A,
      reserveB: RESERVE_B,
      liquidity: 3_180_143_242_084n,
      feeBps: 30,
    });
  });

  it('poolOutputs of a transaction holding the output gives the VyFi state', () => {
    expect(poolOutputs(fixtureTx(raw))).toEqual([{ index: 0, state: vyFi.decode(fixtureOutput(raw), fixtureTx(raw)) }]);
  });
});

describe('the VyFi state through the chain ingest (ADA base): price and TVL', () => {
  let dir: string;
  let handle: MarketHandle;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dex-vyfi-'));
    handle = await openMarket(dir, 'test');
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the pool at the price and TVL of its reserves', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const tx: ChainTx = fixtureTx(raw);
    // The block header is a stand-in: the slot only dates the pool's creation.
    expect(await ingest.applyBlock({ slot: 105_400_000, id: tx.id, height: 1, transactions: [tx] })).toMatchObject({ created: 1 });
    const pool = ensureDefined(handle.ingestor.market.pools.get(POOL_NFT), 'the pool');
    expect(pool.group).toBe('VyFi');
    expect(pool.pair.base.unit).toBe('');
    expect(pool.pair.quote.unit).toBe(VYFI);
    expect(pool.feeBps).toBe(30);
    // VYFI has decimals 0 here (no registry import), ADA 6.
    // price = 2,781,366.544173 / 3,807,266,875,668 = 7.305415236185665e-7 (to 16 digits)
    expectClose(poolPrice(pool), 7.305415236185665e-7, 1e-12);
    // TVL = 2 × 2,781,366.544173
    expectClose(poolTvl(pool), 5_562_733.088346, 1e-12);
  });
});

/** The real output with another datum (inline) or value: what a damaged pool output looks like. */
function damaged(datum: string, value: Readonly<Record<string, string>> = raw.value): { output: ChainOutput; tx: ChainTx } {
  const copy: FixtureOutput = { tx: raw.tx, index: raw.index, address: raw.address, value, datum };
  return { output: fixtureOutput(copy), tx: fixtureTx(copy) };
}

describe('VyFi decoder on damaged and foreign outputs', () => {
  it('reads a damaged pool datum as a DatumError, and poolOutputs reports it without throwing', () => {
    const cases: [string, string, RegExp][] = [
      ['constructor 1 instead of 0', 'd87a9f1a19abde7e1a08f9be911b000002e46f4eeb64ff', /constructor 1, expected 0/],
      ['a missing field', 'd8799f1a19abde7e1a08f9be91ff', /2 fields, expected 3/],
      ['a field that is not an integer', 'd8799f1a19abde7e41011b000002e46f4eeb64ff', /bar fee B: not an integer/],
      // bar fee B 1b 0000037… = 3,807,417,460,646: one VYFI more than the pool holds
      ['bar fees larger than the pool', 'd8799f1a19abde7e1b000003767bc3e7a61b000002e46f4eeb64ff', /bar fees larger than the pool/],
      ['a negative bar fee', 'd8799f3a19abde7e1a08f9be911b000002e46f4eeb64ff', /negative/],
    ];
    for (const [what, datum, message] of cases) {
      const { output, tx } = damaged(datum);
      expect(vyFi.isPool(output), what).toBe(true);
      let error: unknown;
      try {
        vyFi.decode(output, tx);
      } catch (caught) {
        error = caught;
      }
      expect(error, what).toBeInstanceOf(DatumError);
      expect((error as Error).message, what).toMatch(message);
      expect(poolOutputs(tx), what).toEqual([{ index: 0, group: 'VyFi', error: (error as Error).message }]);
    }
  });

  it('reads a pool output whose datum is missing from the transaction as a DatumError', () => {
    expect(() => vyFi.decode(fixtureOutput(raw), { ...fixtureTx(raw), datums: new Map() })).toThrow(/VyFi pool datum missing/);
  });

  it('takes only outputs holding the NFT of a known pool: not plain outputs, other DEXs\' pools or other pools', () => {
    const plain: ChainOutput = { index: 0, address: raw.address, lovelace: 2_000_000n, assets: new Map([[VYFI, 5n]]) };
    expect(vyFi.isPool(plain)).toBe(false);
    // Two of the NFT's policy are no pool NFT.
    expect(vyFi.isPool({ ...fixtureOutput(raw), assets: new Map([[POOL_NFT, 2n]]) })).toBe(false);
    for (const other of readChainFixture('muesliswap.json').outputs) expect(vyFi.isPool(fixtureOutput(other))).toBe(false);
    // A decoder given no pools takes nothing, this one included.
    expect(vyFiDecoder([]).isPool(fixtureOutput(raw))).toBe(false);
  });

  it('decodes a pool given to it by its list (A and B as the list orders them)', () => {
    const reversed = vyFiDecoder([{ nftPolicy: POOL_NFT, assetA: VYFI, assetB: '', feeBps: 25 }]);
    // The same datum read with the list's order: bar fee A (430,694,014) now taken from VYFI, B (150,584,977) from lovelace.
    expect(reversed.decode(fixtureOutput(raw), fixtureTx(raw))).toMatchObject({
      assetA: VYFI,
      assetB: '',
      // 3,807,417,460,645 − 430,694,014
      reserveA: 3_806_986_766_631n,
      // 2,781,797,238,187 − 150,584,977
      reserveB: 2_781_646_653_210n,
      feeBps: 25,
    });
  });
});

describe.skipIf(!hasPrise)('VyFi in prise\'s real blocks', () => {
  it('takes none of the outputs of the ten blocks (no known VyFi pool moved in them)', () => {
    const taken = realOgmiosBlocks()
      .map((b) => fromOgmiosBlock(b))
      .flatMap((block) => block.transactions.flatMap((tx) => tx.outputs.filter((output) => vyFi.isPool(output))));
    expect(taken).toEqual([]);
  });
});
