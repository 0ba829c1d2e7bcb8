import pg from 'pg';
import { SqlStore } from '../sql-store';
import { PostgresEngine } from './engine';
import { migrate } from './migrate';
import { WriterLock, type WriterLockOptions } from './writer-lock';

/**
 * The store on PostgreSQL (node-postgres): the ports, rules and schema of sql-store.ts run by
 * `PostgresEngine`, for a writer and API nodes that share one database. Every write is one
 * transaction on one connection (the writer's lock's session, once it holds the lock: writer-lock.ts);
 * row ids are handed out by the single writer as on SQLite.
 */
export class PostgresStore extends SqlStore {
  private writer: WriterLock | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly postgres: PostgresEngine,
  ) {
    super(postgres);
  }

  /** Connects and brings the schema to the latest version (migrate.ts). */
  static async open(url: string): Promise<PostgresStore> {
    // Bounded waits: with the database gone, a request fails in seconds (503) instead of hanging.
    const pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 3_000, query_timeout: 15_000 });
    // An idle client losing its connection (the database restarting) must not crash the process.
    pool.on('error', () => undefined);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresStore(pool, url, new PostgresEngine(pool));
  }

  /**
   * Takes the single-writer lock (a session advisory lock on a connection of its own, held until
   * `close`; freed by PostgreSQL when the writer dies). False when another session holds it. From
   * then on commits run on that session. If it drops (PostgreSQL restarting, the network), commits are
   * refused while the lock is taken again; if another writer took it meanwhile, `onTaken` is told and
   * commits stay refused.
   */
  async lockWriter(options: WriterLockOptions = {}): Promise<boolean> {
    const lock = new WriterLock(this.url, options);
    if (!(await lock.acquire())) return false;
    this.writer = lock;
    this.postgres.commitOn(() => lock.session());
    return true;
  }

  /** PostgreSQL has no bulk mode of ours: commits are durable either way. */
  setBulkMode(): Promise<void> {
    return Promise.resolve();
  }

  async ping(): Promise<void> {
    // A writer that lost its lock answers queries but commits nothing: not well.
    if (this.writer) this.writer.session();
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.writer?.release();
    this.writer = undefined;
    this.postgres.commitOn(undefined);
    await this.pool.end();
  }
}
