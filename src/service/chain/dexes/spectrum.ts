import { assetClass, DatumError, int } from '../plutus';
import { issuedLp, list, PoolScripts, poolNft, reserveOf } from './spectrum-splash';
import { poolDatum, type DexDecoder } from './types';

/**
 * Spectrum (group `Spectrum`): the constant-product pools of Spectrum Finance's two pool validators on
 * Cardano, the generation before Splash (docs/chain.md says what of the DEX is left out and why).
 * - Pool scripts: V1 e628bfd6…, V2 6b9c456a… (`constFnPoolV1`/`constFnPoolV2` in
 *   splashprotocol/splash-offchain-multiplatform bloom-cardano-agent/resources/mainnet.deployment.json;
 *   the pool addresses addr1x8nz307k… and addr1x94ec3t25… in IndigoProtocol/iris src/dex/SpectrumAnalyzer.ts).
 * - Inline datum (spectrum-finance/cardano-dex-contracts cardano-dex-contracts-onchain/ErgoDex/Contracts/Pool.hs
 *   PoolConfig): Constr 0 [poolNft, poolX, poolY, poolLq, poolFeeNum, stakeAdminPolicy (list), lqBound]
 *   (lqBound, which swaps need 2 × reserve X to reach, is not read: splash-offchain-multiplatform treats
 *   it as optional).
 * - Reserves are the output's amounts of X and Y, all of them: the pool validator reads its state that
 *   way (ErgoDex/PContracts/PPool.hs: x = assetClassValueOf value poolX), so for an ADA pool every
 *   lovelace in it trades; nothing is set aside. LBSP pools (Liquidity Bootstrapping Stake Pools) are
 *   these same pools delegating their ADA: the rewards go to the stake address, not into the output.
 * - Fee: poolFeeNum out of 1000 is what stays with the input (feeDen = 1000 in ErgoDex/PContracts/PApi.hs),
 *   so the fee is (1000 − poolFeeNum) / 1000, in basis points (1000 − poolFeeNum) × 10.
 * - LP supply: 2^63 − 1 less the LP tokens the pool holds (spectrum-splash.ts).
 */
/** `constFnPoolV1` (mainnet.deployment.json above): the V1 pool validator's hash. */
const POOL_V1_SCRIPT = 'e628bfd68c07a7a38fcd7d8df650812a9dfdbee54b1ed4c25c87ffbf';
/** `constFnPoolV2` (mainnet.deployment.json above): the V2 pool validator's hash. */
const POOL_V2_SCRIPT = '6b9c456aa650cb808a9ab54326e039d5235ed69f069c9664a8fe5b69';
/** feeDen (cardano-dex-contracts ErgoDex/PContracts/PApi.hs). */
const FEE_DEN = 1000n;

const SCRIPTS = new PoolScripts({ [POOL_V1_SCRIPT]: 'V1', [POOL_V2_SCRIPT]: 'V2' });

export const spectrum: DexDecoder = {
  group: 'Spectrum',
  isPool: (output) => SCRIPTS.isPool(output),
  decode(output, tx) {
    const { fields } = poolDatum(output, tx, 'Spectrum');
    const poolId = poolNft(output, assetClass(fields[0], 'pool NFT'), 'Spectrum');
    const assetA = assetClass(fields[1], 'asset X');
    const assetB = assetClass(fields[2], 'asset Y');
    const liquidity = issuedLp(output, assetClass(fields[3], 'LP token'), 'Spectrum');
    const feeNum = int(fields[4], 'pool fee numerator');
    list(fields[5], 'stake admin policy');
    if (feeNum < 0n || feeNum > FEE_DEN) throw new DatumError(`Spectrum pool fee numerator ${feeNum} out of range`);
    return {
      group: 'Spectrum',
      poolId,
      assetA,
      assetB,
      reserveA: reserveOf(output, assetA, 0n, 'Spectrum reserve X'),
      reserveB: reserveOf(output, assetB, 0n, 'Spectrum reserve Y'),
      liquidity,
      feeBps: Number((FEE_DEN - feeNum) * 10n),
    };
  },
};
