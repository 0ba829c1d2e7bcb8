import { join } from 'node:path';
import { DATABASE_FILE } from './database';
import type { Store } from './ports';
import { openSqliteStore } from './sqlite-store';

/** File of the SQLite store in a data directory. */
export { DATABASE_FILE };

/** Path of a data directory's store file. */
export function storeFile(dataDir: string): string {
  return join(dataDir, DATABASE_FILE);
}

/**
 * Opens (creating and migrating if needed) the store of a data directory: the one place that picks an
 * implementation, so nothing outside this folder knows which engine holds the data.
 */
export function openStore(dataDir: string, options: { readonly check?: 'quick' | 'off' } = {}): Store {
  return openSqliteStore(dataDir, options);
}
