import type { BulkLoad, CommitBatch } from '../ports';
import { commitPlan, rebuildBars } from '../rules';
import { SqlStore } from '../sql-store';
import { startSqliteBulkLoad } from './bulk';
import { openDatabase, setBulkMode, type Db } from './database';
import { SqliteEngine } from './engine';

/**
 * The store on SQLite (better-sqlite3): the ports and rules of sql-store.ts run by `SqliteEngine`, each
 * call completing at once; besides them, bulk mode and the bulk load of a first backfill (bulk.ts).
 */
export class SqliteStore extends SqlStore {
  private readonly sqlite: SqliteEngine;

  constructor(private readonly db: Db) {
    const engine = new SqliteEngine(db);
    super(engine);
    this.sqlite = engine;
  }

  /** Applies a batch at once, in one transaction (nested in the caller's, if any). */
  apply(batch: CommitBatch): void {
    this.sqlite.transactionNow(commitPlan(batch));
  }

  /** `bars.rebuild` at once (the bulk load's thread rebuilds in its own synchronous call). */
  rebuildNow(onProgress?: (done: number, total: number) => void): number {
    const { done, total } = this.sqlite.transactionNow(rebuildBars(onProgress));
    onProgress?.(done, total);
    return done;
  }

  /** See `Store.bulkLoad`; `barsPerCommit`: bars per transaction at its end (tests make it small). */
  bulkLoad(options: { readonly barsPerCommit?: number } = {}): Promise<BulkLoad | undefined> {
    try {
      const target = {
        apply: (batch: CommitBatch) => this.apply(batch),
        rebuild: (onProgress?: (done: number, total: number) => void) => this.rebuildNow(onProgress),
      };
      return Promise.resolve(startSqliteBulkLoad(this.db, target, options.barsPerCommit));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  setBulkMode(bulk: boolean): Promise<void> {
    setBulkMode(this.db, bulk);
    // Leaving bulk mode: fold the write-ahead log back so the next start opens a compact file.
    if (!bulk) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve();
  }

  ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}

/** Opens (creating if needed, migrating) the SQLite store of a data directory (':memory:' for tests). */
export function openSqliteStore(dataDir: string, options: { readonly check?: 'quick' | 'off' } = {}): SqliteStore {
  return new SqliteStore(openDatabase({ dataDir, ...(options.check ? { check: options.check } : {}) }));
}
