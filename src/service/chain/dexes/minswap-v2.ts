import { assetClass, DatumError, int } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * Minswap V2 (group `MinswapV2`). Constants from minswap/minswap-dex-v2 (mainnet deployment, also in
 * IndigoProtocol/dexter src/dex/minswap-v2.ts and prise's MinswapV2Classifier):
 * - every pool output holds the validity token `MSP` of policy f5808c2c…, the LP tokens' policy;
 * - the pool's LP token (same policy, name = pool hash) is our pool ID;
 * - inline datum (src/types/pool.ts): Constr 0 [stakeCredential, assetA, assetB, totalLiquidity,
 *   reserveA, reserveB, baseFeeANumerator, baseFeeBNumerator, feeSharingNumerator?, allowDynamicFee].
 *   The reserves are the datum's: the value also holds min-ADA and the protocol's fee share, which do
 *   not trade. Fees are in 1/10,000 (basis points).
 */
const LP_POLICY = 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c';
const VALIDITY_ASSET = `${LP_POLICY}4d5350`;

export const minswapV2: DexDecoder = {
  group: 'MinswapV2',
  isPool: (output) => output.assets.has(VALIDITY_ASSET),
  decode(output, tx) {
    const lp = assetOfPolicy(output, LP_POLICY, VALIDITY_ASSET);
    if (!lp) throw new DatumError('MinswapV2 pool without its LP token');
    const datum = poolDatum(output, tx, 'MinswapV2');
    return {
      group: 'MinswapV2',
      poolId: lp[0],
      assetA: assetClass(datum.fields[1], 'asset A'),
      assetB: assetClass(datum.fields[2], 'asset B'),
      reserveA: int(datum.fields[4], 'reserve A'),
      reserveB: int(datum.fields[5], 'reserve B'),
      liquidity: int(datum.fields[3], 'total liquidity'),
      feeBps: Number(int(datum.fields[6], 'base fee A')),
    };
  },
};
