import type { ChainPoint } from './block';

/**
 * Where a new chain-fed market starts (`--chain-start`), for a data directory without a stored tip
 * (later starts resume at the stored tip):
 * - `tip`: the node's tip, asked of Ogmios (`queryNetwork/tip`): live prices within seconds, no history;
 * - `<N>d`: about N days back. Chain synchronisation cannot seek by time, so the block there is
 *   looked up in a chain index beside Ogmios: Kupo's `GET /checkpoints/{slot-no}` (the newest block
 *   at or before a slot; `--kupo`), for the slot N × 86,400 before the node's tip (one slot a second
 *   since Shelley);
 * - `<slot>.<block hash>`: that block (any block's slot and hash, from an explorer).
 */
export type ChainStart =
  | { readonly kind: 'tip' }
  | { readonly kind: 'days'; readonly days: number }
  | { readonly kind: 'point'; readonly point: ChainPoint };

/** The default for a new chain-fed market. */
export const DEFAULT_CHAIN_START: ChainStart = { kind: 'tip' };

/** Most days back `<N>d` may ask (a year and a bit: beyond, start from a block's slot and hash). */
export const MAX_START_DAYS = 400;

const SECONDS_PER_DAY = 86_400;

/** Parses `tip`, `<N>d` or `<slot>.<block hash>`; throws an Error saying what is accepted. */
export function parseChainStart(value: string): ChainStart {
  const text = value.trim();
  if (text === 'tip') return { kind: 'tip' };
  const days = /^(\d{1,3})d$/.exec(text);
  if (days) {
    const n = Number(days[1]);
    if (n < 1 || n > MAX_START_DAYS) throw new Error(`chain-start ${text}: days back must be 1 to ${MAX_START_DAYS}`);
    return { kind: 'days', days: n };
  }
  const point = /^(\d+)\.([0-9a-fA-F]{64})$/.exec(text);
  if (point) return { kind: 'point', point: { slot: Number(point[1]), id: (point[2] ?? '').toLowerCase() } };
  throw new Error(`chain-start must be tip, <N>d (e.g. 30d) or <slot>.<block hash> (64 hex), got "${value}"`);
}

/** A slot `days` days before `tipSlot`. */
export function slotDaysBefore(tipSlot: number, days: number): number {
  return Math.max(0, tipSlot - days * SECONDS_PER_DAY);
}
