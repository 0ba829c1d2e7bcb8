import { amountOf } from '../block';
import { DatumError, int } from '../plutus';
import { poolDatum, type DexDecoder } from './types';

/**
 * A VyFi pool, as VyFi's own pool list describes it (https://api.vyfi.io/lp?networkId=1, its `json`
 * field: `mainNFT`, `aAsset`, `bAsset`, `feesSettings`). Every VyFi pool has its own validator, order
 * address and NFT policy (the validator is parameterised by the NFT), and its datum does not name its
 * assets: nothing on chain tells a VyFi pool output from another script output without this list
 * (IndigoProtocol/dexter src/dex/vyfinance.ts: "VyFinance pools are not easily identifiable
 * on-chain"; iris's VyFiAnalyzer and Charli3-Official/charli3-dendrite dexs/amm/vyfi.py read the list
 * from the API).
 */
export interface VyFiPool {
  /** `mainNFT.currencySymbol`: the policy of the pool's NFT (its name is empty), held by the pool output. */
  readonly nftPolicy: string;
  /** Units of `aAsset` and `bAsset` ('' is ADA): the order of the datum's bar-fee fields. */
  readonly assetA: string;
  readonly assetB: string;
  /** `feesSettings.barFee + feesSettings.liqFee`, in basis points (dexter's and iris's pool fee). */
  readonly feeBps: number;
}

/**
 * The lovelace every VyFi pool output keeps beside its reserves: kitelabs-io/iris
 * src/dex/VyFiAnalyzer.ts gives each VyFi pool state `minAda: 2_000_000`, and real transactions trade
 * as if it were not there (docs/chain.md, VyFi: a swap and a withdrawal reproduced to the unit only
 * without it; the VYFI/xVYFI pool holds exactly these 2 ADA).
 */
const POOL_MIN_LOVELACE = 2_000_000n;

/** VyFi's fee, 0.3 %: 0.1 % to the Bar, 0.2 % to the liquidity providers (VyFi, "A Dive into the BAR"). */
const VYFI_FEE_BPS = 30;

/** A known pool: its NFT policy, its assets as VyFi orders them (policy + name hex, '' for ADA). */
const pool = (nftPolicy: string, assetA: string, assetB: string): VyFiPool => ({ nftPolicy, assetA, assetB, feeBps: VYFI_FEE_BPS });

/**
 * The VyFi pools known here, each seen in a real mainnet transaction in a public repository
 * (tests/fixtures/chain/README.md names each source). The NFT is the one the pool output holds (qty 1,
 * empty name); A and B are VyFi's order for the pool's validator in cardananium/cquisitor
 * src/utils/protocols/vyfinance/pools.generated.ts (generated from VyFi's /lp API, Apache-2.0, commit
 * 0ad8f0f3a3cada8fb0f7cefde4bf526b0899e8ab; validator hash beside each pool) and agree with the LP
 * token the transactions mint or burn (`VyFi_<A>/<B>_LP`) where they do; the Bar fees the swaps add
 * fall on the side that came in. The fee is VyFi's 0.3 % for every pool here: with it (and the 2 ADA
 * kept) the real swaps of ADA/SNEK, ADA/DJED, ADA/AGIX, ADA/NTX, ADA/STRIKE and ADA/BTN pay out to the
 * unit (docs/chain.md, VyFi).
 * - ADA/VYFI: transaction 39d10447… (maestro-org/maestro-cardano-indexer
 *   services/mapi/tests/polyphony_integration_tests.rs, its full CBOR): output 0 holds the NFT
 *   c285d6d7… with ADA and VYFI, and the transaction mints `VyFi_ADA/VYFI_LP`.
 * - The others from nau/scalus's mainnet blocks (bloxbean-cardano-client-lib/src/test/resources/blocks)
 *   and, ADA/VLRM, blinklabs-io/plutigo's replay corpus (replay/testdata/mainnet.json).
 */
export const KNOWN_VYFI_POOLS: readonly VyFiPool[] = [
  // ADA/VYFI (VYFI 804f5544…`VYFI`): maestro's transaction 39d10447…, validator 730d04da….
  pool('c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db', '', '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649'),
  // ADA/SNEK (279c909f…`SNEK`): block 11,544,748's c7157d4d…, 11,584,530's 7f8b862f…, 11,611,176's acf58fa6…; validator 232c1096….
  pool('96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c', '', '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b'),
  // ADA/COPI (b6a7467e…`Cornucopias [via ChainPort.io]`): block 11,553,070's d6cd8d0d… (mints VyFi_ADA/COPI_LP), validator 04321298….
  pool('27dd6f6398d16dd1d138c313aa80619ce45d94ba526b3882d32a66bd', '', 'b6a7467ea1deb012808ef4e87b5ff371e85f7142d7b356a40d9b42a0436f726e75636f70696173205b76696120436861696e506f72742e696f5d'),
  // VYFI/xVYFI (b316f8f6…`xVYFI`), no ADA side: block 11,554,633's 14541011…, validator 8bdcc45d… (an enterprise address).
  pool('206b822eb65a0e90305b7dabf92bf2228180b437c667ae88756065d5', '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649', 'b316f8f668aca7359ecc6073475c0c8106239bf87e05a3a1bd5697647856594649'),
  // ADA/DJED (8db269c3…`DjedMicroUSD`): block 11,560,713's a5e75b10…, 11,611,176's 5aee5d3f… (burns VyFi_ADA/DJED_LP); validator 99a917d3….
  pool('7fe95f7516f5a53f835f80ce1053eec933efba9c1b49fab0f7398bc2', '', '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61446a65644d6963726f555344'),
  // ADA/AGIX (f43a62fd…`AGIX`): block 11,605,101's 4bae54a8…, 11,660,768's bc4bd679…; validator 468864e2….
  pool('1cb50c08ba6e1b766da3fd977c13fcc5feecbcba31f1515c479c55af', '', 'f43a62fdc3965df486de8a0d32fe800963589c41b38946602a0dc53541474958'),
  // ADA/OPTIM (e52964af…`OPTIM`): block 11,606,121's c2c59de6…, validator f7ba0c06….
  pool('0844a33282346eca6872a3827eadc3818f8175f7df3e04e4bc02ab77', '', 'e52964af4fffdb54504859875b1827b60ba679074996156461143dc14f5054494d'),
  // ADA/NTX (edfd7a1d…`NTX`): block 11,610,806's bf019520…, validator 3752c1bb….
  pool('aa749679585b92b61dab482e585d0edfc98e55c36c080c517cde50c4', '', 'edfd7a1d77bcb8b884c474bdc92a16002d1fb720e454fa6e993444794e5458'),
  // ADA/BTN (016be532…`BTN`): block 10,296,200's 2bf541bc…, 11,649,988's cbd829f7…; validator 2303d158….
  pool('4b29b9203fbbf66ff1190668f375b91ac6af0814f17c57d5af3ab495', '', '016be5325fd988fea98ad422fcfd53e5352cacfced5c106a932a35a442544e'),
  // ADA/STRIKE (f13ac4d6…`STRIKE`): block 11,650,496's 3d2e959a…, validator 35948950….
  pool('f2bc52e3a23df906c8751f200bea6283ac60c9ef9567ec0c6a974b8e', '', 'f13ac4d66b3ee19a6aa0f2a22298737bd907cc95121662fc971b5275535452494b45'),
  // ADA/VLRM (63efb704…`Valorum`): plutigo's dc051733… (burns VyFi_ADA/VLRM_LP), validator 2d8e5c1f….
  pool('f9551ef6c71ef4eb0fb62edac452430e15526f69701bcd9ab33fb704', '', '63efb704b7396890e4d9539d030c0e667739043add65c00f96c586c056616c6f72756d'),
];

/**
 * A VyFi decoder for the given pools (group `VyFi`). A pool output holds its NFT (policy, empty
 * name: the unit is the policy; our pool ID) and a datum by hash (dendrite `VyFiPoolDatum`):
 * Constr 0 [barFeeA, barFeeB, totalLpTokens]. barFeeA/B are the Bar's share of the swap fees the pool
 * has collected in A and B and not yet served to the Bar ("Embedded Liquidity Pool", VyFi's BAR
 * article above): they sit in the output but do not trade. Reserves = the output's amounts of A and
 * B less barFeeA and barFeeB (dendrite `VyFiCPPState.post_init` subtracts the same), and an ADA side
 * also less the 2 ADA every pool keeps (POOL_MIN_LOVELACE). totalLpTokens is the LP supply issued
 * (the pool holds no LP tokens: they are minted and burnt on deposits and withdrawals).
 */
export function vyFiDecoder(pools: readonly VyFiPool[]): DexDecoder {
  const byNft = new Map(pools.map((known) => [known.nftPolicy, known]));
  const poolOf = (assets: ReadonlyMap<string, bigint>): VyFiPool | undefined => {
    for (const [unit, amount] of assets) {
      const known = amount === 1n ? byNft.get(unit) : undefined;
      if (known) return known;
    }
    return undefined;
  };
  return {
    group: 'VyFi',
    isPool: (output) => poolOf(output.assets) !== undefined,
    decode(output, tx) {
      const known = poolOf(output.assets);
      if (!known) throw new DatumError('VyFi pool without its pool NFT');
      const datum = poolDatum(output, tx, 'VyFi');
      if (datum.fields.length !== 3) throw new DatumError(`VyFi pool datum has ${datum.fields.length} fields, expected 3`);
      const barFeeA = int(datum.fields[0], 'bar fee A');
      const barFeeB = int(datum.fields[1], 'bar fee B');
      const liquidity = int(datum.fields[2], 'total LP tokens');
      if (barFeeA < 0n || barFeeB < 0n || liquidity < 0n) throw new DatumError('VyFi pool datum has a negative amount');
      const kept = (unit: string) => (unit === '' ? POOL_MIN_LOVELACE : 0n);
      const reserveA = amountOf(output, known.assetA) - barFeeA - kept(known.assetA);
      const reserveB = amountOf(output, known.assetB) - barFeeB - kept(known.assetB);
      if (reserveA < 0n || reserveB < 0n) throw new DatumError('VyFi bar fees larger than the pool (less its 2 ADA)');
      return { group: 'VyFi', poolId: known.nftPolicy, assetA: known.assetA, assetB: known.assetB, reserveA, reserveB, liquidity, feeBps: known.feeBps };
    },
  };
}

/** The VyFi decoder registered in DECODERS: the pools of KNOWN_VYFI_POOLS. */
export const vyFi: DexDecoder = vyFiDecoder(KNOWN_VYFI_POOLS);
