import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Lock file of a data directory: one process writes a store at a time. */
export const LOCK_FILE = 'store.lock';

/** Who holds the lock (informational: written by the holder once it has the lock). */
export const LOCK_HOLDER_FILE = 'store.lock.holder';

/** Lock files this process holds, with their purpose. */
const heldHere = new Map<string, string>();

/** Whether a process of this PID is running (the holder file may be a dead holder's, read before the new one wrote its own). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

function inUse(dataDir: string, holder: { pid?: number; purpose?: string } | undefined, cause?: unknown): Error {
  const who =
    holder?.pid === undefined || !running(holder.pid)
      ? 'another process'
      : `process ${holder.pid} (${holder.purpose ?? 'unknown'})`;
  return new Error(
    `${dataDir} is in use by ${who}. Stop it first, or use another --data-dir.`,
    cause === undefined ? {} : { cause },
  );
}

function readHolder(file: string): { pid?: number; purpose?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { pid?: number; purpose?: string };
  } catch {
    return undefined;
  }
}

/**
 * Takes the data directory's lock for this process and returns its release function; throws a clear
 * error naming the holder when another process (or this one) has it.
 *
 * The lock is an exclusive SQLite lock on `store.lock` (an fcntl lock underneath): the operating system
 * holds it for as long as this process keeps the file open and drops it the moment the process ends,
 * however it ends (kill -9 included). Taking it is one atomic step, so two starters can never both pass,
 * and nothing is ever judged stale by a PID that may have been reused.
 */
export function lockDataDir(dataDir: string, purpose: string): () => void {
  if (dataDir === ':memory:') return () => {};
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const holderFile = join(dataDir, LOCK_HOLDER_FILE);
  const key = resolve(file);
  const here = heldHere.get(key);
  if (here !== undefined) throw inUse(dataDir, { pid: process.pid, purpose: here });

  let lock: Database.Database;
  try {
    // Two starters reaching for the lock at once both pass through a shared lock; a short wait lets the
    // loser back off and the winner finish, instead of both giving up.
    lock = new Database(file, { timeout: 250 });
  } catch (error) {
    throw new Error(`cannot open the lock file ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    // An exclusive transaction that is never committed: it holds the file's exclusive lock until this
    // connection closes (release) or the process ends. It writes nothing, so no journal is ever left.
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw inUse(dataDir, readHolder(holderFile), error);
    throw new Error(`cannot lock ${dataDir} (${file}): ${(error as Error).message}`, { cause: error });
  }
  heldHere.set(key, purpose);
  try {
    writeFileSync(holderFile, JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() }));
  } catch {
    // Only informational: the lock itself is held.
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    heldHere.delete(key);
    rmSync(holderFile, { force: true });
    lock.close();
  };
}
