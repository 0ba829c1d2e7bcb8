import pg from 'pg';
import {
  IdList,
  runAsync,
  type Engine,
  type Param,
  type Program,
  type RowsStatement,
  type Statement,
  type Step,
} from '../program';
import { ARRAY_TYPES, POSTGRES } from './dialect';

// bigint columns come back as numbers (every value the store keeps in one is far below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

type Queryable = pg.Pool | pg.ClientBase;

/** A value as node-postgres binds it: a list of ids as an array. */
const bound = (value: Param): unknown => (value instanceof IdList ? [...value.ids] : value);

/**
 * Runs the store's programs on PostgreSQL (node-postgres), awaiting each step. Reads go to the pool
 * (any connection); a snapshot and a transaction hold one connection throughout. A writer's
 * transactions run on its lock's session (`commitOn`), one after another: if that session is gone, so
 * is the commit.
 */
export class PostgresEngine implements Engine {
  private readonly texts = new Map<Statement | RowsStatement, string>();
  private session: (() => pg.ClientBase) | undefined;
  /** The writer's transactions, one at a time on its one session. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly pool: pg.Pool) {}

  /** From now on, transactions run on the session `session` gives (it throws while the writer's lock is lost). */
  commitOn(session: (() => pg.ClientBase) | undefined): void {
    this.session = session;
  }

  run<T>(program: Program<T>): Promise<T> {
    return runAsync(program, (step) => this.answer(this.pool, step));
  }

  /** One REPEATABLE READ snapshot: however many commits land meanwhile, the program reads one state. */
  async snapshot<T>(program: Program<T>): Promise<T> {
    const client = await this.pool.connect();
    const quiet = () => undefined;
    // A checked-out client losing its connection between queries must not crash the process.
    client.on('error', quiet);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await runAsync(program, (step) => this.answer(client, step));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', quiet);
      client.release();
    }
  }

  async transaction<T>(program: Program<T>): Promise<T> {
    const session = this.session;
    if (session) {
      const turn = this.queue.then(() => this.inTransaction(session(), program));
      this.queue = turn.catch(() => undefined);
      return turn;
    }
    const client = await this.pool.connect();
    try {
      return await this.inTransaction(client, program);
    } finally {
      client.release();
    }
  }

  private async inTransaction<T>(client: pg.ClientBase, program: Program<T>): Promise<T> {
    try {
      await client.query('BEGIN');
      const result = await runAsync(program, (step) => this.answer(client, step));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async answer(db: Queryable, step: Step): Promise<unknown> {
    if (step.kind === 'rows') {
      await this.writeRows(db, step.statement, step.values);
      return undefined;
    }
    const text = this.text(step.statement);
    const params = step.params.map(bound);
    switch (step.kind) {
      case 'get':
        return (await db.query(text, params)).rows[0] as unknown;
      case 'all':
        return (await db.query(text, params)).rows;
      case 'values':
        return (await db.query({ text, values: params, rowMode: 'array' })).rows;
      case 'run':
        return (await db.query(text, params)).rowCount ?? 0;
    }
  }

  /** A statement's SQL with PostgreSQL's numbered placeholders ($1, $2, …) for its `?`s. */
  private text(statement: Statement): string {
    let found = this.texts.get(statement);
    if (found === undefined) {
      let n = 0;
      found = statement.sql(POSTGRES).replace(/\?/g, () => `$${++n}`);
      this.texts.set(statement, found);
    }
    return found;
  }

  /** One statement over arrays, a column each (`unnest`). */
  private async writeRows(db: Queryable, statement: RowsStatement, values: readonly Param[]): Promise<void> {
    const width = statement.columns.length;
    let rows = values.length / width;
    let at = (row: number) => row;
    if (statement.kind === 'update') {
      // One update per key, the last given (as applying them one after another would leave it).
      const last = new Map<Param, number>();
      for (let row = 0; row < rows; row++) last.set(values[row * width] as Param, row);
      const kept = [...last.values()].sort((a, b) => a - b);
      rows = kept.length;
      at = (row) => kept[row] as number;
    }
    const columns = statement.columns.map((_, column) => {
      const list = new Array<unknown>(rows);
      for (let row = 0; row < rows; row++) list[row] = bound(values[at(row) * width + column] as Param);
      return list;
    });
    let text = this.texts.get(statement);
    if (text === undefined) {
      text = rowsSql(statement);
      this.texts.set(statement, text);
    }
    await db.query(text, columns);
  }
}

/** A rows statement's SQL over one array parameter per column. */
function rowsSql({ kind, table, columns, onConflict }: RowsStatement): string {
  const names = columns.map(([name]) => name);
  const arrays = columns.map(([, type], i) => `$${i + 1}::${ARRAY_TYPES[type]}`).join(', ');
  switch (kind) {
    case 'insert':
      // unnest keeps the arrays' order, and so does the insert: a serial key follows the rows given.
      return `INSERT INTO ${table} (${names.join(', ')})
        SELECT ${names.join(', ')} FROM unnest(${arrays}) WITH ORDINALITY AS x(${names.join(', ')}, ord) ORDER BY ord
        ${onConflict?.(POSTGRES) ?? ''}`;
    case 'update':
      return `UPDATE ${table} SET ${names
        .slice(1)
        .map((name) => `${name} = x.${name}`)
        .join(', ')} FROM unnest(${arrays}) AS x(${names.join(', ')}) WHERE ${table}.${names[0]} = x.${names[0]}`;
    case 'delete':
      return `DELETE FROM ${table} WHERE ${names[0]} = ANY(${arrays})`;
  }
}
