import type { ChainTx } from '../block';
import { minswapV1 } from './minswap-v1';
import { minswapV2 } from './minswap-v2';
import { spectrum } from './spectrum';
import { splash } from './splash';
import { sundaeSwapV1 } from './sundaeswap-v1';
import type { DexDecoder, PoolState } from './types';
import { wingRidersV1 } from './wingriders-v1';

export type { DexDecoder, PoolState } from './types';

/** The DEXs decoded today (docs/chain.md lists the others). */
export const DECODERS: readonly DexDecoder[] = [minswapV1, minswapV2, sundaeSwapV1, wingRidersV1, spectrum, splash];

/** A pool output of a transaction, decoded; or why a recognised pool output could not be. */
export type PoolOutput =
  | { readonly index: number; readonly state: PoolState }
  | { readonly index: number; readonly group: string; readonly error: string };

/** The pool outputs of a transaction (in output order) for the DEXs decoded. */
export function poolOutputs(tx: ChainTx, decoders: readonly DexDecoder[] = DECODERS): PoolOutput[] {
  const found: PoolOutput[] = [];
  for (const output of tx.outputs) {
    const decoder = decoders.find((d) => d.isPool(output));
    if (!decoder) continue;
    try {
      found.push({ index: output.index, state: decoder.decode(output, tx) });
    } catch (error) {
      found.push({ index: output.index, group: decoder.group, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return found;
}
