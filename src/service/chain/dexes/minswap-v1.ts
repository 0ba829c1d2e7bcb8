import { amountOf } from '../block';
import { assetClass, DatumError, int } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * Minswap V1 (group `Minswap`). Constants from Minswap's public deployment, as listed by
 * IndigoProtocol/dexter (src/dex/minswap.ts) and Edgxtech/prise (MinswapClassifier):
 * - every pool output holds the pool validity token `MINSWAP` of policy 13aa2acc…;
 * - each pool has its own NFT of policy 0be55d26…; its unit is our pool ID;
 * - datum (by hash, in the witness set): Constr 0 [assetA, assetB, totalLiquidity, rootKLast, feeSharing]
 *   (minswap/minswap-dex-v1 ConstantProductPool OnChain.hs). Reserves are the output's amounts of A and
 *   B: for an ADA pool all its lovelace is the ADA reserve; the fee is 0.3 %.
 */
const VALIDITY_ASSET = '13aa2accf2e1561723aa26871e071fdf32c867cff7e7d50ad470d62f4d494e53574150';
const POOL_NFT_POLICY = '0be55d262b29f564998ff81efe21bdc0022621c12f15af08d0f2ddb1';

export const minswapV1: DexDecoder = {
  group: 'Minswap',
  isPool: (output) => output.assets.has(VALIDITY_ASSET),
  decode(output, tx) {
    const nft = assetOfPolicy(output, POOL_NFT_POLICY);
    if (!nft) throw new DatumError('Minswap pool without its pool NFT');
    const datum = poolDatum(output, tx, 'Minswap');
    const assetA = assetClass(datum.fields[0], 'asset A');
    const assetB = assetClass(datum.fields[1], 'asset B');
    const liquidity = int(datum.fields[2], 'total liquidity');
    return {
      group: 'Minswap',
      poolId: nft[0],
      assetA,
      assetB,
      reserveA: amountOf(output, assetA),
      reserveB: amountOf(output, assetB),
      liquidity,
      feeBps: 30,
    };
  },
};
