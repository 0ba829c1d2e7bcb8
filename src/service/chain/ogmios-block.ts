import { safeJSON } from '@cardano-ogmios/client';
import { z } from 'zod';
import type { ChainBlock, ChainOutput, ChainPoint, ChainTx } from './block';

/**
 * Conversion of Ogmios v6 blocks (as `@cardano-ogmios/client` hands them over, amounts as bigint)
 * into the decoders' model, checked with zod. Only what the decoders read is kept. Byron blocks (EBB
 * and BFT) carry no DEX transactions and convert to empty blocks.
 *
 * Two kinds of bad input: a frame whose block has no readable header (id, slot, height) is not a block
 * at all (`FrameError`: the connection is dropped and made again, nothing is applied); a block with a
 * header but a body this source cannot read (`BlockShapeError`, carrying the header) is skipped whole,
 * counted and logged, and the tip moves past it.
 */

/** A frame that is not a block, or a point that is not a point: garbage from the node's side. */
export class FrameError extends Error {}

/** A block whose body cannot be read: skipped whole; `header` is where the tip moves. */
export class BlockShapeError extends Error {
  constructor(
    message: string,
    readonly header: ChainBlockHeader,
  ) {
    super(message);
  }
}

export type ChainBlockHeader = Omit<ChainBlock, 'transactions'>;

const hash = z.string().regex(/^[0-9a-f]{64}$/i, 'not a 64-hex hash');
const slot = z.number().int().nonnegative();

const headerSchema = z.object({
  type: z.string().optional(),
  id: hash,
  slot: slot.optional(),
  height: z.number().int().nonnegative(),
  // A block's parent: its hash, or 'genesis' for the first.
  ancestor: z.string().optional(),
});

const amount = z
  .union([z.bigint(), z.number().int().refine(Number.isSafeInteger, 'not a safe integer'), z.string().regex(/^-?\d+$/, 'not an integer')])
  .transform((v) => BigInt(v));

/** JSON integer tokens of 16 digits or more: the only numbers of a frame that may exceed 2^53 (amounts). */
const LONG_INTEGER = /([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g;

/**
 * Parses an Ogmios frame, keeping every integer exact: integers of 16 digits or more are read as
 * strings (amounts take them as bigint), the rest with the engine's own JSON.parse — several times
 * faster than the library's JavaScript parser (`safeJSON`, json-bigint). Quoting can only go wrong for
 * such digits inside a JSON string (transaction metadata), and then always makes the text invalid
 * (an inserted quote closes the string before a number); such a frame is parsed with `safeJSON`.
 * Throws for a frame that is not JSON.
 */
export function parseFrame(text: string): unknown {
  try {
    return JSON.parse(text.replace(LONG_INTEGER, '$1"$2"'));
  } catch {
    return safeJSON.parse(text);
  }
}

const outputSchema = z.object({
  address: z.string(),
  value: z.record(z.string(), z.record(z.string(), amount)),
  datumHash: z.string().optional(),
  datum: z.string().optional(),
});

const transactionSchema = z.object({
  id: hash,
  // A transaction whose scripts failed spends its collateral: its outputs are not created.
  spends: z.enum(['inputs', 'collaterals']).optional(),
  outputs: z.array(outputSchema).default([]),
  datums: z.record(z.string(), z.string()).default({}),
});

const bodySchema = z.object({ transactions: z.array(transactionSchema).default([]) });

/** Ogmios' `ada.lovelace` and native assets by policy, as one output's amounts. */
function output(raw: z.infer<typeof outputSchema>, index: number, tx: string): ChainOutput {
  const assets = new Map<string, bigint>();
  let lovelace = 0n;
  for (const [policy, names] of Object.entries(raw.value)) {
    if (policy === 'ada') {
      lovelace = names.lovelace ?? 0n;
      continue;
    }
    if (!/^[0-9a-f]{56}$/.test(policy)) throw new Error(`output ${tx}#${index}: bad policy id`);
    for (const [name, quantity] of Object.entries(names)) assets.set(policy + name, quantity);
  }
  return {
    index,
    address: raw.address,
    lovelace,
    assets,
    ...(raw.datum !== undefined ? { datum: raw.datum } : {}),
    ...(raw.datumHash !== undefined ? { datumHash: raw.datumHash } : {}),
  };
}

function issue(error: z.ZodError, what = 'block'): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || what}: ${first.message}` : 'unreadable';
}

/** Converts an Ogmios v6 block; throws FrameError (no header) or BlockShapeError (a body it cannot read). */
export function fromOgmiosBlock(raw: unknown): ChainBlock {
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success) throw new FrameError(`Ogmios sent a block without a readable header (${issue(parsed.error)})`);
  const { id, height, ancestor, type } = parsed.data;
  // An epoch boundary block (Byron) has no slot of its own in some shapes; it holds no transactions.
  if (parsed.data.slot === undefined && type !== 'ebb') throw new FrameError(`Ogmios sent block ${id} without a slot`);
  const header: ChainBlockHeader = { slot: parsed.data.slot ?? 0, id: id.toLowerCase(), height, ...(ancestor !== undefined ? { ancestor: ancestor.toLowerCase() } : {}) };
  if (type === 'ebb') return { ...header, transactions: [] };
  const body = bodySchema.safeParse(raw);
  if (!body.success) throw new BlockShapeError(issue(body.error), header);
  const transactions: ChainTx[] = [];
  try {
    for (const tx of body.data.transactions) {
      if (tx.spends === 'collaterals') continue;
      const txId = tx.id.toLowerCase();
      transactions.push({ id: txId, outputs: tx.outputs.map((o, i) => output(o, i, txId)), datums: new Map(Object.entries(tx.datums)) });
    }
  } catch (error) {
    throw new BlockShapeError(error instanceof Error ? error.message : String(error), header);
  }
  return { ...header, transactions };
}

const pointSchema = z.union([z.literal('origin'), z.object({ slot, id: hash })]);

/** A RollBackward's point: `origin` (slot -1) or a slot and block id; FrameError for anything else. */
export function fromOgmiosPoint(raw: unknown): ChainPoint {
  const parsed = pointSchema.safeParse(raw);
  if (!parsed.success) throw new FrameError(`Ogmios sent a rollback to something that is not a point (${issue(parsed.error, 'point')})`);
  return parsed.data === 'origin' ? { slot: -1, id: '' } : { slot: parsed.data.slot, id: parsed.data.id.toLowerCase() };
}
