import type { DexGroup } from '../../../shared/groups';
import type { ChainTx } from '../block';
import { minswapV1 } from './minswap-v1';
import { minswapV2 } from './minswap-v2';
import { muesliSwap } from './muesliswap';
import { spectrum } from './spectrum';
import { splash } from './splash';
import { sundaeSwapV1 } from './sundaeswap-v1';
import { sundaeSwapV3 } from './sundaeswap-v3';
import type { DexDecoder, PoolState } from './types';
import { vyFi, vyFiDecoder } from './vyfi';
import type { VyFiPool } from './vyfi-pools';
import { wingRidersV1 } from './wingriders-v1';
import { wingRidersV2 } from './wingriders-v2';

export type { DexDecoder, PoolState } from './types';

/** The DEX decoders, one per DEX, registered here only (docs/chain.md: what each reads and leaves out). */
export const DECODERS: readonly DexDecoder[] = [
  minswapV1,
  minswapV2,
  sundaeSwapV1,
  sundaeSwapV3,
  wingRidersV1,
  wingRidersV2,
  spectrum,
  splash,
  muesliSwap,
  vyFi,
];

/** The DEX decoders with VyFi's pools from another list (`--vyfi-pools`) instead of the bundled one. */
export function chainDecoders(vyFiPools: readonly VyFiPool[]): readonly DexDecoder[] {
  const withList = vyFiDecoder(vyFiPools);
  return DECODERS.map((decoder) => (decoder === vyFi ? withList : decoder));
}

/** A pool output of a transaction, decoded; or why a recognised pool output could not be. */
export type PoolOutput =
  | { readonly index: number; readonly state: PoolState }
  | { readonly index: number; readonly group: DexGroup; readonly error: string };

/** The pool outputs of a transaction (in output order) for the DEXs decoded. */
export function poolOutputs(tx: ChainTx, decoders: readonly DexDecoder[] = DECODERS): PoolOutput[] {
  const found: PoolOutput[] = [];
  for (const output of tx.outputs) {
    const decoder = decoders.find((d) => d.isPool(output));
    if (!decoder) continue;
    try {
      found.push({ index: output.index, state: decoder.decode(output, tx) });
    } catch (error) {
      found.push({
        index: output.index,
        group: decoder.group,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return found;
}
