import { readFileSync } from 'node:fs';
import { z } from 'zod';
import bundled from './vyfi-pools.json';

/**
 * VyFi's pools as this source knows them: each pool's own validator (the payment script hash of its
 * address) and its pair. Every VyFi pool has its own pool validator and NFT policy (the validator is
 * parameterised by the NFT: cardananium/cquisitor src/utils/protocols/vyfinance/constants.ts,
 * "VyFinance deploys ONE order validator and ONE pool validator PER POOL"), and its datum does not
 * name its assets: nothing shared on chain marks a VyFi pool (IndigoProtocol/dexter
 * src/dex/vyfinance.ts: "VyFinance pools are not easily identifiable on-chain"), so the list is data.
 * The indexers that decode VyFi read it from VyFi's pool-list API (https://api.vyfi.io/lp?networkId=1:
 * iris's VyFiAnalyzer, Charli3-Official/charli3-dendrite dexs/amm/vyfi.py); this source bundles a
 * copy (vyfi-pools.json: its `source` says where from) and takes a newer one from the operator
 * (`--vyfi-pools <file>` / `VYFI_POOLS`, the same shape).
 */
export interface VyFiPool {
  /** The payment script hash of the pool's address (56 hex digits): the pool's own validator. */
  readonly validator: string;
  /** Units of the pool's assets ('' is ADA) in VyFi's order: the order of the datum's Bar-fee fields. */
  readonly assetA: string;
  readonly assetB: string;
  /** The pool's fee in basis points (VyFi's pool list: `feesSettings.barFee + feesSettings.liqFee`). */
  readonly feeBps: number;
}

/** A list of VyFi pools and where it came from. */
export interface VyFiPoolList {
  readonly pools: readonly VyFiPool[];
  /** Where the list came from, in one line: the bundled file's source, or the operator's file. */
  readonly origin: string;
}

/** VyFi's fee, 0.3 %: 0.1 % to the Bar, 0.2 % to the liquidity providers (VyFi, "A Dive into the BAR"); a list entry may say otherwise. */
export const VYFI_FEE_BPS = 30;

/** A script hash: 56 hex digits, any case (kept in lower case, as every unit here). */
const scriptHash = z
  .string({ error: 'must be a string' })
  .regex(/^[0-9a-fA-F]{56}$/, 'must be a script hash (56 hex digits)')
  .transform((value) => value.toLowerCase());

/** A unit: '' for ADA, else a policy id and an asset name of at most 32 bytes (the ledger's CDDL: `asset_name = bytes .size (0 .. 32)`), in hex. */
const unit = z
  .string({ error: 'must be a string' })
  .regex(
    /^$|^[0-9a-fA-F]{56}(?:[0-9a-fA-F]{2}){0,32}$/,
    "must be '' (ADA) or a policy id (56 hex digits) and an asset name (0 to 32 bytes in hex)",
  )
  .transform((value) => value.toLowerCase());

/** The message of a value that is not an object at all (zod's own for the rest: an unrecognised key, say). */
const objectError = (shape: string) => (issue: { readonly code?: string }) =>
  issue.code === 'invalid_type' ? `must be an object ${shape}` : undefined;

const ENTRY = z.strictObject(
  {
    validator: scriptHash,
    assetA: unit,
    assetB: unit,
    feeBps: z
      .number({ error: 'must be a number' })
      .min(0, 'must be at least 0')
      .max(10_000, 'must be at most 10000')
      .optional(),
  },
  { error: objectError('{ "validator", "assetA", "assetB", "feeBps"? }') },
);

const FILE = z.strictObject(
  {
    // Free text about the list (the bundled file's repository, path, commit, licence and date); not read.
    source: z.record(z.string(), z.string(), { error: 'must be an object of strings' }).optional(),
    pools: z.array(ENTRY, { error: 'must be a list of pools' }).min(1, 'must list at least one pool'),
  },
  { error: objectError('{ "source"?, "pools": [...] }') },
);

/**
 * The pools of a list in the file's shape (`{ "source"?: {...}, "pools": [{ "validator", "assetA",
 * "assetB", "feeBps"? }] }`); throws an Error naming the first bad entry and field.
 */
export function parseVyFiPools(value: unknown): VyFiPool[] {
  const parsed = FILE.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length
      ? issue.path
          .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
          .join('')
          .replace(/^\./, '')
      : 'the list';
    throw new Error(`${where}: ${issue?.message ?? 'invalid'}`);
  }
  const seen = new Map<string, number>();
  return parsed.data.pools.map((entry, index) => {
    const first = seen.get(entry.validator);
    if (first !== undefined)
      throw new Error(
        `pools[${index}].validator: ${entry.validator} is pools[${first}]'s already (one pool a validator)`,
      );
    seen.set(entry.validator, index);
    if (entry.assetA === entry.assetB) throw new Error(`pools[${index}]: assetA and assetB are the same asset`);
    return {
      validator: entry.validator,
      assetA: entry.assetA,
      assetB: entry.assetB,
      feeBps: entry.feeBps ?? VYFI_FEE_BPS,
    };
  });
}

/** Reads an operator's list (`--vyfi-pools`); throws an Error naming the file and what is wrong with it. */
export function readVyFiPools(path: string): VyFiPoolList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  let pools: VyFiPool[];
  try {
    pools = parseVyFiPools(json);
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return { pools, origin: path };
}

/**
 * The bundled list (vyfi-pools.json): the 307 pools of cardananium/cquisitor's copy of VyFi's pool
 * list (src/utils/protocols/vyfinance/pools.generated.ts at commit 0ad8f0f3…, Apache-2.0), the default.
 */
export const BUNDLED_VYFI_POOLS: VyFiPoolList = {
  pools: parseVyFiPools(bundled),
  origin: `the bundled list (${bundled.source.repository} ${bundled.source.path} at ${bundled.source.commit.slice(0, 8)}, extracted ${bundled.source.extracted})`,
};
