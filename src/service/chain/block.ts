/**
 * The chain as the decoders see it: blocks of transactions with their outputs (value and datum),
 * whatever the source (Ogmios v6 here; tests convert real blocks from other formats to it).
 */

/**
 * Unix seconds of a mainnet slot from the Shelley era on: slot + 1591566291. Shelley began at slot
 * 4,492,800 on 2020-07-29 21:44:51 UTC (Unix 1,596,059,091) with one-second slots (mainnet
 * shelley-genesis.json `slotLength` 1; the hard fork's epoch 208, as in cardano-node's and Ogmios'
 * era summaries): 1,596,059,091 − 4,492,800.
 */
export const SHELLEY_UNIX_OFFSET = 1_591_566_291;

export function slotTime(slot: number): number {
  return slot + SHELLEY_UNIX_OFFSET;
}

/** A chain point: a slot and the id (hash) of the block there. */
export interface ChainPoint {
  readonly slot: number;
  readonly id: string;
}

export interface ChainOutput {
  readonly index: number;
  /** Bech32 address. */
  readonly address: string;
  readonly lovelace: bigint;
  /** Native assets by unit (policy id + asset name, hex). */
  readonly assets: ReadonlyMap<string, bigint>;
  /** Inline datum (CBOR hex). */
  readonly datum?: string;
  readonly datumHash?: string;
}

export interface ChainTx {
  readonly id: string;
  readonly outputs: readonly ChainOutput[];
  /** Datums carried in the witness set, by hash (CBOR hex). */
  readonly datums: ReadonlyMap<string, string>;
}

export interface ChainBlock {
  readonly slot: number;
  readonly id: string;
  readonly height: number;
  /** The id of the block before it ('genesis' for the first), when the source says. */
  readonly ancestor?: string;
  /** Valid transactions only (a failed script transaction creates no outputs but its collateral return). */
  readonly transactions: readonly ChainTx[];
}

/** The amount of a unit in an output ('' is ADA). */
export function amountOf(output: ChainOutput, unit: string): bigint {
  return unit === '' ? output.lovelace : (output.assets.get(unit) ?? 0n);
}

/** The datum of an output: inline, or by hash from the transaction's witness set. */
export function datumOf(output: ChainOutput, tx: ChainTx): string | undefined {
  if (output.datum !== undefined) return output.datum;
  return output.datumHash === undefined ? undefined : tx.datums.get(output.datumHash);
}
