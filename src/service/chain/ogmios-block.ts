import { safeJSON } from '@cardano-ogmios/client';
import { z } from 'zod';
import { escapeLogText } from '../../shared/log-text';
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

/** A body field that is not what Ogmios sends: its path and what is wrong (the block is skipped whole). */
class BodyError extends Error {}

const HASH = /^[0-9a-f]{64}$/i;
const POLICY = /^[0-9a-f]{56}$/;
const INTEGER = /^-?\d+$/;

/** An object key the node chose, as a path may show it: plain when it is a word, else quoted, escaped and cut to 64 characters. */
function keyOf(key: string): string {
  if (/^[\w-]{1,64}$/.test(key)) return key;
  return `[${escapeLogText(JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key))}]`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An amount: a bigint (the library's parser), a safe integer, or the decimal string `parseFrame` makes of a long one. */
function amountOf(v: unknown, path: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && INTEGER.test(v)) return BigInt(v);
  throw new BodyError(`${path}: not an integer`);
}

/** Ogmios' `ada.lovelace` and native assets by policy, as one output's amounts (and its datum). */
function output(raw: unknown, index: number, path: string): ChainOutput {
  if (!isRecord(raw)) throw new BodyError(`${path}: not an object`);
  const { address, value, datum, datumHash } = raw;
  if (typeof address !== 'string') throw new BodyError(`${path}.address: not a string`);
  if (!isRecord(value)) throw new BodyError(`${path}.value: not an object`);
  if (datum !== undefined && typeof datum !== 'string') throw new BodyError(`${path}.datum: not a string`);
  if (datumHash !== undefined && typeof datumHash !== 'string') throw new BodyError(`${path}.datumHash: not a string`);
  const assets = new Map<string, bigint>();
  let lovelace = 0n;
  for (const policy in value) {
    const names = value[policy];
    if (!isRecord(names)) throw new BodyError(`${path}.value.${keyOf(policy)}: not an object`);
    if (policy === 'ada') {
      if (names.lovelace !== undefined) lovelace = amountOf(names.lovelace, `${path}.value.ada.lovelace`);
      continue;
    }
    if (!POLICY.test(policy)) throw new BodyError(`${path}.value: bad policy id`);
    for (const name in names)
      assets.set(policy + name, amountOf(names[name], `${path}.value.${policy}.${keyOf(name)}`));
  }
  return {
    index,
    address,
    lovelace,
    assets,
    ...(datum !== undefined ? { datum } : {}),
    ...(datumHash !== undefined ? { datumHash } : {}),
  };
}

/**
 * The transactions of a block's body, checked by hand rather than with a zod schema: this runs for
 * every output of every block while catching up, and was the largest cost after parsing (docs/chain.md).
 */
function transactionsOf(raw: Record<string, unknown>): ChainTx[] {
  const list = raw.transactions ?? [];
  if (!Array.isArray(list)) throw new BodyError('transactions: not a list');
  const transactions: ChainTx[] = [];
  for (let i = 0; i < list.length; i++) {
    const tx: unknown = list[i];
    const path = `transactions.${i}`;
    if (!isRecord(tx)) throw new BodyError(`${path}: not an object`);
    if (typeof tx.id !== 'string' || !HASH.test(tx.id)) throw new BodyError(`${path}.id: not a 64-hex hash`);
    if (tx.spends !== undefined && tx.spends !== 'inputs' && tx.spends !== 'collaterals')
      throw new BodyError(`${path}.spends: neither inputs nor collaterals`);
    // A transaction whose scripts failed spends its collateral: its outputs are not created.
    if (tx.spends === 'collaterals') continue;
    const outputs = tx.outputs ?? [];
    if (!Array.isArray(outputs)) throw new BodyError(`${path}.outputs: not a list`);
    const datums = tx.datums ?? {};
    if (!isRecord(datums)) throw new BodyError(`${path}.datums: not an object`);
    const witness = new Map<string, string>();
    for (const hash in datums) {
      const cbor = datums[hash];
      if (typeof cbor !== 'string') throw new BodyError(`${path}.datums.${keyOf(hash)}: not a string`);
      witness.set(hash, cbor);
    }
    transactions.push({
      id: tx.id.toLowerCase(),
      outputs: outputs.map((o: unknown, n) => output(o, n, `${path}.outputs.${n}`)),
      datums: witness,
    });
  }
  return transactions;
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
  const header: ChainBlockHeader = {
    slot: parsed.data.slot ?? 0,
    id: id.toLowerCase(),
    height,
    ...(ancestor !== undefined ? { ancestor: ancestor.toLowerCase() } : {}),
  };
  if (type === 'ebb') return { ...header, transactions: [] };
  try {
    return { ...header, transactions: transactionsOf(raw as Record<string, unknown>) };
  } catch (error) {
    if (error instanceof BodyError) throw new BlockShapeError(error.message, header);
    throw error;
  }
}

const pointSchema = z.union([z.literal('origin'), z.object({ slot, id: hash })]);

/** A RollBackward's point: `origin` (slot -1) or a slot and block id; FrameError for anything else. */
export function fromOgmiosPoint(raw: unknown): ChainPoint {
  const parsed = pointSchema.safeParse(raw);
  if (!parsed.success)
    throw new FrameError(`Ogmios sent a rollback to something that is not a point (${issue(parsed.error, 'point')})`);
  return parsed.data === 'origin' ? { slot: -1, id: '' } : { slot: parsed.data.slot, id: parsed.data.id.toLowerCase() };
}
