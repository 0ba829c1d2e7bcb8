import { assetClass, DatumError, int, type PlutusData } from '../plutus';
import { issuedLp, list, PoolScripts, poolNft, reserveOf } from './spectrum-splash';
import { poolDatum, type DexDecoder, type PoolState } from './types';

/**
 * Splash (group `Splash`): its constant-product pools, of three kinds with datums of their own; which
 * kind an output is follows from the pool validator its address pays to (as splashprotocol's own
 * indexer decides it: ConstFnPoolVer::try_from_address in splash-offchain-multiplatform
 * spectrum-offchain-cardano/src/data/cfmm_pool.rs). docs/chain.md says which kinds are left out and why.
 *
 * Script hashes: splash-offchain-multiplatform bloom-cardano-agent/resources/mainnet.deployment.json.
 * Datum layouts: the validators in splashprotocol/splash-core plutarch-validators/WhalePoolsDex/PContracts
 * (PPool.hs, PPoolBFee.hs, PRoyaltyPool.hs PoolConfig / RoyaltyPoolConfig records), inline, Constr 0:
 * - fee switch (`constFnPoolFeeSwitch`, `constFnPoolFeeSwitchV2`; the pool API's cfmm v4, v5):
 *   [poolNft, poolX, poolY, poolLq, feeNum, treasuryFee, treasuryX, treasuryY, DAOPolicy, lqBound, treasuryAddress];
 * - bidirectional fee (`constFnPoolFeeSwitchBidirFee`; cfmm v3): [poolNft, poolX, poolY, poolLq,
 *   feeNumX, feeNumY, treasuryFee, treasuryX, treasuryY, DAOPolicy, lqBound, treasuryAddress];
 * - royalty (`royaltyPool`; cfmm v6): [poolNft, poolX, poolY, poolLq, feeNum, treasuryFee, royaltyFee,
 *   treasuryX, treasuryY, royaltyX, royaltyY, DAOPolicy, treasuryAddress, royaltyPubKey, nonce].
 * Reserves are the output's amounts of X and Y less the treasury (and royalty) the datum sets aside:
 * the validators' readPoolState (x − treasuryX − royaltyX). For a token/token pool the ADA in the
 * output is no reserve (lovelaceToken2Token there), and amounts of X and Y never count it.
 * Fees are out of 100,000 (feeDen in PContracts/PApi.hs); feeNum is what stays with the input, and the
 * swap check uses feeNum − treasuryFee (− royaltyFee) for the fee-switch and royalty pools, feeNumX (X
 * in) or feeNumY (Y in) for the bidirectional pool, whose treasury takes a share of that fee. Our
 * feeBps is that fee in basis points; for a bidirectional pool the larger of its two sides'.
 */
type Kind = 'fee switch' | 'bidirectional fee' | 'royalty';

/** `constFnPoolFeeSwitch` (mainnet.deployment.json above). */
const FEE_SWITCH_SCRIPT = 'f002facfd69d51b63e7046c6d40349b0b17c8dd775ee415c66af3ccc';
/** `constFnPoolFeeSwitchV2` (mainnet.deployment.json above): the same datum as the fee switch's. */
const FEE_SWITCH_V2_SCRIPT = '9dee0659686c3ab807895c929e3284c11222affd710b09be690f924d';
/** `constFnPoolFeeSwitchBidirFee` (mainnet.deployment.json above). */
const BIDIRECTIONAL_FEE_SCRIPT = '680f52841c06f32cecdcdeff2c20ce6b70c2a5249b94d1a2b4eff294';
/** `royaltyPool` (mainnet.deployment.json above; poolValidatorHashValue in splash-core WhalePoolsDex/PConstants.hs). */
const ROYALTY_SCRIPT = 'cb684a69e78907a9796b21fc150a758af5f2805e5ed5d5a8ce9f76f1';
/** feeDen (splash-core plutarch-validators/WhalePoolsDex/PContracts/PApi.hs). */
const FEE_DEN = 100_000n;

const SCRIPTS = new PoolScripts<Kind>({
  [FEE_SWITCH_SCRIPT]: 'fee switch',
  [FEE_SWITCH_V2_SCRIPT]: 'fee switch',
  [BIDIRECTIONAL_FEE_SCRIPT]: 'bidirectional fee',
  [ROYALTY_SCRIPT]: 'royalty',
});

/** Where each kind keeps what it sets aside and its fees: field indexes, and the fee charged (of FEE_DEN). */
interface Layout {
  /** Fields summed and set aside from X, then from Y. */
  readonly asideX: readonly number[];
  readonly asideY: readonly number[];
  /** The DAO policy list: read to check the layout is the kind's. */
  readonly dao: number;
  readonly fee: (fields: readonly PlutusData[]) => bigint;
}

const LAYOUTS: Readonly<Record<Kind, Layout>> = {
  'fee switch': {
    asideX: [6],
    asideY: [7],
    dao: 8,
    fee: (f) => FEE_DEN - (num(f, 4, 'fee') - num(f, 5, 'treasury fee')),
  },
  'bidirectional fee': {
    asideX: [7],
    asideY: [8],
    dao: 9,
    fee: (f) => max(FEE_DEN - num(f, 4, 'fee X'), FEE_DEN - num(f, 5, 'fee Y')),
  },
  royalty: {
    asideX: [7, 9],
    asideY: [8, 10],
    dao: 11,
    fee: (f) => FEE_DEN - (num(f, 4, 'fee') - num(f, 5, 'treasury fee') - num(f, 6, 'royalty fee')),
  },
};

const num = (fields: readonly PlutusData[], i: number, what: string) => int(fields[i], `Splash ${what}`);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const sum = (fields: readonly PlutusData[], at: readonly number[], what: string) =>
  at.reduce((s, i) => s + num(fields, i, what), 0n);

export const splash: DexDecoder = {
  group: 'Splash',
  isPool: (output) => SCRIPTS.isPool(output),
  decode(output, tx): PoolState {
    const kind = SCRIPTS.kindOf(output.address);
    if (kind === undefined) throw new DatumError('not at a Splash constant-product pool script');
    const layout = LAYOUTS[kind];
    const { fields } = poolDatum(output, tx, 'Splash');
    const poolId = poolNft(output, assetClass(fields[0], 'pool NFT'), 'Splash');
    const assetA = assetClass(fields[1], 'asset X');
    const assetB = assetClass(fields[2], 'asset Y');
    const liquidity = issuedLp(output, assetClass(fields[3], 'LP token'), 'Splash');
    list(fields[layout.dao], `Splash ${kind} pool DAO policy`);
    const fee = layout.fee(fields);
    if (fee < 0n || fee > FEE_DEN) throw new DatumError(`Splash ${kind} pool fee ${fee}/${FEE_DEN} out of range`);
    return {
      group: 'Splash',
      poolId,
      assetA,
      assetB,
      reserveA: reserveOf(output, assetA, sum(fields, layout.asideX, 'treasury/royalty X'), `Splash ${kind} reserve X`),
      reserveB: reserveOf(output, assetB, sum(fields, layout.asideY, 'treasury/royalty Y'), `Splash ${kind} reserve Y`),
      liquidity,
      // Basis points: 100,000ths over 10 (may be fractional; the store keeps a real).
      feeBps: Number(fee) / 10,
    };
  },
};
