import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DATABASE_FILE, openDatabase } from '../../src/service/store/sqlite/database';
import { BARS_STALE } from '../../src/service/store/statements';

/**
 * Fault injection at the engine: a trigger that makes SQLite itself abort a write, so a commit fails
 * the way a power cut or a full disk would make it fail, inside the real store. The one place tests
 * write SQL (everything else goes through the store's interfaces), with `storeIndexes` and
 * `storeFill` beside it.
 */
export function installFault(dataDir: string, name: string, trigger: string): void {
  const db = openDatabase({ dataDir });
  try {
    db.exec(`CREATE TRIGGER ${name} ${trigger}`);
  } finally {
    db.close();
  }
}

/** Removes a fault installed by `installFault`. */
export function removeFault(dataDir: string, name: string): void {
  const db = openDatabase({ dataDir });
  try {
    db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  } finally {
    db.close();
  }
}

/** The names of the indexes of a data directory's store (sqlite_master), for tests of the schema's upkeep. */
export function storeIndexes(dataDir: string): string[] {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
}

/** What a data directory's store file holds so far (see `storeFill`). */
export interface StoreFill {
  readonly trades: number;
  readonly bars: number;
  /** Whether the bars are marked as lagging the trades (`BarStore.stale`). */
  readonly barsStale: boolean;
}

/**
 * What a data directory's store file holds, read without opening the store (no migration, no index
 * made, no lock): for a test watching a running server's store fill, or looking at what it left.
 */
export function storeFill(dataDir: string): StoreFill {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0;
    const stale = db.prepare<[string], number>('SELECT count(*) FROM meta WHERE key = ?').pluck().get(BARS_STALE) ?? 0;
    return { trades: count('trades'), bars: count('bars'), barsStale: stale > 0 };
  } finally {
    db.close();
  }
}
