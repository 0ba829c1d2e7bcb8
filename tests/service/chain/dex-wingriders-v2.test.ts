import { describe, expect, it } from 'vitest';
import { DatumError } from '../../../src/service/chain/plutus';
import { poolOutputs } from '../../../src/service/chain/dexes';
import { wingRidersV2 } from '../../../src/service/chain/dexes/wingriders-v2';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { marketPools, withDatum } from '../../support/fixture-market';
import { hasPrise, qualifiedTransactions, toChainTxs } from '../../support/prise';

/**
 * The WingRiders V2 decoder on real mainnet pool outputs (tests/fixtures/chain/wingriders-v2.json,
 * sources in its README). Every expected number is derived by hand from the output's value and its
 * datum (read with a CBOR tool), the arithmetic beside it; price and TVL are the model's (ADA base;
 * tokens have decimals 0 in a fresh chain market, so a price is ADA per raw token unit).
 * Datum fields used: 5-8 swap/protocol/project/reserve fee, 9 fee basis, 12/13 treasury A/B,
 * 14/15 project treasury A/B, 16/17 reserve treasury A/B, 20 poolSpecifics.
 */

const fixture = readChainFixture('wingriders-v2.json');
const output = (tx: string): FixtureOutput =>
  ensureDefined(
    fixture.outputs.find((o) => o.tx.startsWith(tx)),
    `fixture output ${tx}`,
  );
const decode = (raw: FixtureOutput) => wingRidersV2.decode(fixtureOutput(raw), fixtureTx(raw));

const POLICY = '6fdc63a1d71dc2c65502b79baae7fb543185702b12c3c5fb639ed737';
const TALOS = '97bbb7db0baef89caefce61b8107ac74c7a7340166b39d906f174bec54616c6f73';
const IAG = '5d16cc1a177b5d9ba9cfa9793b07e60f1fb70fea1f8aef064415d114494147';
const NIGHT = '0691b2fecca1ac4f53cb6dfb00b7013e561d1f34403b957cbb5af1fa4e49474854';

interface Expected {
  readonly tx: string;
  readonly poolId: string;
  readonly assetB: string;
  readonly reserveA: bigint;
  readonly reserveB: bigint;
  readonly liquidity: bigint;
  readonly feeBps: number;
  readonly price: number;
  readonly tvl: number;
}

const EXPECTED: readonly Expected[] = [
  {
    // ADA/Talos, 797d1e3c…#0. Datum: fees 70 + 10 + 20 + 0 of 10_000; treasury A 69_373_718, B 9_253;
    // project treasury A 204_767_332, B 26_838; reserve treasuries 0.
    tx: '797d1e3c',
    poolId: `${POLICY}a555e14a0b9dec3ab1e12ba68c0e381c7573649619998a1063ac0964d4451fe1`,
    assetB: TALOS,
    reserveA: 77_061_400_265n, // 77_338_541_315 lovelace − 3_000_000 pool oil − 69_373_718 − 204_767_332 − 0
    reserveB: 10_958_157n, // 10_994_248 Talos − 9_253 − 26_838 − 0
    liquidity: 688_586_575n, // 9_223_372_036_854_775_807 − 9_223_372_036_166_189_232 LP tokens the pool holds
    feeBps: 100, // (70 + 10 + 20 + 0) × 10_000 / 10_000
    price: 0.007032332194638204, // 77_061.400265 ADA / 10_958_157 Talos
    tvl: 154_122.80053, // 2 × 77_061.400265 ADA
  },
  {
    // ADA/IAG, a09c9a54…#0. Datum: fees 20 + 2 + 8 + 0 of 10_000; treasury A 5_676_697, B 31_240_075;
    // project treasury A 332_649_127, B 3_091_791_806; reserve treasuries 0.
    tx: 'a09c9a54',
    poolId: `${POLICY}0c5eb41c9d6525aae8a8d6f04045a6acc7e0eacae69da96987cf1d9124f22421`,
    assetB: IAG,
    reserveA: 355_228_080_770n, // 355_569_406_594 lovelace − 3_000_000 − 5_676_697 − 332_649_127 − 0
    reserveB: 3_180_875_304_721n, // 3_183_998_336_602 IAG − 31_240_075 − 3_091_791_806 − 0
    liquidity: 921_035_293_272n, // 9_223_372_036_854_775_807 − 9_223_371_115_819_482_535
    feeBps: 30, // (20 + 2 + 8 + 0) × 10_000 / 10_000
    price: 1.116762044217127e-7, // 355_228.08077 ADA / 3_180_875_304_721 IAG
    tvl: 710_456.16154, // 2 × 355_228.08077 ADA
  },
  {
    // ADA/NIGHT, 340a7735…#0. Datum: fees 13 + 2 + 0 + 0 of 10_000; treasury A 1_111_389_514,
    // B 6_186_707_504; project and reserve treasuries 0.
    tx: '340a7735',
    poolId: `${POLICY}9098d8f2a436c6637776c82b3efa5a1eaa1517bec1077b7d86b4b04a96cec27f`,
    assetB: NIGHT,
    reserveA: 159_417_294_915n, // 160_531_684_429 lovelace − 3_000_000 − 1_111_389_514 − 0 − 0
    reserveB: 1_064_863_762_547n, // 1_071_050_470_051 NIGHT − 6_186_707_504 − 0 − 0
    liquidity: 374_954_477_801n, // 9_223_372_036_854_775_807 − 9_223_371_661_900_298_006
    feeBps: 15, // (13 + 2 + 0 + 0) × 10_000 / 10_000
    price: 1.497067517197664e-7, // 159_417.294915 ADA / 1_064_863_762_547 NIGHT
    tvl: 318_834.58983, // 2 × 159_417.294915 ADA
  },
];

/** The DJED/USDM stableswap pool of the fixture file: left out. */
const STABLESWAP = '7fecad4f';

/** |a/b − 1| below 1e-12: the model's floating-point price and TVL against the hand-derived ones. */
const close = (actual: number | undefined, expected: number) =>
  expect(Math.abs((actual ?? Number.NaN) / expected - 1)).toBeLessThan(1e-12);

describe('WingRiders V2 decoder', () => {
  it('decodes each real pool output to the reserves, LP supply and fee derived by hand', () => {
    for (const e of EXPECTED) {
      const state = decode(output(e.tx));
      expect(state, e.tx).toEqual({
        group: 'WingRidersV2',
        poolId: e.poolId,
        assetA: '',
        assetB: e.assetB,
        reserveA: e.reserveA,
        reserveB: e.reserveB,
        liquidity: e.liquidity,
        feeBps: e.feeBps,
      });
    }
  });

  it('gives the price and TVL derived by hand once a chain market holds the pools', async () => {
    const pools = await marketPools(EXPECTED.map((e) => output(e.tx)));
    for (const e of EXPECTED) {
      const pool = ensureDefined(pools.get(e.poolId), `pool ${e.tx}`);
      expect(pool.pool.group).toBe('WingRidersV2');
      close(pool.price, e.price);
      close(pool.tvl, e.tvl);
    }
  });

  it('is what poolOutputs finds in a transaction holding the pool output', () => {
    for (const e of EXPECTED) {
      const raw = output(e.tx);
      expect(poolOutputs(fixtureTx(raw))).toEqual([{ index: raw.index, state: decode(raw) }]);
    }
  });

  it('leaves out a real stableswap pool (same validity token, poolSpecifics with parameterD and scales): no pool output at all', () => {
    const raw = output(STABLESWAP);
    expect(fixtureOutput(raw).assets.has(`${POLICY}4c`)).toBe(true);
    expect(wingRidersV2.isPool(fixtureOutput(raw))).toBe(false);
    expect(poolOutputs(fixtureTx(raw))).toEqual([]);
  });

  it('takes no output of another DEX, no wallet holding LP tokens, and no plain output', () => {
    for (const raw of readChainFixture('sundaeswap-v3.json').outputs)
      expect(wingRidersV2.isPool(fixtureOutput(raw))).toBe(false);
    const pool = output('797d1e3c');
    // The pool's LP token (same policy, without the validity token) in a wallet is not a pool.
    const lpHolder: FixtureOutput = {
      tx: pool.tx,
      index: 1,
      address:
        'addr1q9y2atkk8ka8q8q0vduxhk3azufrd5n2gxa3cwqeq3xnkxh0zsmt7c6c8ngv0vzmvx60vkqd6gprh3xy4q09lsqpq5fqq9l8ts',
      value: {
        lovelace: '2000000',
        [`${POLICY}a555e14a0b9dec3ab1e12ba68c0e381c7573649619998a1063ac0964d4451fe1`]: '1000',
      },
    };
    expect(wingRidersV2.isPool(fixtureOutput(lpHolder))).toBe(false);
    expect(wingRidersV2.isPool(fixtureOutput({ ...lpHolder, value: { lovelace: '5000000' } }))).toBe(false);
  });

  it.skipIf(!hasPrise)(
    "takes none of the outputs of prise's real transactions (Minswap, SundaeSwap V1, WingRiders V1 pools and wallets)",
    () => {
      let outputs = 0;
      for (const tx of qualifiedTransactions().values()) {
        const { outputs: created, inputs } = toChainTxs(tx);
        for (const out of [...created.outputs, ...inputs.outputs]) {
          outputs++;
          expect(wingRidersV2.isPool(out), `${tx.txHash}`).toBe(false);
        }
      }
      expect(outputs).toBeGreaterThan(1_000);
    },
  );

  it('refuses a damaged datum with a DatumError: wrong constructor, missing field, treasuries above the value', () => {
    const raw = output('797d1e3c');
    const broken: FixtureOutput[] = [
      withDatum(raw, (_tag, fields) => [122, fields]), // Constr 1
      withDatum(raw, (tag, fields) => [tag, fields.slice(0, 20)]), // no poolSpecifics
      withDatum(raw, (tag, fields) => [tag, fields.slice(0, 12)]), // no treasuries
      withDatum(raw, (tag, fields) => [tag, fields.map((f, i) => (i === 9 ? 0 : f))]), // fee basis 0
      // Treasury A one lovelace more than the value less the oil and the project treasury.
      withDatum(raw, (tag, fields) => [tag, fields.map((f, i) => (i === 12 ? 77_130_773_984 : f))]),
      {
        ...raw,
        value: { ...raw.value, '97bbb7db0baef89caefce61b8107ac74c7a7340166b39d906f174bec54616c6f73': '36090' },
      }, // one Talos less than its treasuries
      { ...raw, datum: '6161' }, // CBOR, but a text string: not Plutus data
    ];
    for (const bad of broken) {
      expect(wingRidersV2.isPool(fixtureOutput(bad))).toBe(true);
      expect(() => decode(bad)).toThrow(DatumError);
      const [found] = poolOutputs(fixtureTx(bad));
      expect(found && 'error' in found ? found.group : undefined).toBe('WingRidersV2');
    }
    const { datum: _datum, ...noDatum } = raw;
    expect(() => decode(noDatum)).toThrow(DatumError);
  });
});
