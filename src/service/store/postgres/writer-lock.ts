import pg from 'pg';

/** Key of the single writer's session advisory lock. */
const WRITER_LOCK_KEY = 727002;

export interface WriterLockOptions {
  /** Another writer holds the lock after this one lost its session: this one must stop writing. */
  readonly onTaken?: (message: string) => void;
  readonly log?: (line: string, fields?: { readonly level?: 'info' | 'warn' }) => void;
  /** First delay between attempts to take the lock back (doubling up to 5 s); default 250 ms. */
  readonly retryMs?: number;
}

/** The commit refused because the writer's lock is not held (see `PostgresStore.lockWriter`). */
export class WriterLockLost extends Error {
  override readonly name = 'WriterLockLost';
  readonly code = 'WRITER_LOCK_LOST';
}

/**
 * The single writer's PostgreSQL session holding the advisory lock. A session lock lives exactly as
 * long as its connection, so losing the connection loses the lock: the writer then refuses to commit
 * until it has taken the lock again on a new session, and gives up (onTaken) if another writer has it.
 * The writer's transactions run on this session (engine.ts).
 */
export class WriterLock {
  private client: pg.Client | undefined;
  private state: 'held' | 'lost' | 'taken' | 'closed' = 'lost';
  private retry: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;

  constructor(
    private readonly url: string,
    private readonly options: WriterLockOptions,
  ) {}

  /** Connects a session and tries the lock once; true when held. A connection failure is thrown. */
  async acquire(): Promise<boolean> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 3_000,
      query_timeout: 60_000,
      keepAlive: true,
    });
    // Until it is ours, a failing session is only a failed attempt; once ours, its loss is the lock's.
    client.on('error', (error: Error) => this.dropped(client, error.message));
    client.on('end', () => this.dropped(client, 'the connection ended'));
    try {
      await client.connect();
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK_KEY]);
      if (rows[0]?.ok !== true || this.state === 'closed') {
        await client.end().catch(() => undefined);
        return false;
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    this.state = 'held';
    this.attempt = 0;
    return true;
  }

  /** The session to commit on; throws WriterLockLost while the lock is not held. */
  session(): pg.Client {
    if (this.state === 'held' && this.client) return this.client;
    throw new WriterLockLost(
      this.state === 'taken'
        ? 'another writer took the database while this one was disconnected: this writer no longer commits'
        : 'the writer lost its PostgreSQL session (and with it the writer lock): not committing until the lock is taken again',
    );
  }

  private dropped(client: pg.Client, why: string): void {
    if (client !== this.client || this.state !== 'held') return;
    this.client = undefined;
    this.state = 'lost';
    this.options.log?.(
      `store: the writer lost its PostgreSQL session (${why}): commits are refused until the writer lock is taken again`,
      { level: 'warn' },
    );
    this.schedule();
  }

  private schedule(): void {
    if (this.state !== 'lost' || this.retry !== undefined) return;
    const delay = Math.min(5_000, (this.options.retryMs ?? 250) * 2 ** Math.min(this.attempt, 5));
    this.attempt++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reacquire();
    }, delay);
    this.retry.unref?.();
  }

  private async reacquire(): Promise<void> {
    if (this.state !== 'lost') return;
    let held: boolean;
    try {
      held = await this.acquire();
    } catch {
      // PostgreSQL is still away: try again later.
      this.schedule();
      return;
    }
    if (held) {
      this.options.log?.('store: the writer lock is held again; committing resumes');
      return;
    }
    if (this.state !== 'lost') return;
    this.state = 'taken';
    this.options.onTaken?.(
      'another writer took the database while this writer was disconnected from PostgreSQL: this writer stops (its later commits are refused)',
    );
  }

  async release(): Promise<void> {
    const client = this.client;
    this.state = 'closed';
    this.client = undefined;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    if (!client) return;
    await client.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
