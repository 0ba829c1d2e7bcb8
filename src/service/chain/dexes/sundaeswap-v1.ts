import { amountOf } from '../block';
import { assetClass, bytes, constr, DatumError, int } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * SundaeSwap V1 (group `SundaeSwap`). Constants from SundaeSwap's V1 mainnet deployment (also in
 * IndigoProtocol/dexter src/dex/sundaeswap-v1.ts and prise's SundaeswapClassifier):
 * - every pool sits at one script address, addr1w9qzpelu…;
 * - each pool holds an NFT of policy 0029cb7c… named `p ` + the pool identifier; its unit is our pool ID;
 * - datum (by hash): Constr 0 [Constr 0 [assetA, assetB], identifier, totalLiquidity, Constr 0 [feeNum, feeDen]].
 *   Reserves are the output's amounts of A and B (for an ADA pool, its lovelace).
 */
const POOL_ADDRESS = 'addr1w9qzpelu9hn45pefc0xr4ac4kdxeswq7pndul2vuj59u8tqaxdznu';
const POOL_POLICY = '0029cb7c88c7567b63d1a512c0ed626aa169688ec980730c0473b913';
/** `p ` (0x70 0x20): the pool NFT's name prefix. */
const NFT_PREFIX = `${POOL_POLICY}7020`;

export const sundaeSwapV1: DexDecoder = {
  group: 'SundaeSwap',
  isPool: (output) => output.address === POOL_ADDRESS && assetOfPolicy(output, NFT_PREFIX) !== undefined,
  decode(output, tx) {
    const nft = assetOfPolicy(output, NFT_PREFIX);
    if (!nft) throw new DatumError('SundaeSwap pool without its pool NFT');
    const datum = poolDatum(output, tx, 'SundaeSwap');
    const assets = constr(datum.fields[0], 'SundaeSwap pool assets', 0);
    const assetA = assetClass(assets.fields[0], 'asset A');
    const assetB = assetClass(assets.fields[1], 'asset B');
    if (nft[0] !== NFT_PREFIX + bytes(datum.fields[1], 'pool identifier'))
      throw new DatumError('SundaeSwap pool NFT does not match the datum identifier');
    const fee = constr(datum.fields[3], 'SundaeSwap fee', 0);
    const den = int(fee.fields[1], 'fee denominator');
    const feeBps = den > 0n ? Number((int(fee.fields[0], 'fee numerator') * 10_000n) / den) : 0;
    const liquidity = int(datum.fields[2], 'circulating LP');
    return {
      group: 'SundaeSwap',
      poolId: nft[0],
      assetA,
      assetB,
      reserveA: amountOf(output, assetA),
      reserveB: amountOf(output, assetB),
      liquidity,
      feeBps,
    };
  },
};
