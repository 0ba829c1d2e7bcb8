import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Lock file of a data directory: one process writes a store at a time. */
export const LOCK_FILE = 'store.lock';

/** Lock files this process holds, with their purpose. */
const heldHere = new Map<string, string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory's lock for this process (a stale lock of a dead process is taken over).
 * Throws a clear error when another live process holds it. Returns the release function.
 */
export function lockDataDir(dataDir: string, purpose: string): () => void {
  if (dataDir === ':memory:') return () => {};
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  // A lock file naming this process is stale (a PID reused after a restart, as in containers) unless
  // this process holds it right now: that is told apart here.
  const key = resolve(file);
  const holder = heldHere.get(key);
  if (holder !== undefined) {
    throw new Error(`${dataDir} is in use by process ${process.pid} (${holder}). Stop it first, or use another --data-dir.`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, purpose, since: new Date().toISOString() }));
      closeSync(fd);
      heldHere.set(key, purpose);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(key);
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder: { pid?: number; purpose?: string } = {};
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as typeof holder;
      } catch {
        // An unreadable lock is treated as stale.
      }
      if (holder.pid !== undefined && holder.pid !== process.pid && alive(holder.pid)) {
        throw new Error(
          `${dataDir} is in use by process ${holder.pid} (${holder.purpose ?? 'unknown'}). Stop it first, or use another --data-dir.`,
          { cause: error },
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
