import type { Dialect } from '../program';

/** SQLite's words (program.ts `Dialect`). */
export const SQLITE: Dialect = {
  name: 'sqlite',
  types: { int: 'INTEGER', bigint: 'INTEGER', real: 'REAL', text: 'TEXT', blob: 'BLOB', bool: 'INTEGER' },
  autoKey: 'INTEGER PRIMARY KEY',
  bigAutoKey: 'INTEGER PRIMARY KEY',
  withoutRowid: ' WITHOUT ROWID',
  greatest: (a, b) => `max(${a}, ${b})`,
  least: (a, b) => `min(${a}, ${b})`,
  idTable: (alias) => `json_each(?) AS ${alias}`,
};
