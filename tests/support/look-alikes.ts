import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importTrades } from '../../src/service/importers/trades';
import { openMarket } from '../../src/service/open-market';

/**
 * Look-alike tokens of SNEK (issue 29) as an attacker would mint them, and a market of them: SNEK itself
 * (its real unit), then tickers with a zero-width space, a word joiner, a right-to-left override, full-width
 * letters, lower case, a ticker that is another's suffixed one, three impostors whose policy IDs share
 * SNEK's first hex digits (a forced prefix collision), and the literal text of an escape.
 */

/** SNEK's real unit (Cardano token registry: policy 279c909f…, asset name "SNEK"). */
export const SNEK_UNIT = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
const SNEK_HEX = Buffer.from('SNEK').toString('hex');
/** A unit of policy `nn` repeated and asset name SNEK. */
export const lookAlikeUnit = (n: number) => `${n.toString(16).padStart(2, '0').repeat(28)}${SNEK_HEX}`;

export interface LookAlike {
  readonly unit: string;
  readonly ticker: string;
  readonly name: string;
  /** The ticker its symbol names show, derived by hand from the rule (decisions.md "Symbol names"). */
  readonly shown: string;
}

/** In the order they are imported (their ids: the first of look-alike tickers keeps it plain). */
export const LOOK_ALIKES: readonly LookAlike[] = [
  { unit: SNEK_UNIT, ticker: 'SNEK', name: 'Snek', shown: 'SNEK' },
  {
    unit: lookAlikeUnit(1),
    ticker: 'SNEK\u200B',
    name: 'Snek\u200B',
    shown: `SNEK\\u200B-${lookAlikeUnit(1).slice(0, 6)}`,
  },
  {
    unit: lookAlikeUnit(2),
    ticker: 'SNEK\u2060',
    name: 'Snek\u2060',
    shown: `SNEK\\u2060-${lookAlikeUnit(2).slice(0, 6)}`,
  },
  // Shown as "SNEK" by a browser; written out, no other ticker looks like it.
  { unit: lookAlikeUnit(3), ticker: '\u202EKENS', name: '\u202Ekens', shown: '\\u202EKENS' },
  {
    unit: lookAlikeUnit(4),
    ticker: 'ＳＮＥＫ',
    name: 'Snek (full width)',
    shown: `ＳＮＥＫ-${lookAlikeUnit(4).slice(0, 6)}`,
  },
  { unit: lookAlikeUnit(5), ticker: 'snek', name: 'snek', shown: `snek-${lookAlikeUnit(5).slice(0, 6)}` },
  // Named as the next impostor's suffixed ticker would be: that one's suffix grows.
  { unit: lookAlikeUnit(6), ticker: 'SNEK-279c90', name: 'Not Snek', shown: 'SNEK-279c90' },
  { unit: `279c90${'aa'.repeat(25)}${SNEK_HEX}`, ticker: 'SNEK', name: 'Snek', shown: 'SNEK-279c90aa' },
  { unit: `279c90${'bb'.repeat(25)}${SNEK_HEX}`, ticker: 'SNEK', name: 'Snek', shown: 'SNEK-279c90bb' },
  // Its first 8 hex digits are SNEK's own, but no ticker taken is `SNEK-279c909f`: 8 digits tell it apart.
  { unit: `279c909f${'cc'.repeat(24)}${SNEK_HEX}`, ticker: 'SNEK', name: 'Snek', shown: 'SNEK-279c909f' },
  // The literal text of an escape, typed to pass for the zero-width look-alike as shown.
  { unit: lookAlikeUnit(7), ticker: 'SNEK\\u200B', name: 'Snek', shown: `SNEK\\u200B-${lookAlikeUnit(7).slice(0, 6)}` },
];

/** A UTC day start: each look-alike's one trade is on this day. */
export const LOOK_ALIKE_DAY = Math.floor(1_718_000_000 / 86_400) * 86_400;

/** The MinswapV2 pool ID of look-alike `i` (one pool each, ADA/token). */
export const lookAlikePool = (i: number) => `${(i + 1).toString(16).padStart(2, '0')}01`;

/**
 * Imports the look-alikes into `dataDir` (created when missing) with the trades importer: each token, an
 * ADA pool on MinswapV2 and one trade, prices apart so that a name answering for another pool shows.
 */
export async function importLookAlikes(dataDir: string): Promise<void> {
  const lines: object[] = [];
  LOOK_ALIKES.forEach(({ unit, ticker, name }, i) => {
    lines.push({ kind: 'token', unit, ticker, name, decimals: 0 });
    lines.push({ kind: 'pool', pool_id: lookAlikePool(i), group: 'MinswapV2', base: '', quote: unit, fee_bps: 30 });
    const price = 0.001 * (i + 1);
    lines.push({
      id: `lookalike-${i}`,
      block_time: LOOK_ALIKE_DAY + 60 * i,
      pool_id: lookAlikePool(i),
      previous_price: price,
      current_price: price * 1.01,
      previous_tvl: 1000,
      current_tvl: 1001,
      volume: 1,
    });
  });
  const file = join(dataDir, '..', `look-alikes-${Date.now()}.jsonl`);
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const handle = await openMarket(dataDir, 'look-alikes');
  try {
    const report = await importTrades(handle, file);
    if (report.errors.length > 0) throw new Error(`the look-alikes did not import: ${JSON.stringify(report.errors)}`);
  } finally {
    await handle.close();
  }
}
