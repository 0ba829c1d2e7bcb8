import type pg from 'pg';
import { pendingMigrations, POSTGRES_VERSIONS_BEFORE_ONE_NUMBERING } from '../schema';
import { POSTGRES } from './dialect';

/** Key of the advisory lock one migrator holds at a time (two nodes starting together). */
const MIGRATOR_LOCK_KEY = 727001;

/**
 * Brings a PostgreSQL store's schema to this build's version: the migrations of schema.ts newer than
 * the version in `schema_version`, each in its own transaction, one migrator at a time.
 *
 * `schema_version.one_numbering` tells the numbering its version is in: false (the column's default)
 * for a store migrated before the numbering was one for both engines, whose version is mapped once
 * (`POSTGRES_VERSIONS_BEFORE_ONE_NUMBERING`) in the same transaction as the first step after it, or
 * alone when none is due. A build from before that change reads the mapped version as newer than it
 * knows and refuses the database with that message.
 */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATOR_LOCK_KEY})`);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    await client.query(
      'ALTER TABLE schema_version ADD COLUMN IF NOT EXISTS one_numbering BOOLEAN NOT NULL DEFAULT false',
    );
    const { rows } = await client.query('SELECT version, one_numbering FROM schema_version');
    const row = rows[0] as { version: number; one_numbering: boolean } | undefined;
    let version = row === undefined ? 0 : Number(row.version);
    const renumber = row !== undefined && !row.one_numbering;
    if (renumber) {
      const mapped = POSTGRES_VERSIONS_BEFORE_ONE_NUMBERING[version];
      if (mapped === undefined)
        throw new Error(
          `The database was written by a newer version (schema ${version} of PostgreSQL's former numbering, this build knows ${POSTGRES_VERSIONS_BEFORE_ONE_NUMBERING.length - 1}).`,
        );
      version = mapped;
    }
    const steps = pendingMigrations(version, POSTGRES, 'The database');
    if (renumber && steps.length === 0) steps.push([version, '']);
    for (const [next, sql] of steps) {
      await client.query('BEGIN');
      if (sql) await client.query(sql);
      await client.query('DELETE FROM schema_version');
      await client.query('INSERT INTO schema_version (version, one_numbering) VALUES ($1, true)', [next]);
      await client.query('COMMIT');
    }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${MIGRATOR_LOCK_KEY})`).catch(() => undefined);
    client.release();
  }
}
