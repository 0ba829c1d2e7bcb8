import { readdirSync } from 'node:fs';
import { CHAIN_FIXTURES_DIR, readChainFixture } from './chain-fixtures';
import { hasPrise, PRISE_DIR, qualifiedTransactions, realOgmiosBlocks } from './prise';

/**
 * Every real datum (CBOR hex) the tests can reach, distinct, each with where it was first found: the
 * real mainnet pool outputs of tests/fixtures/chain/ and, where the data set is present, every datum of
 * prise's mainnet transactions and blocks (inline datums of inputs and outputs, witness datums).
 */
export function realDatums(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (cbor: string | null | undefined, where: string) => {
    if (cbor && !found.has(cbor.toLowerCase())) found.set(cbor.toLowerCase(), where);
  };
  for (const file of readdirSync(CHAIN_FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    for (const output of readChainFixture(file).outputs) {
      add(output.datum, `tests/fixtures/chain/${file} ${output.tx}#${output.index}`);
      add(output.witnessDatum, `tests/fixtures/chain/${file} ${output.tx}#${output.index} (witness)`);
    }
  }
  if (!hasPrise) return found;
  for (const [hash, tx] of qualifiedTransactions()) {
    for (const utxo of [...tx.inputUtxos, ...tx.outputUtxos]) add(utxo.inlineDatum, `prise transaction ${hash}`);
    for (const datum of tx.witnesses?.datums ?? []) add(datum.cbor, `prise transaction ${hash} (witness)`);
  }
  for (const file of readdirSync(PRISE_DIR).filter((name) => /^blocks_from_.*\.json$/.test(name))) {
    for (const block of realOgmiosBlocks(file)) {
      for (const raw of block.transactions) {
        const tx = raw as {
          readonly id: string;
          readonly outputs: readonly { readonly datum?: string }[];
          readonly datums?: Readonly<Record<string, string>>;
        };
        for (const output of tx.outputs) add(output.datum, `prise ${file} transaction ${tx.id}`);
        for (const cbor of Object.values(tx.datums ?? {})) add(cbor, `prise ${file} transaction ${tx.id} (witness)`);
      }
    }
  }
  return found;
}
