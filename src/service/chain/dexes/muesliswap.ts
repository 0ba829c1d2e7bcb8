import { amountOf, type ChainOutput } from '../block';
import { assetClass, DatumError, int, type PlutusData } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * MuesliSwap's constant-product AMM pools (group `MuesliSwap`), a fork of Minswap V1. Two deployments
 * run on mainnet, both from MuesliSwapTeam/muesliswap-cardano-pool-contracts (GPL-3.0):
 * - Plutus V2 (commit 19f5418, dex/plutus/*_policyid): every pool holds one factory token
 *   `MuesliSwap_AMM` of policy de9b7567…, and its own NFT of policy 90913308… (our pool ID; its LP
 *   token is policy af3d70ac… with the same name). Datum (by hash; ConstantProductPool/Types.hs
 *   `PoolDatum`): Constr 0 [coinA, coinB, totalLiquidity, swapFee].
 * - Plutus V1 (commit 1971f0d, the same files): factory token `MuesliSwap_AMM` of policy ffcdbb91…,
 *   NFTs of policy 7a8041a0…. Datum: Constr 0 [coinA, coinB, totalLiquidity, rootKLast,
 *   Maybe profitSharing, swapFee, extraFeeDenom].
 * Both factory tokens are the pool filter of Charli3-Official/charli3-dendrite (dexs/amm/muesli.py
 * `dex_policy`); the NFT policies are IndigoProtocol/iris's (MuesliSwapAnalyzer.ts).
 *
 * Reserves are the output's amounts of coin A and B (for an ADA pool all its lovelace): the pool
 * validator's constant-product check runs on exactly those (ConstantProductPool/OnChain.hs
 * `checkSwap` over `assetClassValueOf` of the pool value); nothing in the value is set aside. The fee
 * is `swapFee` in 1/10,000 (`feeDen = 10000` there). `totalLiquidity` is the LP supply issued.
 *
 * Left out: the concentrated-liquidity pools (factory token `MuesliSwap_cLP`, policy f33bf12a…; datum
 * with a price range, dendrite `MuesliCLPoolDatum`), whose price is not reserveA/reserveB. They are not
 * recognised (isPool false), so their transactions never make a block undecodable. MuesliSwap's order
 * book (orders at its order addresses, matched against each other) holds no pool: nothing to decode.
 */
const FACTORY_NAME = '4d7565736c69537761705f414d4d'; // `MuesliSwap_AMM`
const V2_FACTORY = `de9b756719341e79785aa13c164e7fe68c189ed04d61c9876b2fe53f${FACTORY_NAME}`;
const V2_NFT_POLICY = '909133088303c49f3a30f1cc8ed553a73857a29779f6c6561cd8093f';
const V1_FACTORY = `ffcdbb9155da0602280c04d8b36efde35e3416567f9241aff0955269${FACTORY_NAME}`;
const V1_NFT_POLICY = '7a8041a0693e6605d010d5185b034d55c79eaf7ef878aae3bdcdbf67';

/** Field counts and the swap fee's position in each deployment's datum (see above). */
const V2_FIELDS = 4;
const V2_FEE_FIELD = 3;
const V1_FIELDS = 7;
const V1_FEE_FIELD = 5;
/** `feeDen` of the pool validator's fee check. */
const FEE_DENOMINATOR = 10_000n;

function deployment(output: ChainOutput): { nftPolicy: string; fields: number; feeField: number } | undefined {
  if (output.assets.get(V2_FACTORY) === 1n)
    return { nftPolicy: V2_NFT_POLICY, fields: V2_FIELDS, feeField: V2_FEE_FIELD };
  if (output.assets.get(V1_FACTORY) === 1n)
    return { nftPolicy: V1_NFT_POLICY, fields: V1_FIELDS, feeField: V1_FEE_FIELD };
  return undefined;
}

export const muesliSwap: DexDecoder = {
  group: 'MuesliSwap',
  isPool: (output) => deployment(output) !== undefined,
  decode(output, tx) {
    const kind = deployment(output);
    if (!kind) throw new DatumError('MuesliSwap pool without its factory token');
    const nft = assetOfPolicy(output, kind.nftPolicy);
    if (!nft) throw new DatumError('MuesliSwap pool without its pool NFT');
    const fields: readonly PlutusData[] = poolDatum(output, tx, 'MuesliSwap').fields;
    if (fields.length !== kind.fields)
      throw new DatumError(`MuesliSwap pool datum has ${fields.length} fields, expected ${kind.fields}`);
    const assetA = assetClass(fields[0], 'coin A');
    const assetB = assetClass(fields[1], 'coin B');
    if (assetA === assetB) throw new DatumError('MuesliSwap pool datum names one coin twice');
    const liquidity = int(fields[2], 'total liquidity');
    const fee = int(fields[kind.feeField], 'swap fee');
    if (liquidity < 0n || fee < 0n || fee >= FEE_DENOMINATOR)
      throw new DatumError('MuesliSwap pool datum out of range (liquidity or swap fee)');
    return {
      group: 'MuesliSwap',
      poolId: nft[0],
      assetA,
      assetB,
      reserveA: amountOf(output, assetA),
      reserveB: amountOf(output, assetB),
      liquidity,
      feeBps: Number(fee),
    };
  },
};
