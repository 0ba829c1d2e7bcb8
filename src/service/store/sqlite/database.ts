import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pendingMigrations, TRADE_INDEXES } from '../schema';
import { SQLITE } from './dialect';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Directory holding `market.sqlite` (created if missing); ':memory:' for an in-memory database. */
  readonly dataDir: string;
  /**
   * Integrity check of an existing store before anything uses it: `quick` (default) runs SQLite's
   * `PRAGMA quick_check` (every page and index entry; docs/decisions.md gives its cost), `off` skips it.
   */
  readonly check?: 'quick' | 'off';
}

/** A store file that cannot be used as it is: the message names the file and what to do. */
export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(
      `The store ${file} ${problem}. Nothing was changed. Restore the file from a backup, or move it away ` +
        'to create a new market in this data directory (a new market needs an empty or new directory).',
    );
    this.name = 'StoreFileError';
  }
}

/** SQLite's own words for a file that is not a database, or a damaged one. */
function isDamage(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(NOTADB|CORRUPT)/.test(code);
}

/** File name of the database inside the data directory. */
export const DATABASE_FILE = 'market.sqlite';

/**
 * Opens (creating if needed) the store and brings its schema to the latest version.
 * WAL keeps readers off the writer; synchronous=FULL makes every commit durable (see `setBulkMode`).
 */
export function openDatabase({ dataDir, check = 'quick' }: OpenDatabaseOptions): Db {
  let file = ':memory:';
  let existed = false;
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, DATABASE_FILE);
    existed = existsSync(file);
    // An empty file is what a truncated copy or a failed restore leaves: never a new market.
    if (existed && statSync(file).size === 0) throw new StoreFileError(file, 'is empty (0 bytes): it holds no market');
    // A write-ahead log without its database is half of a store (a restore that missed the main file):
    // a new store here would throw away the commits the log holds.
    const wal = `${file}-wal`;
    if (!existed && existsSync(wal) && statSync(wal).size > 0) {
      throw new StoreFileError(
        file,
        `is missing, but its write-ahead log ${basename(wal)} is there: restore ${basename(file)} beside it, or remove both to create a new market`,
      );
    }
  }
  const db = new Database(file);
  try {
    if (existed) checkExisting(db, file, check);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536');
    migrate(db);
    restoreTradeIndexes(db);
    return db;
  } catch (error) {
    db.close();
    if (isDamage(error)) throw new StoreFileError(file, `is damaged (SQLite: ${error.message})`);
    throw error;
  }
}

/** Refuses an existing file that is not one of our stores, or that fails the integrity check. */
function checkExisting(db: Db, file: string, check: 'quick' | 'off'): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
  if (version === 0) {
    throw new StoreFileError(
      file,
      tables === 0
        ? 'is an empty SQLite database: it holds no market'
        : 'is an SQLite database of something else: it holds no market',
    );
  }
  if (check === 'off') return;
  const problems = (db.prepare('PRAGMA quick_check(5)').raw(true).all() as [string][]).map(([line]) => line);
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new StoreFileError(file, `is damaged (SQLite's integrity check: ${problems.join('; ')})`);
  }
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

/** Makes the trades' secondary indexes that are missing (a bulk load cut short dropped them). */
export function restoreTradeIndexes(db: Db): void {
  for (const { name, on } of TRADE_INDEXES) db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${on}`);
}

/**
 * A second connection to a store file for a bulk load's writes (on a thread of its own): what
 * `openDatabase` sets, with `setBulkMode`'s settings; the store is open (and migrated) already.
 */
export function openBulkConnection(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  try {
    // The load checks its trades' pools itself (BulkWriter), without two index look-ups a trade.
    db.pragma('foreign_keys = OFF');
    db.pragma('busy_timeout = 5000');
    setBulkMode(db, true);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Applies every migration of schema.ts newer than the database's `user_version` (the schema's version),
 * each in its own transaction.
 */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const [version, sql] of pendingMigrations(current, SQLITE, 'The data directory')) {
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
