import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainOutput, ChainTx } from '../../src/service/chain/block';
import type { OgmiosWireBlock } from './prise';

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

/** A fixture output in Ogmios v6's wire shape (`value` by policy, `ada.lovelace`). */
export function wireOutput(o: FixtureOutput): Record<string, unknown> {
  const value: Record<string, Record<string, bigint>> = {};
  for (const [unit, amount] of Object.entries(o.value)) {
    if (unit === 'lovelace') value.ada = { lovelace: BigInt(amount) };
    else (value[unit.slice(0, 56)] ??= {})[unit.slice(56)] = BigInt(amount);
  }
  return {
    address: o.address,
    value,
    ...(o.datum ? { datum: o.datum } : {}),
    ...(o.datumHash ? { datumHash: o.datumHash } : {}),
  };
}

/** One block after `parent` holding the fixture outputs, each at its real index of its transaction. */
export function fixtureBlock(parent: OgmiosWireBlock, outputs: readonly FixtureOutput[]): OgmiosWireBlock {
  const byTx = new Map<string, FixtureOutput[]>();
  for (const o of outputs) byTx.set(o.tx, [...(byTx.get(o.tx) ?? []), o]);
  const transactions = [...byTx].map(([id, list]) => {
    const size = Math.max(...list.map((o) => o.index)) + 1;
    const filler = { address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0', value: { ada: { lovelace: 1_000_000n } } };
    const slots: Record<string, unknown>[] = Array.from({ length: size }, () => filler);
    const datums: Record<string, string> = {};
    for (const o of list) {
      slots[o.index] = wireOutput(o);
      if (o.datumHash && o.witnessDatum) datums[o.datumHash] = o.witnessDatum;
    }
    return { id, spends: 'inputs', outputs: slots, datums };
  });
  return {
    type: 'praos',
    era: 'babbage',
    id: 'fe'.repeat(32),
    height: parent.height + 1,
    slot: parent.slot + 20,
    ancestor: parent.id,
    transactions,
  };
}
