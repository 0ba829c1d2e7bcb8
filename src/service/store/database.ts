import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Directory holding `market.sqlite` (created if missing); ':memory:' for an in-memory database. */
  readonly dataDir: string;
}

/** File name of the database inside the data directory. */
export const DATABASE_FILE = 'market.sqlite';

/**
 * Opens (creating if needed) the store and brings its schema to the latest version.
 * WAL keeps readers off the writer; synchronous=FULL makes every commit durable (see `setBulkMode`).
 */
export function openDatabase({ dataDir }: OpenDatabaseOptions): Db {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, DATABASE_FILE);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  migrate(db);
  return db;
}

/**
 * During a backfill, commits need not reach the disk one by one: a crash mid-backfill loses at most the
 * last few chunks, which are regenerated deterministically on the next start. Live commits are FULL.
 */
export function setBulkMode(db: Db, bulk: boolean): void {
  db.pragma(`synchronous = ${bulk ? 'NORMAL' : 'FULL'}`);
  // A bigger page cache while the bars table grows by millions of rows; back to normal afterwards.
  db.pragma(`cache_size = ${bulk ? -262_144 : -65_536}`);
  db.pragma(`wal_autocheckpoint = ${bulk ? 0 : 1000}`);
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The data directory was written by a newer version (schema ${current}, this build knows ${MIGRATIONS.length}).`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version];
    if (step === undefined) continue;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
