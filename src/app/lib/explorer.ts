/**
 * Cardano explorers a chain trade links to (its transaction): a setting of the trader tools
 * (lib/trader-settings.ts), Cexplorer by default, as the trades tape has always linked.
 */
export const EXPLORERS = {
  /** https://cexplorer.io/tx/<hash>: Cexplorer's transaction page. */
  cexplorer: { label: 'Cexplorer (cexplorer.io)', tx: (hash: string) => `https://cexplorer.io/tx/${hash}` },
  /** https://cardanoscan.io/transaction/<hash>: Cardanoscan's transaction page. */
  cardanoscan: {
    label: 'Cardanoscan (cardanoscan.io)',
    tx: (hash: string) => `https://cardanoscan.io/transaction/${hash}`,
  },
} as const;

export type Explorer = keyof typeof EXPLORERS;

export const DEFAULT_EXPLORER: Explorer = 'cexplorer';

export const isExplorer = (value: unknown): value is Explorer =>
  typeof value === 'string' && Object.hasOwn(EXPLORERS, value);

/** A trade of the Cardano chain: its event id is the transaction's hash and output (`<64 hex>#<n>`), whatever the upstream. */
const CHAIN_ID = /^([0-9a-f]{64})#\d+$/i;

/** The transaction hash of a chain trade's event id (lowercase); undefined for any other trade (the simulator's `sim:…`). */
export function chainTxOf(id: string | undefined): string | undefined {
  return id ? CHAIN_ID.exec(id)?.[1]?.toLowerCase() : undefined;
}

/** The explorer's page of a chain trade's transaction, or undefined for a trade that has none. */
export function txUrl(id: string | undefined, explorer: Explorer): string | undefined {
  const hash = chainTxOf(id);
  return hash === undefined ? undefined : EXPLORERS[explorer].tx(hash);
}
