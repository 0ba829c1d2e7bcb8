import type { ChainBlock, ChainOutput, ChainTx } from './block';

/**
 * Conversion of Ogmios v6 blocks (as `@cardano-ogmios/client` hands them over, amounts as bigint)
 * into the decoders' model. Only what the decoders read is kept. Byron blocks (EBB and BFT) carry no
 * DEX transactions and convert to empty blocks.
 */

interface OgmiosValue {
  readonly ada?: { readonly lovelace?: bigint | number };
  readonly [policy: string]: Readonly<Record<string, bigint | number>> | undefined;
}
interface OgmiosOutput {
  readonly address?: string;
  readonly value?: OgmiosValue;
  readonly datumHash?: string;
  readonly datum?: string;
}
interface OgmiosTransaction {
  readonly id?: string;
  readonly spends?: 'inputs' | 'collaterals';
  readonly outputs?: readonly OgmiosOutput[];
  readonly datums?: Readonly<Record<string, string>>;
}
export interface OgmiosBlock {
  readonly type?: string;
  readonly id?: string;
  readonly height?: number;
  readonly slot?: number;
  readonly transactions?: readonly OgmiosTransaction[];
}

/** Thrown for a block this source cannot read (it is then logged, counted and skipped whole). */
export class BlockShapeError extends Error {}

const HEX = /^[0-9a-f]*$/;

function quantity(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new BlockShapeError(`${what}: not an integer amount`);
}

function output(raw: OgmiosOutput, index: number, tx: string): ChainOutput {
  if (typeof raw.address !== 'string' || raw.value === undefined || typeof raw.value !== 'object') throw new BlockShapeError(`output ${tx}#${index}: no address or value`);
  const assets = new Map<string, bigint>();
  for (const [policy, names] of Object.entries(raw.value)) {
    if (policy === 'ada' || names === undefined) continue;
    if (!HEX.test(policy) || policy.length !== 56) throw new BlockShapeError(`output ${tx}#${index}: bad policy id`);
    for (const [name, amount] of Object.entries(names)) assets.set(policy + name, quantity(amount, `output ${tx}#${index}`));
  }
  return {
    index,
    address: raw.address,
    lovelace: quantity(raw.value.ada?.lovelace ?? 0n, `output ${tx}#${index} lovelace`),
    assets,
    ...(typeof raw.datum === 'string' ? { datum: raw.datum } : {}),
    ...(typeof raw.datumHash === 'string' ? { datumHash: raw.datumHash } : {}),
  };
}

export function fromOgmiosBlock(block: OgmiosBlock): ChainBlock {
  if (typeof block.id !== 'string' || typeof block.slot !== 'number' || typeof block.height !== 'number') {
    // An EBB has no slot of its own in some shapes; it holds no transactions either.
    if (block.type === 'ebb' && typeof block.id === 'string') return { slot: block.slot ?? 0, id: block.id, height: block.height ?? 0, transactions: [] };
    throw new BlockShapeError('block without id, slot or height');
  }
  const transactions: ChainTx[] = [];
  for (const tx of block.transactions ?? []) {
    if (typeof tx.id !== 'string') throw new BlockShapeError(`transaction without id in block ${block.id}`);
    // A transaction whose scripts failed spends its collateral: its outputs are not created.
    if (tx.spends === 'collaterals') continue;
    transactions.push({
      id: tx.id,
      outputs: (tx.outputs ?? []).map((o, i) => output(o, i, tx.id as string)),
      datums: new Map(Object.entries(tx.datums ?? {})),
    });
  }
  return { slot: block.slot, id: block.id, height: block.height, transactions };
}
