import { bech32 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import type { ChainOutput } from '../../../src/service/chain/block';
import { DECODERS, poolOutputs, type PoolState } from '../../../src/service/chain/dexes';
import { spectrum } from '../../../src/service/chain/dexes/spectrum';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DatumError } from '../../../src/service/chain/plutus';
import { marketPools } from '../../support/fixture-market';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * Spectrum on real mainnet pool outputs (tests/fixtures/chain/spectrum.json, sources in its README).
 * Every expected figure below was derived by hand from the output's value and its datum (decoded with
 * a CBOR tool apart from this code), never by the decoder under test. Spectrum sets nothing aside, so
 * the reserves are the value's amounts of X and Y; LP issued = 2^63 − 1 (9_223_372_036_854_775_807)
 * less the LP tokens the pool holds; fee = (1000 − poolFeeNum) × 10 bps. Price and TVL are as the
 * market computes them with ADA as base (ADA 6 decimals; no registry, so the tokens have 0 decimals):
 * price = (ADA reserve / 10^6) / token reserve, TVL = 2 × ADA reserve / 10^6.
 */
const fixture = readChainFixture('spectrum.json');
const splashFixture = readChainFixture('splash.json');
const leftOutFixture = readChainFixture('splash-not-decoded.json');

const output = (tx: string): FixtureOutput => {
  const found = fixture.outputs.find((o) => o.tx === tx);
  if (!found) throw new Error(`no fixture output of ${tx}`);
  return found;
};

interface Expected {
  readonly state: PoolState;
  readonly price: number;
  readonly tvl: number;
}

const EXPECTED: Readonly<Record<string, Expected>> = {
  // COB/ADA, V2 pool script, block 9,894,909. Datum: nft a6dfd1eb….COB_ADA_NFT, X = ADA, Y = b01cd2df….COB,
  // LQ 69b0dc52….COB_ADA_LQ, poolFeeNum 997, stakeAdminPolicy [], lqBound 0.
  aa4ac6fe7aaf586b48c8ac05412291df3ef912ace5288ee4399876a39d8aba46: {
    state: {
      group: 'Spectrum',
      poolId: 'a6dfd1ebceae75a82a29740895a98122ff226d8208196d183ec72284434f425f4144415f4e4654',
      assetA: '',
      assetB: 'b01cd2dffad5d6e840d7420b3e09154a96c796bbd9a57bb3455ba642434f42',
      reserveA: 198_726_306_371n, // the value's lovelace, all of it
      reserveB: 2_502_162_439n, // the value's COB
      liquidity: 21_745_088_014n, // 9_223_372_036_854_775_807 − 9_223_372_015_109_687_793 COB_ADA_LQ held
      feeBps: 30, // (1000 − 997) × 10
    },
    price: 0.000_079_421_824_608, // 198_726.306371 ADA / 2_502_162_439 COB
    tvl: 397_452.612742, // 2 × 198_726.306371
  },
  // AADA/ADA, V1 pool script, block 9,894,912. Datum: nft a22ebe57….AADA_ADA_NFT, X = ADA, Y = 8fef2d34….AADA,
  // LQ ad951d57….AADA_ADA_LQ, poolFeeNum 997, stakeAdminPolicy [13d68210…], lqBound 20_000_000_000.
  '5f019beff046edab2082577419fc2a77cc20144b5f8ecf938465069d30c1c0e6': {
    state: {
      group: 'Spectrum',
      poolId: 'a22ebe57c45d0be3ba4bebca5a9d4877b42d7fd872f3d740414fa124414144415f4144415f4e4654',
      assetA: '',
      assetB: '8fef2d34078659493ce161a6c7fba4b56afefa8535296a5743f6958741414441',
      reserveA: 45_029_510_441n,
      reserveB: 7_270_142_571n,
      liquidity: 17_615_971_819n, // 9_223_372_036_854_775_807 − 9_223_372_019_238_803_988
      feeBps: 30,
    },
    price: 0.000_006_193_758_925_804, // 45_029.510441 / 7_270_142_571
    tvl: 90_059.020882, // 2 × 45_029.510441
  },
  // WMT/ADA, V1 pool script, block 11,186,051. Datum: nft 72f2990e….WMT_ADA_NFT, X = ADA,
  // Y = 1d7f33bd….worldmobiletoken, LQ 51d9d73a….WMT_ADA_LQ, poolFeeNum 997, [3e3afe02…], 20_000_000_000.
  a7dcd1ab4e0fb9ebfd0a391d181a0ecc6d15e55186f854b02d06a01027ae6545: {
    state: {
      group: 'Spectrum',
      poolId: '72f2990e8f906b589926b4290dd511bc846f0ac727c26fd7542f9db2574d545f4144415f4e4654',
      assetA: '',
      assetB: '1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e776f726c646d6f62696c65746f6b656e',
      reserveA: 185_910_601n,
      reserveB: 278_623_086n,
      liquidity: 221_098_950n, // 9_223_372_036_854_775_807 − 9_223_372_036_633_676_857
      feeBps: 30,
    },
    price: 0.000_000_667_247_655_852_9, // 185.910601 / 278_623_086
    tvl: 371.821202, // 2 × 185.910601
  },
  // SUNDAE/ADA, V2 pool script, block 11,842,435. Datum: nft e3a879f8….SUNDAE_ADA_NFT, X = ADA,
  // Y = 9a9693a9….SUNDAE, LQ 3a2a9aff….SUNDAE_ADA_LQ, poolFeeNum 997, [], 0.
  '076b472ba87197f805d74b3d5bfb07e7559b5bb5601efd1e73738b1b445dea64': {
    state: {
      group: 'Spectrum',
      poolId: 'e3a879f88db87ed3107502bf21f0f43a0210ac7546a54887f2c84d7653554e4441455f4144415f4e4654',
      assetA: '',
      assetB: '9a9693a9a37912a5097918f97918d15240c92ab729a0b7c4aa144d7753554e444145',
      reserveA: 7_982_184n,
      reserveB: 923_184_446n,
      liquidity: 84_614_944n, // 9_223_372_036_854_775_807 − 9_223_372_036_770_160_863
      feeBps: 30,
    },
    price: 0.000_000_008_646_358_844_742, // 7.982184 / 923_184_446
    tvl: 15.964368, // 2 × 7.982184
  },
};

/** An output with its inline datum replaced (a damaged copy of a real one). */
const withDatum = (raw: FixtureOutput, datum: string): FixtureOutput => ({ ...raw, datum });

/** An output without its datum. */
const withoutDatum = ({ datum: _, ...raw }: FixtureOutput): FixtureOutput => raw;

/** The Bech32 address paying to `script` with header `header` and stake part `stake` (hex). */
const scriptAddress = (header: number, script: string, stake: string) =>
  bech32.encode('addr', bech32.toWords(Buffer.from(header.toString(16) + script + stake, 'hex')), false);

describe('Spectrum decoder on real mainnet pool outputs', () => {
  it('has four real outputs from four transactions, each expected', () => {
    expect(fixture.dex).toBe('Spectrum');
    expect(new Set(fixture.outputs.map((o) => o.tx)).size).toBe(4);
    expect(Object.keys(EXPECTED).sort()).toEqual(fixture.outputs.map((o) => o.tx).sort());
  });

  it.each(fixture.outputs.map((o) => [o.tx, o] as const))('decodes %s to the state derived by hand', (tx, raw) => {
    const expected = EXPECTED[tx] as Expected;
    expect(spectrum.isPool(fixtureOutput(raw))).toBe(true);
    expect(spectrum.decode(fixtureOutput(raw), fixtureTx(raw))).toEqual(expected.state);
    // Through the registry, as the chain source reads a transaction: only this decoder takes it.
    expect(poolOutputs(fixtureTx(raw))).toEqual([{ index: raw.index, state: expected.state }]);
    expect(DECODERS.filter((d) => d.isPool(fixtureOutput(raw))).map((d) => d.group)).toEqual(['Spectrum']);
  });

  it('gives the market the price and TVL derived by hand, ADA as base', async () => {
    const pools = await marketPools(fixture.outputs);
    expect(pools.size).toBe(4);
    for (const [tx, expected] of Object.entries(EXPECTED)) {
      const pool = pools.get(expected.state.poolId);
      expect(pool, tx).toBeDefined();
      expect(pool?.group).toBe('Spectrum');
      expect(pool?.base).toBe('');
      expect(pool?.quote).toBe(expected.state.assetB);
      expect(pool?.baseReserve).toBe(Number(expected.state.reserveA));
      expect(pool?.quoteReserve).toBe(Number(expected.state.reserveB));
      expect((pool?.price ?? 0) / expected.price).toBeCloseTo(1, 10);
      expect(pool?.tvl).toBeCloseTo(expected.tvl, 6);
    }
  });

  it('takes the same pool script whatever the stake part (LBSP delegation or none)', () => {
    const raw = output('5f019beff046edab2082577419fc2a77cc20144b5f8ecf938465069d30c1c0e6');
    const v1 = 'e628bfd68c07a7a38fcd7d8df650812a9dfdbee54b1ed4c25c87ffbf';
    for (const address of [
      scriptAddress(0x71, v1, ''),
      scriptAddress(0x11, v1, '11'.repeat(28)),
      scriptAddress(0x31, v1, '22'.repeat(28)),
    ]) {
      const moved = { ...raw, address };
      expect(spectrum.isPool(fixtureOutput(moved)), address).toBe(true);
      expect(spectrum.decode(fixtureOutput(moved), fixtureTx(moved))).toEqual(EXPECTED[raw.tx]?.state);
    }
  });
});

describe('Spectrum decoder: what it does not take', () => {
  it('takes no Splash pool, no Splash weighted or stable pool', () => {
    for (const raw of [...splashFixture.outputs, ...leftOutFixture.outputs])
      expect(spectrum.isPool(fixtureOutput(raw)), raw.tx).toBe(false);
  });

  it('takes no plain output, and no stray output sent to a pool address (no unissued LP tokens)', () => {
    const pool = fixtureOutput(output('aa4ac6fe7aaf586b48c8ac05412291df3ef912ace5288ee4399876a39d8aba46'));
    const plain: ChainOutput = {
      index: 0,
      address:
        'addr1q9z4vqe5p9deaf98u6qslkk2s5qtpqcx0wwm33q2yvm85kd2rj90jv7cll3jdltpzusdyzsy0qm6yz7v7sjqt86ltzjsxyskjg',
      lovelace: 5_000_000n,
      assets: new Map(),
    };
    const stray: ChainOutput = {
      ...pool,
      lovelace: 2_000_000n,
      assets: new Map([['b01cd2dffad5d6e840d7420b3e09154a96c796bbd9a57bb3455ba642434f42', 1_000n]]),
    };
    expect(spectrum.isPool(plain)).toBe(false);
    expect(spectrum.isPool(stray)).toBe(false);
    expect(poolOutputs({ id: 'ab'.repeat(32), outputs: [plain, stray], datums: new Map() })).toEqual([]);
  });

  it.skipIf(!hasPrise)(
    "takes exactly the two Spectrum pool outputs of prise's ten real blocks, none of the other outputs",
    () => {
      const taken: string[] = [];
      let outputs = 0;
      for (const block of realOgmiosBlocks().map((b) => fromOgmiosBlock(b))) {
        for (const tx of block.transactions) {
          for (const out of tx.outputs) {
            outputs++;
            if (spectrum.isPool(out)) taken.push(`${tx.id}#${out.index}`);
          }
        }
      }
      expect(outputs).toBeGreaterThan(400);
      expect(taken.sort()).toEqual([
        '5f019beff046edab2082577419fc2a77cc20144b5f8ecf938465069d30c1c0e6#0',
        'aa4ac6fe7aaf586b48c8ac05412291df3ef912ace5288ee4399876a39d8aba46#0',
      ]);
    },
  );
});

describe('Spectrum decoder: damaged pool outputs are a DatumError, never a crash or a wrong state', () => {
  const raw = output('aa4ac6fe7aaf586b48c8ac05412291df3ef912ace5288ee4399876a39d8aba46');
  const datum = raw.datum as string;
  // The real datum is d8799f <nft> <X> <Y> <LQ> 1903e5 (997) 80 ([]) 00 (0) ff: cut or altered by hand below.
  const fieldsEnd = datum.indexOf('1903e58000ff');
  const damaged: readonly (readonly [string, FixtureOutput])[] = [
    ['a wrong constructor (Constr 1)', withDatum(raw, `d87a9f${datum.slice(6)}`)],
    ['the fee field missing', withDatum(raw, `${datum.slice(0, fieldsEnd)}ff`)],
    ['a fee numerator above 1000', withDatum(raw, `${datum.slice(0, fieldsEnd)}1907d08000ff`)],
    ['an asset that is not an asset class', withDatum(raw, datum.replace('d8799f4040ff', '4040'))],
    ['no datum at all', withoutDatum(raw)],
    [
      'the pool NFT missing from the value',
      {
        ...raw,
        value: Object.fromEntries(
          Object.entries(raw.value).filter(([unit]) => !unit.endsWith('434f425f4144415f4e4654')),
        ),
      },
    ],
    [
      'the datum LP token not held',
      {
        ...raw,
        value: Object.fromEntries(
          Object.entries(raw.value).map(([u, q]) => [u.endsWith('4c51') ? `${u.slice(0, -2)}52` : u, q]),
        ),
      },
    ],
  ];

  it.each(damaged)('%s', (_, bad) => {
    expect(spectrum.isPool(fixtureOutput(bad))).toBe(true);
    expect(() => spectrum.decode(fixtureOutput(bad), fixtureTx(bad))).toThrow(DatumError);
    const [found] = poolOutputs(fixtureTx(bad));
    expect(found).toMatchObject({ index: raw.index, group: 'Spectrum' });
    expect(found && 'error' in found ? found.error : '').not.toBe('');
  });
});
