import type { ColumnType, Dialect } from '../program';

/** PostgreSQL's words (program.ts `Dialect`). */
export const POSTGRES: Dialect = {
  name: 'postgres',
  types: {
    int: 'INTEGER',
    bigint: 'BIGINT',
    real: 'DOUBLE PRECISION',
    text: 'TEXT',
    blob: 'BYTEA',
    bool: 'BOOLEAN',
  },
  autoKey: 'SERIAL PRIMARY KEY',
  bigAutoKey: 'BIGSERIAL PRIMARY KEY',
  withoutRowid: '',
  greatest: (a, b) => `greatest(${a}, ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
  idTable: (alias) => `unnest(?::integer[]) AS ${alias}(value)`,
};

/** The array type a column's values are bound as, in a rows statement (`unnest`). */
export const ARRAY_TYPES: Readonly<Record<ColumnType, string>> = {
  int: 'integer[]',
  bigint: 'bigint[]',
  real: 'float8[]',
  text: 'text[]',
  blob: 'bytea[]',
  bool: 'boolean[]',
};
