import { redactedError, redactUrl } from '../../shared/redact';
import type { Store } from './ports';
import { PostgresStore } from './postgres/store';
import type { WriterLockOptions } from './postgres/writer-lock';
import { DATABASE_FILE } from './sqlite/database';
import { openSqliteStore } from './sqlite/store';

/** File of the SQLite store in a data directory. */
export { DATABASE_FILE };

/**
 * Opens (creating and migrating if needed) the store of a data directory: the one place that picks an
 * implementation, so nothing outside this folder knows which engine holds the data.
 */
export function openStore(dataDir: string, options: { readonly check?: 'quick' | 'off' } = {}): Store {
  return openSqliteStore(dataDir, options);
}

/** The database a `DATABASE_URL` names, as messages show it: which setting, and nothing able to carry a secret (`redactUrl`). */
export function shownDatabase(url: string): string {
  return `DATABASE_URL's database (${redactUrl(url)})`;
}

export type { WriterLockOptions };

/**
 * Opens the store of a PostgreSQL database (`DATABASE_URL`) for the single writer: refused, with a
 * clear message, while another writer holds it (an advisory lock held for the writer's lifetime).
 * Should the writer's session drop, its commits are refused until it has the lock again; if another
 * writer took it meanwhile, `options.onTaken` says so and this store never commits again.
 */
export async function openWriterStore(
  databaseUrl: string,
  purpose: string,
  options: WriterLockOptions = {},
): Promise<Store> {
  const store = await openPostgres(databaseUrl);
  try {
    if (
      !(await store.lockWriter(options).catch((error: unknown) => Promise.reject(redactedError(error, [databaseUrl]))))
    ) {
      throw new Error(
        `${shownDatabase(databaseUrl)} is in use by another writer (an ingest node, a server or an importer). Stop it first; ${purpose} needs to be the only writer.`,
      );
    }
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Opens a PostgreSQL store for reading (an API node of a cluster): no writer lock, no writes but keys. */
export async function openReaderStore(databaseUrl: string): Promise<Store> {
  return openPostgres(databaseUrl);
}

/** `PostgresStore.open`, its failures (which may name the database, user or host) with the address's parts removed. */
async function openPostgres(databaseUrl: string): Promise<PostgresStore> {
  try {
    return await PostgresStore.open(databaseUrl);
  } catch (error) {
    throw redactedError(error, [databaseUrl]);
  }
}
