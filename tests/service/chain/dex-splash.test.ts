import { bech32 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import type { ChainOutput } from '../../../src/service/chain/block';
import { DECODERS, poolOutputs, type PoolState } from '../../../src/service/chain/dexes';
import { splash } from '../../../src/service/chain/dexes/splash';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { DatumError } from '../../../src/service/chain/plutus';
import { marketPools } from '../../support/fixture-market';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * Splash on real mainnet pool outputs (tests/fixtures/chain/splash.json; the weighted and stable pools
 * it leaves out in splash-not-decoded.json; sources in the README there). Every expected figure below
 * was derived by hand from the output's value and its datum (decoded with a CBOR tool apart from this
 * code), never by the decoder under test:
 * - reserves = the value's amounts of X and Y less the datum's treasuryX/Y (and royaltyX/Y);
 * - LP issued = 2^63 − 1 (9_223_372_036_854_775_807) less the LP tokens the pool holds;
 * - fee (of 100,000) = 100,000 − (feeNum − treasuryFee [− royaltyFee]); bps = that / 10.
 * Price and TVL are as the market computes them with ADA as base (ADA 6 decimals; no registry, so
 * tokens have 0 decimals): price = (ADA reserve / 10^6) / token reserve, TVL = 2 × ADA reserve / 10^6.
 */
const fixture = readChainFixture('splash.json');
const leftOut = readChainFixture('splash-not-decoded.json');
const spectrumFixture = readChainFixture('spectrum.json');

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

const FEE_SWITCH_TX = '6174bd12743ffd60d2b63759ee4e3c3c8e2499622f19231646a5d94d6242add4';
const ROYALTY_TX = 'f1ecf1f379dad6fd3f394bf5e5d47f9ddd847536c2508357056cb1a0dea9ee96';

const EXPECTED: Readonly<Record<string, Expected>> = {
  // rsERG/ADA, fee-switch pool (script f002facf…), block 11,882,375. Datum: nft 5cb6e093….rsERG_ADA_NFT,
  // X = ADA, Y = 04b95368….rsERG, LQ 84e48173….rsERG_ADA_LQ, feeNum 99_100, treasuryFee 90,
  // treasuryX 8_275_401_719, treasuryY 4_829_701_052_166, DAO [Constr 0 [Constr 1 [ea4ba6a9…]]], lqBound 0, treasury 75c4570e….
  [FEE_SWITCH_TX]: {
    state: {
      group: 'Splash',
      poolId: '5cb6e093f8a900f82ad299c807511b9faf2273adbac58cf4a35a4c9972734552475f4144415f4e4654',
      assetA: '',
      assetB: '04b95368393c821f180deee8229fbd941baaf9bd748ebcdbf7adbb147273455247',
      reserveA: 508_804_062_544n, // 517_079_464_263 lovelace − 8_275_401_719 treasuryX
      reserveB: 455_869_484_320_047n, // 460_699_185_372_213 rsERG − 4_829_701_052_166 treasuryY
      liquidity: 13_217_079_646_639n, // 9_223_372_036_854_775_807 − 9_223_358_819_775_129_168 held
      feeBps: 99, // 100_000 − (99_100 − 90) = 990 of 100_000
    },
    price: 0.000_000_001_116_117_836_452_5, // 508_804.062544 ADA / 455_869_484_320_047 rsERG
    tvl: 1_017_608.125088, // 2 × 508_804.062544
  },
  // STRIKE/ADA, fee-switch V2 pool (script 9dee0659…), block 11,883,152. Datum: nft e73e6517….STRIKE_ADA_NFT,
  // X = ADA, Y = f13ac4d6….STRIKE, LQ fc7116c8….STRIKE_ADA_LQ, feeNum 99_100, treasuryFee 100,
  // treasuryX 1_495_454_012, treasuryY 4_664_329_422, DAO [Constr 0 [Constr 1 [9b1f98ce…]]], lqBound 0, treasury 75c4570e….
  a73556e9ec78372913cdae75d59febdae178400aecdeaee3cafd583d8e07c2d6: {
    state: {
      group: 'Splash',
      poolId: 'e73e65176c6bd31dbc878e317e852c826a534fb949d279a463ecbd18535452494b455f4144415f4e4654',
      assetA: '',
      assetB: 'f13ac4d66b3ee19a6aa0f2a22298737bd907cc95121662fc971b5275535452494b45',
      reserveA: 762_002_846_775n, // 763_498_300_787 − 1_495_454_012
      reserveB: 1_527_246_121_118n, // 1_531_910_450_540 − 4_664_329_422
      liquidity: 1_055_145_376_903n, // 9_223_372_036_854_775_807 − 9_223_370_981_709_398_904
      feeBps: 100, // 100_000 − (99_100 − 100) = 1_000
    },
    price: 0.000_000_498_939_127_255_524_5, // 762_002.846775 / 1_527_246_121_118
    tvl: 1_524_005.69355, // 2 × 762_002.846775
  },
  // HUNT/ADA, royalty pool (script cb684a69…), output #1, block 11,882,131. Datum: nft 7b5dee4d….HUNT_ADA_NFT,
  // X = ADA, Y = 95a427e3….HUNT, LQ f81d167a….HUNT_ADA_LQ, feeNum 99_190, treasuryFee 90, royaltyFee 100,
  // treasuryX 1_176_935_018, treasuryY 8_589_245_205, royaltyX 411_334_926, royaltyY 3_746_026_132,
  // DAO [Constr 0 [Constr 1 [66e711a4…]]], treasury 75c4570e…, royalty key 865319d2…, nonce 6.
  [ROYALTY_TX]: {
    state: {
      group: 'Splash',
      poolId: '7b5dee4d7c3d06882cd52d659b4822f4366ba402053d0e691f1e1ed448554e545f4144415f4e4654',
      assetA: '',
      assetB: '95a427e384527065f2f8946f5e86320d0117839a5e98ea2c0b55fb0048554e54',
      reserveA: 547_701_322_276n, // 549_289_592_220 − 1_176_935_018 treasuryX − 411_334_926 royaltyX
      reserveB: 4_587_481_983_613n, // 4_599_817_254_950 − 8_589_245_205 treasuryY − 3_746_026_132 royaltyY
      liquidity: 1_557_289_866_175n, // 9_223_372_036_854_775_807 − 9_223_370_479_564_909_632
      feeBps: 100, // 100_000 − (99_190 − 90 − 100) = 1_000
    },
    price: 0.000_000_119_390_402_890_398_4, // 547_701.322276 / 4_587_481_983_613
    tvl: 1_095_402.644552, // 2 × 547_701.322276
  },
};

const withDatum = (raw: FixtureOutput, datum: string): FixtureOutput => ({ ...raw, datum });

/** The mainnet Bech32 address with `header`, payment script `script` and stake part `stake` (hex). */
const scriptAddress = (header: number, script: string, stake: string) =>
  bech32.encode('addr', bech32.toWords(Buffer.from(header.toString(16) + script + stake, 'hex')), false);

/** The stake part every fixture pool shares (the pools' stake script b2f6abf6…, splash-core PConstants.hs). */
const POOL_STAKE = 'b2f6abf60ccde92eae1a2f4fdf65f2eaf6208d872c6f0e597cc10b07';

describe('Splash decoder on real mainnet pool outputs', () => {
  it('has three real outputs from three transactions (fee switch, fee switch V2, royalty), each expected', () => {
    expect(fixture.dex).toBe('Splash');
    expect(new Set(fixture.outputs.map((o) => o.tx)).size).toBe(3);
    expect(Object.keys(EXPECTED).sort()).toEqual(fixture.outputs.map((o) => o.tx).sort());
  });

  it.each(fixture.outputs.map((o) => [o.tx, o] as const))('decodes %s to the state derived by hand', (tx, raw) => {
    const expected = EXPECTED[tx] as Expected;
    expect(splash.isPool(fixtureOutput(raw))).toBe(true);
    expect(splash.decode(fixtureOutput(raw), fixtureTx(raw))).toEqual(expected.state);
    expect(poolOutputs(fixtureTx(raw))).toEqual([{ index: raw.index, state: expected.state }]);
    expect(DECODERS.filter((d) => d.isPool(fixtureOutput(raw))).map((d) => d.group)).toEqual(['Splash']);
  });

  it('gives the market the price and TVL derived by hand, ADA as base', async () => {
    const pools = await marketPools(fixture.outputs);
    expect(pools.size).toBe(3);
    for (const [tx, expected] of Object.entries(EXPECTED)) {
      const pool = pools.get(expected.state.poolId);
      expect(pool, tx).toBeDefined();
      expect(pool?.group).toBe('Splash');
      expect(pool?.base).toBe('');
      expect(pool?.quote).toBe(expected.state.assetB);
      expect(pool?.baseReserve).toBe(Number(expected.state.reserveA));
      expect(pool?.quoteReserve).toBe(Number(expected.state.reserveB));
      expect((pool?.price ?? 0) / expected.price).toBeCloseTo(1, 10);
      expect(pool?.tvl).toBeCloseTo(expected.tvl, 6);
    }
  });

  it('decodes a bidirectional-fee pool by its layout (no real one found: built from the fee-switch output)', () => {
    // Constructed, not real: the rsERG fee-switch output moved to the bidirectional-fee script
    // (680f5284…), its datum given the layout of splash-core PPoolBFee.hs: feeNumX 99_100 (1a0001831c),
    // feeNumY 99_700 (1a00018574) in place of feeNum, then treasuryFee 90 and the same treasury.
    const raw = output(FEE_SWITCH_TX);
    const datum = raw.datum as string;
    const bidirectional = {
      ...withDatum(raw, datum.replace('1a0001831c185a', '1a0001831c1a00018574185a')),
      address: scriptAddress(0x31, '680f52841c06f32cecdcdeff2c20ce6b70c2a5249b94d1a2b4eff294', POOL_STAKE),
    };
    expect(splash.isPool(fixtureOutput(bidirectional))).toBe(true);
    // Reserves as the fee-switch pool's (the same treasury); fee: the larger side, 100_000 − 99_100 = 900 → 90 bps.
    expect(splash.decode(fixtureOutput(bidirectional), fixtureTx(bidirectional))).toEqual({
      ...EXPECTED[FEE_SWITCH_TX]?.state,
      feeBps: 90,
    });
    // The fee-switch datum at the bidirectional script is not taken for one: its field 9 is lqBound, not the DAO list.
    const wrongLayout = { ...raw, address: bidirectional.address };
    expect(() => splash.decode(fixtureOutput(wrongLayout), fixtureTx(wrongLayout))).toThrow(DatumError);
  });
});

describe('Splash decoder: what it does not take', () => {
  it('takes none of the weighted (balance) and stable pools it leaves out, nor does any other decoder', () => {
    expect(leftOut.outputs).toHaveLength(3);
    for (const raw of leftOut.outputs) {
      expect(splash.isPool(fixtureOutput(raw)), raw.tx).toBe(false);
      expect(poolOutputs(fixtureTx(raw)), raw.tx).toEqual([]);
    }
  });

  it("takes no Spectrum pool (the generation before: group 'Spectrum')", () => {
    for (const raw of spectrumFixture.outputs) expect(splash.isPool(fixtureOutput(raw)), raw.tx).toBe(false);
  });

  it('takes no plain output, and no stray output sent to a pool address (no unissued LP tokens)', () => {
    const pool = fixtureOutput(output(ROYALTY_TX));
    const plain: ChainOutput = {
      index: 0,
      address:
        'addr1q9z4vqe5p9deaf98u6qslkk2s5qtpqcx0wwm33q2yvm85kd2rj90jv7cll3jdltpzusdyzsy0qm6yz7v7sjqt86ltzjsxyskjg',
      lovelace: 5_000_000n,
      assets: new Map(),
    };
    const stray: ChainOutput = { ...pool, lovelace: 1_500_000n, assets: new Map() };
    expect(splash.isPool(plain)).toBe(false);
    expect(splash.isPool(stray)).toBe(false);
    expect(poolOutputs({ id: 'cd'.repeat(32), outputs: [plain, stray], datums: new Map() })).toEqual([]);
  });

  it.skipIf(!hasPrise)(
    "takes none of the outputs of prise's ten real blocks (February 2024: no Splash pool among them)",
    () => {
      const blocks = realOgmiosBlocks().map((b) => fromOgmiosBlock(b));
      const outputs = blocks.flatMap((b) => b.transactions.flatMap((tx) => tx.outputs));
      expect(outputs.length).toBeGreaterThan(400);
      expect(outputs.filter((o) => splash.isPool(o))).toEqual([]);
    },
  );
});

describe('Splash decoder: damaged pool outputs are a DatumError, never a crash or a wrong state', () => {
  const feeSwitch = output(FEE_SWITCH_TX);
  const royalty = output(ROYALTY_TX);
  const fs = feeSwitch.datum as string;
  const ry = royalty.datum as string;
  const damaged: readonly (readonly [string, FixtureOutput])[] = [
    ['a wrong constructor (Constr 1)', withDatum(feeSwitch, `d87a9f${fs.slice(6)}`)],
    // Cut after treasuryX (1b00000001ed409bf7): treasuryY and the rest missing.
    ['the treasury Y field missing', withDatum(feeSwitch, `${fs.slice(0, fs.indexOf('1b00000001ed409bf7') + 18)}ff`)],
    // treasuryX 0x0000ffffffffffff = 281_474_976_710_655 > the 517_079_464_263 lovelace held.
    [
      'a treasury larger than the pool holds',
      withDatum(feeSwitch, fs.replace('1b00000001ed409bf7', '1b0000ffffffffffff')),
    ],
    // royaltyY 3_746_026_132 (1adf47d294) made 0x0000ffffffffffff = 281_474_976_710_655 > the 4_599_817_254_950 HUNT held.
    ['a royalty larger than the pool holds', withDatum(royalty, ry.replace('1adf47d294', '1b0000ffffffffffff'))],
    // feeNum 200_000 (1a00030d40): a fee below zero.
    ['a fee out of range', withDatum(feeSwitch, fs.replace('1a0001831c185a', '1a00030d40185a'))],
    [
      'the pool NFT missing from the value',
      {
        ...feeSwitch,
        value: Object.fromEntries(Object.entries(feeSwitch.value).filter(([unit]) => !unit.endsWith('4e4654'))),
      },
    ],
  ];

  it.each(damaged)('%s', (_, bad) => {
    expect(splash.isPool(fixtureOutput(bad))).toBe(true);
    expect(() => splash.decode(fixtureOutput(bad), fixtureTx(bad))).toThrow(DatumError);
    const [found] = poolOutputs(fixtureTx(bad));
    expect(found).toMatchObject({ index: bad.index, group: 'Splash' });
    expect(found && 'error' in found ? found.error : '').not.toBe('');
  });
});
