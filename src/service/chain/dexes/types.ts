import type { DexGroup } from '../../../shared/groups';
import { datumOf, type ChainOutput, type ChainTx } from '../block';
import { constr, DatumError, decodePlutusData, type PlutusData } from '../plutus';

/** A pool's state as one output of a pool transaction leaves it. */
export interface PoolState {
  readonly group: DexGroup;
  /** Hex pool ID: the unit of the token that identifies the pool on its DEX (see each decoder). */
  readonly poolId: string;
  /** Units of the pool's two assets in the DEX's own order ('' is ADA). */
  readonly assetA: string;
  readonly assetB: string;
  /** Raw reserves that trade, after what the DEX keeps aside. */
  readonly reserveA: bigint;
  readonly reserveB: bigint;
  /** LP tokens issued (the pool's liquidity shares): a deposit or withdrawal changes it, a swap never does. */
  readonly liquidity: bigint;
  readonly feeBps: number;
}

/** One DEX's pool decoder (one per DEX, as prise's classifiers are). */
export interface DexDecoder {
  readonly group: DexGroup;
  /** A cheap test on the output alone: is it one of this DEX's pools? */
  isPool(output: ChainOutput): boolean;
  /** The pool state of an output `isPool` accepted; throws (DatumError) when it cannot be decoded. */
  decode(output: ChainOutput, tx: ChainTx): PoolState;
}

/** The one asset of `policy` in an output other than `except`, as [unit, amount]. */
export function assetOfPolicy(output: ChainOutput, policy: string, except?: string): [string, bigint] | undefined {
  for (const entry of output.assets) if (entry[0].startsWith(policy) && entry[0] !== except) return entry;
  return undefined;
}

/** A pool output's datum (inline, or from the witness set), decoded as its constructor 0; DatumError when absent. */
export function poolDatum(output: ChainOutput, tx: ChainTx, group: string): { readonly fields: readonly PlutusData[] } {
  const cbor = datumOf(output, tx);
  if (cbor === undefined) throw new DatumError(`${group} pool datum missing from the transaction`);
  return constr(decodePlutusData(cbor), `${group} pool datum`, 0);
}
