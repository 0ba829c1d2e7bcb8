import type { GroupName } from './groups';

/**
 * Symbol naming (decisions "Identifiers"): `<BASE>.<QUOTE>_<Group>_Pool<n>`, where n numbers the pools
 * of that pair within the group in order of creation; description `<BASE>/<QUOTE> on <Group>`.
 */
export function formatSymbolName(base: string, quote: string, group: GroupName, poolNumber: number): string {
  return `${base}.${quote}_${group}_Pool${poolNumber}`;
}

export function formatDescription(base: string, quote: string, group: GroupName): string {
  return `${base}/${quote} on ${group}`;
}

export interface ParsedSymbolName {
  readonly base: string;
  readonly quote: string;
  readonly group: string;
  readonly poolNumber: number;
}

const SYMBOL_NAME = /^(.+?)\.(.+)_([A-Za-z0-9]+)_Pool([1-9][0-9]*)$/;

/** Parses a symbol name; undefined when it is not of the documented shape. */
export function parseSymbolName(name: string): ParsedSymbolName | undefined {
  const match = SYMBOL_NAME.exec(name);
  if (!match) return undefined;
  const [, base, quote, group, poolNumber] = match;
  if (base === undefined || quote === undefined || group === undefined || poolNumber === undefined) return undefined;
  return { base, quote, group, poolNumber: Number(poolNumber) };
}
