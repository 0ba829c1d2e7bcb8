import { describe, expect, it } from 'vitest';
import { DatumError } from '../../../src/service/chain/plutus';
import { poolOutputs } from '../../../src/service/chain/dexes';
import { sundaeSwapV3 } from '../../../src/service/chain/dexes/sundaeswap-v3';
import { fixtureOutput, fixtureTx, readChainFixture, type FixtureOutput } from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { marketPools, withDatum } from '../../support/fixture-market';
import { hasPrise, qualifiedTransactions, toChainTxs } from '../../support/prise';

/**
 * The SundaeSwap V3 decoder on real mainnet pool outputs (tests/fixtures/chain/sundaeswap-v3.json,
 * sources in its README). Every expected number is derived by hand from the output's value and its
 * datum (read with a CBOR tool), the arithmetic beside it; price and TVL are the model's (ADA base;
 * tokens have decimals 0 in a fresh chain market, so a price is ADA per raw token unit).
 */

const fixture = readChainFixture('sundaeswap-v3.json');
const output = (tx: string): FixtureOutput =>
  ensureDefined(
    fixture.outputs.find((o) => o.tx.startsWith(tx)),
    `fixture output ${tx}`,
  );
const decode = (raw: FixtureOutput) => sundaeSwapV3.decode(fixtureOutput(raw), fixtureTx(raw));

const POLICY = 'e0302560ced2fdcbfcb2602697df970cd0d6a38f94b32703f51c312b';
const NIGHT = '0691b2fecca1ac4f53cb6dfb00b7013e561d1f34403b957cbb5af1fa4e49474854';
const USDM = 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad0014df105553444d';
const WMTX = 'e5a42a1a1d3d1da71b0449663c32798725888d2eb0843c4dabeca05a576f726c644d6f62696c65546f6b656e58';

interface Expected {
  readonly tx: string;
  readonly poolId: string;
  readonly assetA: string;
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
    // ADA/NIGHT, 3dc79478…#0. Datum: circulating_lp 0x84d3464e61, bid = ask = 30, protocol_fees 0x2dc5e05ea.
    tx: '3dc79478',
    poolId: `${POLICY}000de1405b5d1f9da977498b5faf3efb83693b0442ed5f49d00d9b986a409c0b`,
    assetA: '',
    assetB: NIGHT,
    reserveA: 254_815_330_269n, // 267_102_414_279 lovelace − 12_287_084_010 protocol fees
    reserveB: 1_588_761_996_178n, // the NIGHT in the value
    liquidity: 570_480_283_233n,
    feeBps: 30,
    price: 1.603860936263554e-7, // 254_815.330269 ADA / 1_588_761_996_178 NIGHT
    tvl: 509_630.660538, // 2 × 254_815.330269 ADA
  },
  {
    // ADA/USDM after a scoop, 02fce567…#0. Datum: circulating_lp 0xb426555adc, bid = ask = 60, protocol_fees 0x50810240.
    tx: '02fce567',
    poolId: `${POLICY}000de14064f35d26b237ad58e099041bc14c687ea7fdc58969d7d5b66e2540ef`,
    assetA: '',
    assetB: USDM,
    reserveA: 1_864_077_034_340n, // 1_865_427_666_340 lovelace − 1_350_632_000 protocol fees
    reserveB: 479_581_442_616n,
    liquidity: 773_737_241_308n,
    feeBps: 60,
    price: 3.886883162475832e-6, // 1_864_077.03434 ADA / 479_581_442_616 USDM
    tvl: 3_728_154.06868, // 2 × 1_864_077.03434 ADA
  },
  {
    // ADA/WorldMobileTokenX, b8d36668…#0. Datum: circulating_lp 0x47ff9e4102, bid = ask = 30, protocol_fees 0x44293800.
    tx: 'b8d36668',
    poolId: `${POLICY}000de1403e259cc410c7932ff0f579085cb47e882498f1af51f1d8db90bc14fc`,
    assetA: '',
    assetB: WMTX,
    reserveA: 162_262_446_448n, // 163_405_998_448 lovelace − 1_143_552_000 protocol fees
    reserveB: 820_250_172_755n,
    liquidity: 309_231_239_426n,
    feeBps: 30,
    price: 1.978206793946828e-7, // 162_262.446448 ADA / 820_250_172_755 WMTX
    tvl: 324_524.892896, // 2 × 162_262.446448 ADA
  },
  {
    // NIGHT/USDM (no ADA side), e7b36737…#0. Datum: circulating_lp 0x116a127bfbf, bid = ask = 30, protocol_fees
    // 0x1222c5ce0 = 4_868_300_000 = the output's whole lovelace, which trades on neither side.
    tx: 'e7b36737',
    poolId: `${POLICY}000de140187a43bfedb6c402212c20afee1d0332f690e8336279b79bdc5af514`,
    assetA: NIGHT,
    assetB: USDM,
    reserveA: 6_848_445_876_664n, // the NIGHT in the value
    reserveB: 222_404_528_109n, // the USDM in the value
    liquidity: 1_196_704_645_055n,
    feeBps: 30,
    price: 30.79274480107523, // NIGHT is the base (asset A, no ADA): 6_848_445_876_664 / 222_404_528_109
    tvl: 13_696_891_753_328, // 2 × 6_848_445_876_664 NIGHT (raw: decimals 0)
  },
];

/** |a/b − 1| below 1e-12: the model's floating-point price and TVL against the hand-derived ones. */
const close = (actual: number | undefined, expected: number) =>
  expect(Math.abs((actual ?? Number.NaN) / expected - 1)).toBeLessThan(1e-12);

describe('SundaeSwap V3 decoder', () => {
  it('decodes each real pool output to the reserves, LP supply and fee derived by hand', () => {
    for (const e of EXPECTED) {
      const state = decode(output(e.tx));
      expect(state, e.tx).toEqual({
        group: 'SundaeSwapV3',
        poolId: e.poolId,
        assetA: e.assetA,
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
      expect(pool.pool.group).toBe('SundaeSwapV3');
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

  it("takes no output of another DEX, no wallet holding a pool's LP token, and no plain output", () => {
    for (const raw of readChainFixture('wingriders-v2.json').outputs)
      expect(sundaeSwapV3.isPool(fixtureOutput(raw))).toBe(false);
    const pool = output('02fce567');
    // The same pool's LP token (CIP-68 333: `0014df10` + identifier) in a wallet is not a pool.
    const lpHolder: FixtureOutput = {
      tx: pool.tx,
      index: 1,
      address:
        'addr1q9y2atkk8ka8q8q0vduxhk3azufrd5n2gxa3cwqeq3xnkxh0zsmt7c6c8ngv0vzmvx60vkqd6gprh3xy4q09lsqpq5fqq9l8ts',
      value: {
        lovelace: '2000000',
        [`${POLICY}0014df1064f35d26b237ad58e099041bc14c687ea7fdc58969d7d5b66e2540ef`]: '1000',
      },
    };
    expect(sundaeSwapV3.isPool(fixtureOutput(lpHolder))).toBe(false);
    expect(sundaeSwapV3.isPool(fixtureOutput({ ...lpHolder, value: { lovelace: '5000000' } }))).toBe(false);
  });

  it.skipIf(!hasPrise)(
    "takes none of the outputs of prise's real transactions (Minswap, SundaeSwap V1, WingRiders V1 pools and wallets)",
    () => {
      let outputs = 0;
      for (const tx of qualifiedTransactions().values()) {
        const { outputs: created, inputs } = toChainTxs(tx);
        for (const out of [...created.outputs, ...inputs.outputs]) {
          outputs++;
          expect(sundaeSwapV3.isPool(out), `${tx.txHash}`).toBe(false);
        }
      }
      expect(outputs).toBeGreaterThan(1_000);
    },
  );

  it('refuses a damaged datum with a DatumError: wrong constructor, missing field, protocol fees above the ADA', () => {
    const raw = output('3dc79478');
    const broken: FixtureOutput[] = [
      withDatum(raw, (_tag, fields) => [122, fields]), // Constr 1
      withDatum(raw, (tag, fields) => [tag, fields.slice(0, 7)]), // no protocol_fees
      withDatum(raw, (tag, fields) => [tag, [fields[0], [], ...fields.slice(2)]]), // no assets
      withDatum(raw, (tag, fields) => [tag, [Buffer.alloc(28), ...fields.slice(1)]]), // another identifier than the NFT's
      withDatum(raw, (tag, fields) => [tag, fields.map((f, i) => (i === 7 ? -1 : f))]), // negative protocol fees
      { ...raw, value: { ...raw.value, lovelace: '12287084009' } }, // one lovelace less than the protocol fees
      { ...raw, datum: '6161' }, // CBOR, but a text string: not Plutus data
    ];
    for (const bad of broken) {
      expect(sundaeSwapV3.isPool(fixtureOutput(bad))).toBe(true);
      expect(() => decode(bad)).toThrow(DatumError);
      const [found] = poolOutputs(fixtureTx(bad));
      expect(found && 'error' in found ? found.group : undefined).toBe('SundaeSwapV3');
    }
    const { datum: _datum, ...noDatum } = raw;
    expect(() => decode(noDatum)).toThrow(DatumError);
  });
});
