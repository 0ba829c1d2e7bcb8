/**
 * How the store's rules are written once for two engines: a rule is a *program*, a generator that
 * yields the statements it needs one at a time and gets each one's answer back. An engine runs it: the
 * SQLite engine at once, in a synchronous loop (better-sqlite3's transactions must stay synchronous),
 * the PostgreSQL engine awaiting each statement on one connection. The program never knows which.
 *
 *     function* hasEvent(id: string): Program<boolean> {
 *       return (yield* get(HAS_EVENT, [id])) !== undefined;
 *     }
 *
 * Statements are written once too (statements.ts), with `?` placeholders; the few words that differ
 * between the engines (types, functions, a list of ids as a table) come from the engine's `Dialect`.
 */

/** A list of row ids bound as one parameter: a JSON array on SQLite, an integer[] on PostgreSQL. */
export class IdList {
  constructor(readonly ids: readonly number[]) {}
}

/** A value bound to a `?`. Booleans are 1 and 0 on SQLite. */
export type Param = number | string | boolean | Buffer | null | IdList;

/** The words of SQL that differ between the engines. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column types: SQLite's INTEGER, REAL, BLOB; PostgreSQL's INTEGER or BIGINT, DOUBLE PRECISION, BYTEA, BOOLEAN. */
  readonly types: Readonly<Record<ColumnType, string>>;
  /** An integer key the engine numbers itself (SQLite's rowid; SERIAL / BIGSERIAL). */
  readonly autoKey: string;
  readonly bigAutoKey: string;
  /** After a table's closing parenthesis: SQLite's WITHOUT ROWID for tables keyed by their primary key alone. */
  readonly withoutRowid: string;
  /** The larger and the smaller of two values (SQLite's scalar max and min; greatest and least). */
  greatest(a: string, b: string): string;
  least(a: string, b: string): string;
  /** A table of one column `value` from an `IdList` parameter, as `alias`. */
  idTable(alias: string): string;
}

/** The types of the columns the store writes in batches (`RowsStatement`) and declares (schema.ts). */
export type ColumnType = 'int' | 'bigint' | 'real' | 'text' | 'blob' | 'bool';

/** One statement's SQL, built once per dialect and prepared once per engine. */
export interface Statement {
  readonly sql: (d: Dialect) => string;
}

/** A statement of SQL text the same on both engines, or built from the dialect's words. */
export function statement(sql: string | ((d: Dialect) => string)): Statement {
  return { sql: typeof sql === 'string' ? () => sql : sql };
}

/**
 * A statement applied to many rows at once: each engine writes it its best way (SQLite: a prepared
 * statement over many rows each call; PostgreSQL: one statement over arrays, `unnest`).
 * `insert` adds rows (with `onConflict`, an upsert); `update` sets the other columns of the row whose
 * first column is the row's first value; `delete` removes the rows whose (only) column is a value.
 */
export interface RowsStatement {
  readonly kind: 'insert' | 'update' | 'delete';
  readonly table: string;
  readonly columns: readonly (readonly [name: string, type: ColumnType])[];
  /** `ON CONFLICT …` of an insert (an upsert); the existing row is the table's name, the new one `excluded`. */
  readonly onConflict?: (d: Dialect) => string;
}

/** What a program asks of the engine, one statement at a time. */
export type Step =
  /** The first row (column names as keys), or undefined. */
  | { readonly kind: 'get'; readonly statement: Statement; readonly params: readonly Param[] }
  /** Every row, as objects keyed by column name. */
  | { readonly kind: 'all'; readonly statement: Statement; readonly params: readonly Param[] }
  /** Every row, as arrays of the selected columns in order. */
  | { readonly kind: 'values'; readonly statement: Statement; readonly params: readonly Param[] }
  /** A statement without rows; answers the number of rows it changed. */
  | { readonly kind: 'run'; readonly statement: Statement; readonly params: readonly Param[] }
  /** A rows statement over `values`: row after row, `columns.length` values each. */
  | { readonly kind: 'rows'; readonly statement: RowsStatement; readonly values: readonly Param[] };

/** A rule of the store: yields steps, gets each step's answer back, returns `T`. */
export type Program<T> = Generator<Step, T, unknown>;

/** Rows as an engine hands them back: column name to value. */
export type Row = Readonly<Record<string, unknown>>;

export function* get(statement: Statement, params: readonly Param[] = []): Program<Row | undefined> {
  return (yield { kind: 'get', statement, params }) as Row | undefined;
}

export function* all(statement: Statement, params: readonly Param[] = []): Program<Row[]> {
  return (yield { kind: 'all', statement, params }) as Row[];
}

export function* values<V extends unknown[]>(statement: Statement, params: readonly Param[] = []): Program<V[]> {
  return (yield { kind: 'values', statement, params }) as V[];
}

export function* run(statement: Statement, params: readonly Param[] = []): Program<number> {
  return (yield { kind: 'run', statement, params }) as number;
}

/** `statement` over `values` (row after row, flat); nothing when there are none. */
export function* rows(statement: RowsStatement, values: readonly Param[]): Program<void> {
  if (values.length > 0) yield { kind: 'rows', statement, values };
}

/**
 * Runs a program to its end, answering each step with `answer` (an engine's synchronous runner); a
 * step's error is thrown into the program, and out of it.
 */
export function runSync<T>(program: Program<T>, answer: (step: Step) => unknown): T {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = answer(next.value);
    } catch (error) {
      next = program.throw(error);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

/** `runSync` for an engine whose steps are awaited. */
export async function runAsync<T>(program: Program<T>, answer: (step: Step) => Promise<unknown>): Promise<T> {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await answer(next.value);
    } catch (error) {
      next = program.throw(error);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

/** Where the store's programs run (an engine): see sql-store.ts. */
export interface Engine {
  /** Runs a program's statements as they come, each its own transaction (reads; an API key's one write). */
  run<T>(program: Program<T>): Promise<T>;
  /** Runs a program's reads in one snapshot: no commit lands between its statements. */
  snapshot<T>(program: Program<T>): Promise<T>;
  /**
   * Runs a program in one write transaction (the writer's, on PostgreSQL: see postgres/engine.ts): all
   * of its writes or, on any error (rethrown), none.
   */
  transaction<T>(program: Program<T>): Promise<T>;
}
