import { amountOf } from '../block';
import { assetClass, constr, DatumError, int } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * WingRiders V1 (group `WingRiders`). Constants from WingRiders' mainnet deployment (also in
 * IndigoProtocol/dexter src/dex/wingriders.ts and prise's WingridersClassifier):
 * - every pool output holds the validity token `L` of policy 026a18d0…, the LP tokens' policy;
 * - the pool's LP token (same policy, other name) is our pool ID;
 * - datum (by hash; WingRiders/dex-serializer LiquidityPoolDatum): Constr 0 [requestScriptHash,
 *   Constr 0 [Constr 0 [assetA, assetB], lastInteraction, treasuryA, treasuryB]].
 *   The reserves are the output's amounts of A and B less the treasury the datum sets aside (the
 *   protocol's share of fees, which does not trade) and, for an ADA pool, less the 3 ADA every pool
 *   keeps (WingRiders/dex-blockfrost-adapter src/constants.ts LIQUIDITY_POOL_MIN_ADA, subtracted from
 *   asset A in src/adapter.ts). Fee 0.35 %.
 * - the pool holds the LP tokens not yet issued, out of 2^63 − 1 (INT_MAX_64 there): issued =
 *   2^63 − 1 − the pool's own LP token amount.
 */
const LP_POLICY = '026a18d04a0c642759bb3d83b12e3344894e5c1c7b2aeb1a2113a570';
const VALIDITY_ASSET = `${LP_POLICY}4c`;
const POOL_MIN_LOVELACE = 3_000_000n;
const INT_MAX_64 = 9_223_372_036_854_775_807n;

export const wingRidersV1: DexDecoder = {
  group: 'WingRiders',
  isPool: (output) => output.assets.has(VALIDITY_ASSET),
  decode(output, tx) {
    const lp = assetOfPolicy(output, LP_POLICY, VALIDITY_ASSET);
    if (!lp) throw new DatumError('WingRiders pool without its LP token');
    const datum = poolDatum(output, tx, 'WingRiders');
    const state = constr(datum.fields[1], 'WingRiders pool state', 0);
    const assets = constr(state.fields[0], 'WingRiders pool assets', 0);
    const assetA = assetClass(assets.fields[0], 'asset A');
    const assetB = assetClass(assets.fields[1], 'asset B');
    const minAda = (unit: string) => (unit === '' ? POOL_MIN_LOVELACE : 0n);
    const reserveA = amountOf(output, assetA) - int(state.fields[2], 'treasury A') - minAda(assetA);
    const reserveB = amountOf(output, assetB) - int(state.fields[3], 'treasury B') - minAda(assetB);
    if (reserveA < 0n || reserveB < 0n) throw new DatumError('WingRiders treasury larger than the pool');
    return {
      group: 'WingRiders',
      poolId: lp[0],
      assetA,
      assetB,
      reserveA,
      reserveB,
      liquidity: INT_MAX_64 - lp[1],
      feeBps: 35,
    };
  },
};
