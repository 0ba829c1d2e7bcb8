import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainOutput, ChainTx } from '../../src/service/chain/block';

/**
 * Real mainnet pool outputs kept as small fixtures under tests/fixtures/chain/ (one JSON file per
 * DEX; each output's source — repository, path, commit, licence, transaction — is a row of
 * tests/fixtures/chain/README.md). Read into the decoders' model: each output as the only output of
 * interest of its transaction, at its real output index, with the witness datum when the datum is by hash.
 *
 * File shape:
 * { "dex": "<group>", "outputs": [{ "tx": "<64 hex>", "index": 0, "address": "addr1…",
 *   "value": { "lovelace": "123", "<policy+name hex>": "456" },
 *   "datum": "<inline CBOR hex>" | "datumHash": "<hex>", "witnessDatum": "<CBOR hex>",
 *   "note": "…" }] }
 * Amounts are strings (they exceed 2^53).
 */

export interface FixtureOutput {
  readonly tx: string;
  readonly index: number;
  readonly address: string;
  readonly value: Readonly<Record<string, string>>;
  readonly datum?: string;
  readonly datumHash?: string;
  readonly witnessDatum?: string;
  readonly note?: string;
}

export interface ChainFixture {
  readonly dex: string;
  readonly outputs: readonly FixtureOutput[];
}

export const CHAIN_FIXTURES_DIR = join(import.meta.dirname, '..', 'fixtures', 'chain');

export function readChainFixture(file: string): ChainFixture {
  return JSON.parse(readFileSync(join(CHAIN_FIXTURES_DIR, file), 'utf8')) as ChainFixture;
}

/** One fixture output as a ChainOutput. */
export function fixtureOutput(raw: FixtureOutput): ChainOutput {
  const assets = new Map<string, bigint>();
  let lovelace = 0n;
  for (const [unit, amount] of Object.entries(raw.value)) {
    if (unit === 'lovelace') lovelace = BigInt(amount);
    else assets.set(unit, BigInt(amount));
  }
  return {
    index: raw.index,
    address: raw.address,
    lovelace,
    assets,
    ...(raw.datum !== undefined ? { datum: raw.datum } : {}),
    ...(raw.datumHash !== undefined ? { datumHash: raw.datumHash } : {}),
  };
}

/** One fixture output as a transaction holding it (and its witness datum, when by hash). */
export function fixtureTx(raw: FixtureOutput): ChainTx {
  const datums = new Map<string, string>();
  if (raw.datumHash !== undefined && raw.witnessDatum !== undefined) datums.set(raw.datumHash, raw.witnessDatum);
  return { id: raw.tx, outputs: [fixtureOutput(raw)], datums };
}
