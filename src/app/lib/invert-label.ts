import { parseSymbolName } from '@/shared/symbols';

/** The sides of a pair as named so far: the resolved pair's, or those a symbol name (`ADA.SNEK_Aggregate_Pool1`) spells. */
export type PairSides = { readonly base: string; readonly quote: string } | undefined;

/** Base and quote of a symbol name before it is resolved (a pool ID names none). */
export const pairOfName = (name: string | undefined): PairSides =>
  name === undefined ? undefined : parseSymbolName(name);

/**
 * The invert toggle's text: the pair as shown (`SNEK/ADA ⇄`, `ADA/SNEK ⇄` inverted), a dash for sides
 * not known yet. The app's toolbar (page/chart-toolbar.tsx), and so the page's skeleton, write it.
 */
export function invertLabel(pair: PairSides, inverted: boolean): string {
  const shown = pair ? (inverted ? `${pair.base}/${pair.quote}` : `${pair.quote}/${pair.base}`) : '–/–';
  return `${shown} ⇄`;
}
