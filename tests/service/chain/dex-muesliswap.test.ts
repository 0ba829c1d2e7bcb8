import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake2b } from '@noble/hashes/blake2.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainOutput, ChainTx } from '../../../src/service/chain/block';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { muesliSwap } from '../../../src/service/chain/dexes/muesliswap';
import { poolOutputs } from '../../../src/service/chain/dexes/index';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DatumError } from '../../../src/service/chain/plutus';
import { poolPrice, poolTvl } from '../../../src/service/market/model';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { expectClose } from '../../support/expect-close';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * MuesliSwap's AMM pools on real mainnet outputs (tests/fixtures/chain/muesliswap.json: three states of
 * the ADA/PBX pool from prise's blocks 9,894,907, 9,894,911 and 9,894,915). Every expected number below
 * was read by hand from the output's value and its witness datum, decoded by hand:
 *   d8799f                                   Constr 0 [
 *     d8799f 40 40 ff                          coin A = ("", "")                     ADA
 *     d8799f 581c cc8d1b02…24c7fb6             coin B = (cc8d1b02…, 50617269627573)  "Paribus" (PBX)
 *            47 50617269627573 ff
 *     1b 00000396889a0712                      totalLiquidity = 0x396889a0712 = 3,945,071,773,458
 *     18 1e                                    swapFee = 30 (of 10,000)
 *   ff                                       ]
 * The same datum (hash 42d7e8a1…) in all three: swaps leave it unchanged (OnChain.hs, `datum == outputPoolDatum`).
 */
const fixture = readChainFixture('muesliswap.json');
const out = (i: number): FixtureOutput => fixture.outputs[i] as FixtureOutput;

const POOL_NFT =
  '909133088303c49f3a30f1cc8ed553a73857a29779f6c6561cd8093f15751f796d36a11876b8700150e7c8b1e9a686e34d6050fe9dd3da2c7bcfa421';
const PBX = 'cc8d1b026353022abbfcc2e1e71159f9e308d9c6e905ac1db24c7fb650617269627573';
const LP_SUPPLY = 3_945_071_773_458n;

/** Nothing in the pool value is set aside: reserve A = all the lovelace, reserve B = all the PBX (OnChain.hs `checkSwap`). */
const expected = [
  // 88202965…#3: 199,311,815,131 lovelace, 83,621,817,460,139 PBX.
  { reserveA: 199_311_815_131n, reserveB: 83_621_817_460_139n },
  // 05a77fb8…#2: 198,368,144,623 lovelace, 84,020,817,460,139 PBX (a sale of 399,000,000,000 PBX for 943,670,508 lovelace).
  { reserveA: 198_368_144_623n, reserveB: 84_020_817_460_139n },
  // 53748ef2…#4: 202,345,526,333 lovelace, 82,374,152,867,042 PBX (a purchase of PBX for 3,977,381,710 lovelace).
  { reserveA: 202_345_526_333n, reserveB: 82_374_152_867_042n },
];

describe('MuesliSwap decoder on real mainnet outputs', () => {
  it('each fixture datum is the witness of the output datum hash', () => {
    for (const raw of fixture.outputs) {
      expect(Buffer.from(blake2b(Buffer.from(raw.witnessDatum ?? '', 'hex'), { dkLen: 32 })).toString('hex')).toBe(
        raw.datumHash,
      );
    }
  });

  it.each([0, 1, 2])('decodes output %i: pool NFT, coins, reserves, LP supply, fee', (i) => {
    const raw = out(i);
    expect(muesliSwap.isPool(fixtureOutput(raw))).toBe(true);
    expect(muesliSwap.decode(fixtureOutput(raw), fixtureTx(raw))).toEqual({
      group: 'MuesliSwap',
      poolId: POOL_NFT,
      assetA: '',
      assetB: PBX,
      ...expected[i],
      liquidity: LP_SUPPLY,
      feeBps: 30,
    });
  });

  it('poolOutputs of a transaction holding the output gives the MuesliSwap state', () => {
    const raw = out(0);
    expect(poolOutputs(fixtureTx(raw))).toEqual([
      { index: 3, state: muesliSwap.decode(fixtureOutput(raw), fixtureTx(raw)) },
    ]);
  });
});

describe('MuesliSwap states through the chain ingest (ADA base): price and TVL', () => {
  let dir: string;
  let handle: MarketHandle;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dex-muesliswap-'));
    handle = await openMarket(dir, 'test');
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the pool at the first state and trades to the next two, at the prices and TVLs of the reserves', async () => {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    // The three outputs' real slots (prise's blocks 9,894,907, 9,894,911, 9,894,915); the block ids are stand-ins.
    const slots = [115_585_929, 115_586_039, 115_586_077];
    // PBX has decimals 0 here (no registry import), ADA 6: price = (reserve A / 10^6) / reserve B (to 16 digits); TVL = 2 × reserve A / 10^6.
    const prices = [
      // 199,311.815131 / 83,621,817,460,139
      2.383490591148755e-9,
      // 198,368.144623 / 84,020,817,460,139
      2.360940426664016e-9,
      // 202,345.526333 / 82,374,152,867,042
      2.456420118330087e-9,
    ];
    const tvls = [398_623.630262, 396_736.289246, 404_691.052666];
    const reports = [];
    for (const [i, slot] of slots.entries()) {
      const tx: ChainTx = fixtureTx(out(i));
      reports.push(await ingest.applyBlock({ slot, id: tx.id, height: i + 1, transactions: [tx] }));
      const pool = ensureDefined(handle.ingestor.market.pools.get(POOL_NFT), 'the pool');
      expect(pool.group).toBe('MuesliSwap');
      expect(pool.pair.base.unit).toBe('');
      expect(pool.pair.quote.unit).toBe(PBX);
      expect(pool.feeBps).toBe(30);
      expectClose(poolPrice(pool), ensureDefined(prices[i]), 1e-12);
      expectClose(poolTvl(pool), ensureDefined(tvls[i]), 1e-12);
    }
    expect(reports.map((r) => [r.created, r.trades])).toEqual([
      [1, 0],
      [0, 1],
      [0, 1],
    ]);
    expect(await handle.store.trades.count()).toBe(2);
  });
});

/** A copy of the first real output with its datum or value changed: what a damaged pool output looks like. */
function damaged(
  datum: string,
  value: Readonly<Record<string, string>> = out(0).value,
): { output: ChainOutput; tx: ChainTx } {
  const { tx, index, address } = out(0);
  const raw: FixtureOutput = { tx, index, address, value, datum };
  return { output: fixtureOutput(raw), tx: fixtureTx(raw) };
}

/** What decoding throws (undefined if it does not). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('MuesliSwap decoder on damaged and foreign outputs', () => {
  const real = out(0).witnessDatum as string;

  it('reads a damaged pool datum as a DatumError, and poolOutputs reports it without throwing', () => {
    const cases: [string, string, RegExp][] = [
      ['constructor 1 instead of 0', `d87a9f${real.slice(6)}`, /constructor 1, expected 0/],
      // the swap fee (18 1e) left out: three fields
      ['a missing field', real.replace('181eff', 'ff'), /3 fields, expected 4/],
      // coin B's policy as an integer
      [
        'a coin that is not an asset class',
        real.replace('581ccc8d1b026353022abbfcc2e1e71159f9e308d9c6e905ac1db24c7fb6', '00'),
        /coin B policy: not bytes/,
      ],
      // total liquidity (1b 00000396889a0712) made negative (3b …)
      ['a negative LP supply', real.replace('1b00000396889a0712', '3b00000396889a0712'), /out of range/],
      [
        'coin A twice',
        real.replace(
          'd8799f581ccc8d1b026353022abbfcc2e1e71159f9e308d9c6e905ac1db24c7fb64750617269627573ff',
          'd8799f4040ff',
        ),
        /one coin twice/,
      ],
    ];
    for (const [what, datum, message] of cases) {
      const { output, tx } = damaged(datum);
      expect(muesliSwap.isPool(output), what).toBe(true);
      const error = thrown(() => muesliSwap.decode(output, tx));
      expect(error, what).toBeInstanceOf(DatumError);
      expect((error as Error).message, what).toMatch(message);
      expect(poolOutputs(tx), what).toEqual([{ index: 3, group: 'MuesliSwap', error: (error as Error).message }]);
    }
    // Bytes that are not CBOR at all: an error too (the CBOR decoder's), reported the same way.
    const [found] = poolOutputs(damaged('ff').tx);
    expect(found && 'error' in found ? found.group : undefined).toBe('MuesliSwap');
  });

  it('reads a pool output whose datum is missing from the transaction, or without its NFT, as a DatumError', () => {
    const raw = out(0);
    const noWitness: ChainTx = { ...fixtureTx(raw), datums: new Map() };
    expect(() => muesliSwap.decode(fixtureOutput(raw), noWitness)).toThrow(/datum missing/);
    const value = Object.fromEntries(Object.entries(raw.value).filter(([unit]) => unit !== POOL_NFT));
    const noNft = damaged(real, value);
    expect(muesliSwap.isPool(noNft.output)).toBe(true);
    expect(() => muesliSwap.decode(noNft.output, noNft.tx)).toThrow(/without its pool NFT/);
  });

  it('does not take plain outputs, concentrated-liquidity pools or the order book', () => {
    const plain: ChainOutput = {
      index: 0,
      address: out(0).address,
      lovelace: 5_000_000n,
      assets: new Map([[PBX, 10n]]),
    };
    expect(muesliSwap.isPool(plain)).toBe(false);
    // A concentrated-liquidity pool holds the factory token `MuesliSwap_cLP` (policy f33bf12a…) instead.
    const clp = new Map(fixtureOutput(out(0)).assets);
    clp.delete('de9b756719341e79785aa13c164e7fe68c189ed04d61c9876b2fe53f4d7565736c69537761705f414d4d');
    clp.set('f33bf12af1c23d660e29ebb0d3206b0bfc56ffd87ffafe2d36c42a454d7565736c69537761705f634c50', 1n);
    expect(muesliSwap.isPool({ ...fixtureOutput(out(0)), assets: clp })).toBe(false);
    // An order at MuesliSwap's order-book address (IndigoProtocol/iris MuesliSwapAnalyzer ORDER_ADDRESSES) holds no factory token.
    const order: ChainOutput = {
      index: 0,
      address:
        'addr1zyq0kyrml023kwjk8zr86d5gaxrt5w8lxnah8r6m6s4jp4g3r6dxnzml343sx8jweqn4vn3fz2kj8kgu9czghx0jrsyqqktyhv',
      lovelace: 2_650_000n,
      assets: new Map([[PBX, 1_000_000n]]),
    };
    expect(muesliSwap.isPool(order)).toBe(false);
  });

  it('reads a Plutus V1 pool datum by its own layout (the contract source: the fee is the sixth field)', () => {
    // Not a real output: the V1 datum layout of MuesliSwapTeam/muesliswap-cardano-pool-contracts at
    // 1971f0d (coinA, coinB, totalLiquidity, rootKLast, Nothing, swapFee, extraFeeDenom) around the
    // first real output's coins, with the V1 factory token and a V1 NFT. It checks the field positions.
    const datum =
      'd8799fd8799f4040ffd8799f581ccc8d1b026353022abbfcc2e1e71159f9e308d9c6e905ac1db24c7fb64750617269627573ff1a000f42401a00989680d87a80181906ff';
    const value = {
      lovelace: '1000000000',
      [PBX]: '5000000',
      ffcdbb9155da0602280c04d8b36efde35e3416567f9241aff09552694d7565736c69537761705f414d4d: '1',
      '7a8041a0693e6605d010d5185b034d55c79eaf7ef878aae3bdcdbf6701': '1',
    };
    const { output, tx } = damaged(datum, value);
    expect(muesliSwap.isPool(output)).toBe(true);
    // totalLiquidity 1a 000f4240 = 1,000,000; swapFee 18 19 = 25.
    expect(muesliSwap.decode(output, tx)).toMatchObject({
      poolId: '7a8041a0693e6605d010d5185b034d55c79eaf7ef878aae3bdcdbf6701',
      reserveA: 1_000_000_000n,
      reserveB: 5_000_000n,
      liquidity: 1_000_000n,
      feeBps: 25,
    });
    // The V2 layout under a V1 factory token is refused, not read at the wrong positions.
    const v2Layout = damaged(real, value);
    expect(() => muesliSwap.decode(v2Layout.output, v2Layout.tx)).toThrow(/4 fields, expected 7/);
  });
});

describe.skipIf(!hasPrise)("MuesliSwap in prise's real blocks", () => {
  it('takes exactly the three pool outputs among every output of the ten blocks, and decodes them', () => {
    const found: string[] = [];
    for (const block of realOgmiosBlocks().map((b) => fromOgmiosBlock(b))) {
      for (const tx of block.transactions) {
        for (const output of tx.outputs) {
          if (!muesliSwap.isPool(output)) continue;
          found.push(`${tx.id}#${output.index}`);
          expect(muesliSwap.decode(output, tx).poolId).toBe(POOL_NFT);
        }
      }
    }
    expect(found).toEqual(fixture.outputs.map((o) => `${o.tx}#${o.index}`));
  });
});
