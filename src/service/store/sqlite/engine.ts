import type Database from 'better-sqlite3';
import {
  IdList,
  runSync,
  type Engine,
  type Param,
  type Program,
  type RowsStatement,
  type Statement,
  type Step,
} from '../program';
import type { Db } from './database';
import { SQLITE } from './dialect';

/** Rows per insert statement of a rows step: binding many rows per call costs far less than a call per row. */
const ROWS_PER_INSERT = 64;

/** A value as better-sqlite3 binds it: no booleans (1 and 0), a list of ids as JSON. */
function bound(value: Param): Exclude<Param, boolean | IdList> {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof IdList) return JSON.stringify(value.ids);
  return value;
}

function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Runs the store's programs on a better-sqlite3 connection, synchronously: every step is answered at
 * once, so a program in a transaction is one synchronous call (`transactionNow`), as better-sqlite3's
 * transactions must be. Each statement is prepared once.
 */
export class SqliteEngine implements Engine {
  private readonly objects = new Map<Statement, Database.Statement>();
  private readonly arrays = new Map<Statement, Database.Statement>();
  private readonly batches = new Map<RowsStatement, Map<number, Database.Statement>>();
  private readonly inTransaction: (program: Program<unknown>) => unknown;

  constructor(private readonly db: Db) {
    this.inTransaction = db.transaction((program: Program<unknown>) => this.now(program));
  }

  /** Runs a program at once, outside a transaction of its own. */
  now<T>(program: Program<T>): T {
    return runSync(program, (step) => this.answer(step));
  }

  /** Runs a program at once in one transaction (a savepoint inside the caller's, if any). */
  transactionNow<T>(program: Program<T>): T {
    return this.inTransaction(program) as T;
  }

  run<T>(program: Program<T>): Promise<T> {
    return settle(() => this.now(program));
  }

  /** One read transaction: the bulk load's thread may commit on its own connection meanwhile. */
  snapshot<T>(program: Program<T>): Promise<T> {
    return settle(() => this.transactionNow(program));
  }

  transaction<T>(program: Program<T>): Promise<T> {
    return settle(() => this.transactionNow(program));
  }

  private answer(step: Step): unknown {
    if (step.kind === 'rows') {
      this.writeRows(step.statement, step.values);
      return undefined;
    }
    const params = step.params.map(bound);
    switch (step.kind) {
      case 'get':
        return this.prepared(step.statement).get(...params);
      case 'all':
        return this.prepared(step.statement).all(...params);
      case 'values':
        return this.preparedArrays(step.statement).all(...params);
      case 'run':
        return this.prepared(step.statement).run(...params).changes;
    }
  }

  private prepared(statement: Statement): Database.Statement {
    let found = this.objects.get(statement);
    if (!found) {
      found = this.db.prepare(statement.sql(SQLITE));
      this.objects.set(statement, found);
    }
    return found;
  }

  private preparedArrays(statement: Statement): Database.Statement {
    let found = this.arrays.get(statement);
    if (!found) {
      found = this.db.prepare(statement.sql(SQLITE)).raw(true);
      this.arrays.set(statement, found);
    }
    return found;
  }

  /** Inserts many rows per statement; updates and deletes a row per statement (an update's key bound last). */
  private writeRows(statement: RowsStatement, values: readonly Param[]): void {
    const width = statement.columns.length;
    const count = values.length / width;
    const per = statement.kind === 'insert' ? ROWS_PER_INSERT : 1;
    const keyLast = statement.kind === 'update';
    for (let first = 0; first < count; first += per) {
      const n = Math.min(per, count - first);
      const args = new Array<Exclude<Param, boolean | IdList>>(n * width);
      const start = first * width;
      for (let i = 0; i < args.length; i++) args[i] = bound(values[start + i] as Param);
      if (keyLast) args.push(args.shift() as Exclude<Param, boolean | IdList>);
      this.rowsStatement(statement, n).run(...args);
    }
  }

  private rowsStatement(statement: RowsStatement, rows: number): Database.Statement {
    let bySize = this.batches.get(statement);
    if (!bySize) this.batches.set(statement, (bySize = new Map()));
    let found = bySize.get(rows);
    if (!found) {
      found = this.db.prepare(rowsSql(statement, rows));
      bySize.set(rows, found);
    }
    return found;
  }
}

/** A rows statement's SQL for `rows` rows (an update or a delete: one; an update's key is its last parameter). */
function rowsSql({ kind, table, columns, onConflict }: RowsStatement, rows: number): string {
  const names = columns.map(([name]) => name);
  switch (kind) {
    case 'insert': {
      const row = `(${names.map(() => '?').join(', ')})`;
      return `INSERT INTO ${table} (${names.join(', ')}) VALUES ${Array<string>(rows).fill(row).join(', ')} ${onConflict?.(SQLITE) ?? ''}`;
    }
    case 'update':
      return `UPDATE ${table} SET ${names
        .slice(1)
        .map((name) => `${name} = ?`)
        .join(', ')} WHERE ${names[0]} = ?`;
    case 'delete':
      return `DELETE FROM ${table} WHERE ${names[0]} = ?`;
  }
}
