import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blake2b } from '@noble/hashes/blake2.js';
import type { ChainOutput, ChainTx } from '../../src/service/chain/block';

/**
 * Real mainnet data from Edgxtech/prise (../shared/data/prise, README there), read at test time and
 * converted from Bloxbean Yaci's JSON into the decoders' model. Never copied into the repository.
 */
export const PRISE_DIR = '/work/shared/data/prise';
export const hasPrise = existsSync(PRISE_DIR);

interface YaciAmount {
  readonly unit: string;
  readonly quantity: number | string;
}
interface YaciUtxo {
  readonly address: string;
  readonly amounts?: readonly YaciAmount[] | null;
  readonly inlineDatum?: string | null;
  readonly datumHash?: string | null;
}
export interface QualifiedTx {
  readonly txHash: string;
  readonly blockSlot: number;
  readonly dexCode?: number;
  readonly inputUtxos: readonly YaciUtxo[];
  readonly outputUtxos: readonly YaciUtxo[];
  readonly witnesses?: { readonly datums?: readonly { readonly hash?: string; readonly cbor: string }[] | null } | null;
}

/** One swap as prise computed it (one per executed order). */
export interface PriseSwap {
  readonly txHash: string;
  readonly slot: number;
  /** prise's DexEnum code: 0 WingRiders, 1 SundaeSwap, 2 Minswap, 3 MinswapV2. */
  readonly dex: number;
  readonly asset1Unit: string;
  readonly asset2Unit: string;
  readonly amount1: bigint;
  readonly amount2: bigint;
  readonly operation: number;
}

/** JSON with every long integer read as a string (amounts beyond 2^53 must not lose digits). */
function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8').replace(/(:\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

const unitOf = (unit: string) => (unit === 'lovelace' ? '' : unit.replace('.', ''));

function utxo(raw: YaciUtxo, index: number): ChainOutput {
  let lovelace = 0n;
  const assets = new Map<string, bigint>();
  for (const a of raw.amounts ?? []) {
    const unit = unitOf(a.unit);
    if (unit === '') lovelace += BigInt(a.quantity);
    else assets.set(unit, (assets.get(unit) ?? 0n) + BigInt(a.quantity));
  }
  return {
    index,
    address: raw.address,
    lovelace,
    assets,
    ...(raw.inlineDatum ? { datum: raw.inlineDatum } : {}),
    ...(raw.datumHash ? { datumHash: raw.datumHash } : {}),
  };
}

/** The transaction's outputs (as created) and its resolved inputs (as spent), with its witness datums. */
export function toChainTxs(tx: QualifiedTx): { outputs: ChainTx; inputs: ChainTx } {
  // Some files give a witness datum without its hash: it is the Blake2b-256 of the datum's CBOR.
  const datums = new Map(
    (tx.witnesses?.datums ?? []).map((d) => [
      d.hash ?? Buffer.from(blake2b(Uint8Array.from(Buffer.from(d.cbor, 'hex')), { dkLen: 32 })).toString('hex'),
      d.cbor,
    ]),
  );
  return {
    outputs: { id: tx.txHash, outputs: tx.outputUtxos.map(utxo), datums },
    inputs: { id: tx.txHash, outputs: tx.inputUtxos.map(utxo), datums },
  };
}

function files(predicate: (path: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (predicate(path)) out.push(path);
    }
  };
  walk(PRISE_DIR);
  return out.sort();
}

/** Every transaction of the data set with resolved inputs and outputs, by hash. */
export function qualifiedTransactions(): Map<string, QualifiedTx> {
  const txs = new Map<string, QualifiedTx>();
  for (const file of files(
    (p) => p.endsWith('.json') && (p.includes('qualified') || p.includes('transactions_swaps')),
  )) {
    const data = readJson(file);
    for (const item of Array.isArray(data) ? data : [data]) {
      const tx = item as Partial<QualifiedTx>;
      if (typeof tx.txHash !== 'string' || !Array.isArray(tx.outputUtxos) || !Array.isArray(tx.inputUtxos)) continue;
      // The same transaction appears in several files, some without its witnesses: keep the fullest.
      const known = txs.get(tx.txHash);
      if (!known || (!known.witnesses?.datums?.length && tx.witnesses?.datums?.length))
        txs.set(tx.txHash, tx as QualifiedTx);
    }
  }
  return txs;
}

/**
 * Every swap prise computed (JSON and CSV result files), by transaction hash, then by result file:
 * the files come from several versions of prise, which disagree on some transactions (one nets a
 * batch's orders into one record, another rounds differently), so each file's set is kept apart.
 */
export function priseSwaps(): Map<string, Map<string, PriseSwap[]>> {
  const byTx = new Map<string, Map<string, PriseSwap[]>>();
  const seen = new Set<string>();
  const add = (file: string, s: PriseSwap) => {
    const key = `${file}|${s.txHash}|${s.dex}|${s.asset1Unit}|${s.asset2Unit}|${s.amount1}|${s.amount2}|${s.operation}`;
    if (seen.has(key)) return;
    seen.add(key);
    const files = byTx.get(s.txHash) ?? new Map<string, PriseSwap[]>();
    byTx.set(s.txHash, files);
    files.set(file, [...(files.get(file) ?? []), s]);
  };
  const skip = /qualified|candles|units|blocks_|bodies|transactions_swaps/;
  for (const file of files((p) => p.endsWith('.json') && !skip.test(p))) {
    const data = readJson(file);
    if (!Array.isArray(data)) continue;
    for (const raw of data as Record<string, unknown>[]) {
      if (typeof raw.txHash !== 'string' || typeof raw.dex !== 'number') continue;
      add(file, {
        txHash: raw.txHash,
        slot: Number(raw.slot),
        dex: raw.dex,
        asset1Unit: unitOf(String(raw.asset1Unit)),
        asset2Unit: unitOf(String(raw.asset2Unit)),
        amount1: BigInt(String(raw.amount1).split('.')[0] ?? '0'),
        amount2: BigInt(String(raw.amount2).split('.')[0] ?? '0'),
        operation: Number(raw.operation),
      });
    }
  }
  for (const file of files((p) => p.endsWith('.csv'))) {
    const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
    if (header?.trim() !== 'txhash,slot,dex,asset1unit,asset2unit,amount1,amount2,operation') continue;
    for (const line of lines) {
      const [txHash, slot, dex, a1, a2, amount1, amount2, operation] = line.trim().split(',');
      if (!txHash) continue;
      add(file, {
        txHash,
        slot: Number(slot),
        dex: Number(dex),
        asset1Unit: unitOf(a1 ?? ''),
        asset2Unit: unitOf(a2 ?? ''),
        amount1: BigInt(amount1 ?? 0),
        amount2: BigInt(amount2 ?? 0),
        operation: Number(operation),
      });
    }
  }
  return byTx;
}

/** prise's DEX codes and our groups. */
export const PRISE_DEX_GROUPS: Record<number, string> = {
  0: 'WingRiders',
  1: 'SundaeSwap',
  2: 'Minswap',
  3: 'MinswapV2',
};

interface YaciBlock {
  readonly header: {
    readonly headerBody: {
      readonly blockNumber: number;
      readonly slot: number;
      readonly blockHash: string;
      readonly prevHash: string;
    };
  };
  readonly transactionBodies: readonly { readonly txHash: string; readonly outputs: readonly YaciUtxo[] }[];
  readonly transactionWitness: readonly ({
    readonly datums?: readonly { readonly hash?: string; readonly cbor: string }[] | null;
  } | null)[];
  readonly invalidTransactions?: readonly number[] | null;
}

/** An Ogmios v6 block (as Ogmios sends it on the wire) of one of prise's real Babbage blocks. */
export interface OgmiosWireBlock {
  readonly type: 'praos';
  readonly era: 'babbage';
  readonly id: string;
  readonly height: number;
  readonly slot: number;
  readonly ancestor: string;
  readonly transactions: readonly unknown[];
}

const datumHash = (cbor: string) =>
  Buffer.from(blake2b(Uint8Array.from(Buffer.from(cbor, 'hex')), { dkLen: 32 })).toString('hex');

/** prise's real full blocks (`blocks_from_*.json`), in chain order, as Ogmios v6 would send them. */
export function realOgmiosBlocks(file = 'blocks_from_9894905.json'): OgmiosWireBlock[] {
  const blocks = readJson(join(PRISE_DIR, file)) as YaciBlock[];
  return blocks.map((block) => {
    const header = block.header.headerBody;
    const invalid = new Set(block.invalidTransactions ?? []);
    return {
      type: 'praos',
      era: 'babbage',
      id: header.blockHash,
      height: header.blockNumber,
      slot: header.slot,
      ancestor: header.prevHash,
      transactions: block.transactionBodies.map((tx, i) => {
        const datums = Object.fromEntries(
          (block.transactionWitness[i]?.datums ?? []).map((d) => [d.hash ?? datumHash(d.cbor), d.cbor]),
        );
        return {
          id: tx.txHash,
          spends: invalid.has(i) ? 'collaterals' : 'inputs',
          outputs: tx.outputs.map((o) => {
            const value: Record<string, Record<string, bigint>> = {};
            for (const a of o.amounts ?? []) {
              const unit = unitOf(a.unit);
              if (unit === '') value.ada = { lovelace: BigInt(a.quantity) };
              else (value[unit.slice(0, 56)] ??= {})[unit.slice(56)] = BigInt(a.quantity);
            }
            return {
              address: o.address,
              value,
              ...(o.inlineDatum ? { datum: o.inlineDatum } : {}),
              ...(o.datumHash ? { datumHash: o.datumHash } : {}),
            };
          }),
          ...(Object.keys(datums).length > 0 ? { datums } : {}),
        };
      }),
    };
  });
}

/** JSON with bigints written as plain JSON numbers (as Ogmios writes amounts). */
export function wireJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000big${v}` : v)).replace(
    /"\\u0000big(-?\d+)"/g,
    '$1',
  );
}
