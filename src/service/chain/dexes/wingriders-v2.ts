import { amountOf, type ChainOutput } from '../block';
import { bytes, constr, DatumError, decodePlutusData, int } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * WingRiders V2 (group `WingRidersV2`), its constant-product pools. Read from the contracts,
 * WingRiders/dex-v2-contracts, and the mainnet deployment as IndigoProtocol/dexter
 * (src/dex/wingriders-v2.ts `poolValidityAsset`) and IndigoProtocol/iris
 * (src/dex/WingRidersV2Analyzer.ts) list it:
 * - every pool output holds the validity token `L` (src/DEX/Constants.hs `lpValidityTokenName`) of
 *   the DEX policy 6fdc63a1…, which also mints each pool's share (LP) tokens: the pool's other token
 *   of that policy is its LP token, whose unit is our pool ID.
 * - inline datum (src/DEX/Types/Pool.hs `PoolDatum`): Constr 0 [requestValidatorHash, assetASymbol,
 *   assetAToken, assetBSymbol, assetBToken, swapFeeInBasis, protocolFeeInBasis, projectFeeInBasis,
 *   reserveFeeInBasis, feeBasis, agentFeeAda, lastInteraction, treasuryA, treasuryB,
 *   projectTreasuryA, projectTreasuryB, reserveTreasuryA, reserveTreasuryB, projectBeneficiary,
 *   reserveBeneficiary, poolSpecifics].
 * - reserves (src/DEX/Pool/Util.hs `ppoolStateFromTx`): the amount of A, less the 3 ADA every pool
 *   keeps when A is ADA (`pvalueOfWithOilCheck` with Constants.hs `poolOilAda`), less the three
 *   treasuries of A (protocol, project, reserve: fees the pool holds that are not liquidity); B
 *   likewise, without the oil.
 * - the pool holds its unissued shares, out of `maxShareTokens` = 2^63 − 1 (Constants.hs): issued =
 *   2^63 − 1 − the pool's own LP tokens (ConstantProduct.hs `premoveLiquidity`).
 * - a trader pays swap + protocol + project + reserve fee, each in 1/feeBasis.
 * Left out: stableswap pools. They carry the same validity token, but their poolSpecifics is
 * Constr 0 [parameterD, aScale, bScale] (src/DEX/Pool/Stableswap.hs `StableswapPoolDatum`; a
 * constant-product pool's is Constr 0 [], ConstantProduct.hs) and their price is not
 * reserveA/reserveB: `isPool` does not take them.
 */
const DEX_POLICY = '6fdc63a1d71dc2c65502b79baae7fb543185702b12c3c5fb639ed737';
/** `L` (0x4c): the pool validity token's name. */
const VALIDITY_ASSET = `${DEX_POLICY}4c`;
/** `poolOilAda` (src/DEX/Constants.hs): the ADA every pool keeps, off reserve A when A is ADA. */
const POOL_OIL_LOVELACE = 3_000_000n;
/** `maxShareTokens` (src/DEX/Constants.hs): the shares minted for every pool, 2^63 − 1. */
const MAX_SHARES = 9_223_372_036_854_775_807n;
/** poolSpecifics is the datum's last field (index 20). */
const POOL_SPECIFICS = 20;

/** A stableswap pool: its inline datum's poolSpecifics has fields. False when the datum cannot be read (decode says why). */
function isStableswap(output: ChainOutput): boolean {
  if (output.datum === undefined) return false;
  try {
    const datum = constr(decodePlutusData(output.datum), 'datum', 0);
    return constr(datum.fields[POOL_SPECIFICS], 'pool specifics').fields.length > 0;
  } catch {
    return false;
  }
}

export const wingRidersV2: DexDecoder = {
  group: 'WingRidersV2',
  isPool: (output) => output.assets.has(VALIDITY_ASSET) && !isStableswap(output),
  decode(output, tx) {
    const lp = assetOfPolicy(output, DEX_POLICY, VALIDITY_ASSET);
    if (!lp) throw new DatumError('WingRidersV2 pool without its LP token');
    const datum = poolDatum(output, tx, 'WingRidersV2');
    const f = datum.fields;
    if (constr(f[POOL_SPECIFICS], 'WingRidersV2 pool specifics', 0).fields.length > 0)
      throw new DatumError('WingRidersV2 pool is not constant-product');
    const assetA = bytes(f[1], 'asset A policy') + bytes(f[2], 'asset A name');
    const assetB = bytes(f[3], 'asset B policy') + bytes(f[4], 'asset B name');
    const feeBasis = int(f[9], 'fee basis');
    if (feeBasis <= 0n) throw new DatumError('WingRidersV2 fee basis is not positive');
    const feePart =
      int(f[5], 'swap fee') + int(f[6], 'protocol fee') + int(f[7], 'project fee') + int(f[8], 'reserve fee');
    const oil = assetA === '' ? POOL_OIL_LOVELACE : 0n;
    const reserveA =
      amountOf(output, assetA) -
      oil -
      int(f[12], 'treasury A') -
      int(f[14], 'project treasury A') -
      int(f[16], 'reserve treasury A');
    const reserveB =
      amountOf(output, assetB) -
      int(f[13], 'treasury B') -
      int(f[15], 'project treasury B') -
      int(f[17], 'reserve treasury B');
    if (reserveA < 0n || reserveB < 0n) throw new DatumError('WingRidersV2 treasuries larger than the pool');
    return {
      group: 'WingRidersV2',
      poolId: lp[0],
      assetA,
      assetB,
      reserveA,
      reserveB,
      liquidity: MAX_SHARES - lp[1],
      feeBps: Number((feePart * 10_000n) / feeBasis),
    };
  },
};
