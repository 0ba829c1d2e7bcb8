import pg from 'pg';

/**
 * Fault injection at the PostgreSQL engine for the cluster tests: a table lock that makes another
 * session's statement wait inside its transaction (a writer mid-commit, a reader mid-load), so a
 * test can act while it waits and then let it go. The one place those tests write SQL.
 */
export interface TableHold {
  /** Sessions other than ours waiting for a lock right now (the statement held up), with their pid. */
  waiting(): Promise<number[]>;
  /** Whether a session still holds the single writer's advisory lock. */
  writerLockHeld(): Promise<boolean>;
  /** Ends the hold: the waiting statements go on. */
  release(): Promise<void>;
  /** Releases and disconnects. */
  close(): Promise<void>;
}

/** Takes `table` in ACCESS EXCLUSIVE mode (every other statement on it waits) until `release`. */
export async function holdTable(url: string, table: 'sim_state' | 'pairs' | 'pools' | 'meta'): Promise<TableHold> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  let released = false;
  return {
    waiting: async () => {
      const { rows } = await client.query(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND datname = current_database()",
      );
      return rows.map((r: { pid: number }) => r.pid);
    },
    writerLockHeld: async () =>
      (await client.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 727002 AND granted"))
        .rowCount === 1,
    release: async () => {
      if (released) return;
      released = true;
      await client.query('ROLLBACK').catch(() => undefined);
    },
    close: async () => {
      if (!released) await client.query('ROLLBACK').catch(() => undefined);
      released = true;
      await client.end().catch(() => undefined);
    },
  };
}
