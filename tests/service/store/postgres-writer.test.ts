import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openWriterStore } from '../../../src/service/store/open';
import { PostgresStore } from '../../../src/service/store/postgres/store';
import type { Store } from '../../../src/service/store/ports';
import { startPostgres, type TestPostgres } from '../../support/engines';

/**
 * The single writer's lock on a real PostgreSQL 15 that stops and starts again: the writer survives
 * (no uncaught error from its idle lock session), refuses to commit while the lock is not held, takes
 * it back, and gives up clearly if another writer took it meanwhile. And the schema's version rule.
 */
let server: TestPostgres;
let count = 0;
const stores: Store[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
  await server?.destroy();
});

async function writer(url: string, options: Parameters<typeof openWriterStore>[2] = {}): Promise<Store> {
  const store = await openWriterStore(url, 'a test writer', options);
  stores.push(store);
  return store;
}

const commit = (store: Store) => store.commit({ meta: { test: String(count++) } });

describe('the writer lock across a PostgreSQL restart', () => {
  it('survives the stop, refuses commits until it holds the lock again, then commits; a second writer is still refused', async () => {
    const url = await server.createDatabase('writer_restart');
    const logs: string[] = [];
    const first = await writer(url, { retryMs: 50, log: (line) => logs.push(line) });
    await commit(first);
    await server.stop();
    await expect(commit(first)).rejects.toThrow();
    await vi.waitUntil(() => logs.some((line) => line.includes('lost its PostgreSQL session')), {
      timeout: 5_000,
      interval: 20,
    });
    await expect(commit(first)).rejects.toThrow(/not committing until the lock is taken again/);
    await server.start();
    await vi.waitUntil(
      () =>
        commit(first).then(
          () => true,
          () => false,
        ),
      { timeout: 20_000, interval: 100 },
    );
    expect(logs.some((line) => line.includes('the writer lock is held again'))).toBe(true);
    await expect(openWriterStore(url, 'a second writer')).rejects.toThrow(/is in use by another writer/);
  }, 60_000);

  it('stops committing, and says so, when another writer took the lock while it was disconnected', async () => {
    const url = await server.createDatabase('writer_taken');
    const taken: string[] = [];
    // Its first try to take the lock back comes 5 s after the drop: the second writer is quicker.
    const first = await writer(url, { retryMs: 5_000, onTaken: (line) => taken.push(line) });
    await server.stop();
    await server.start();
    const second = await writer(url);
    await commit(second);
    await vi.waitUntil(() => taken.length > 0, { timeout: 20_000, interval: 100 });
    expect(taken[0]).toMatch(/another writer took the database/);
    await expect(commit(first)).rejects.toThrow(/another writer took the database/);
    await commit(second);
  }, 60_000);
});

describe('the schema version', () => {
  it('refuses a database written by a newer version, clearly, and leaves it untouched', async () => {
    const url = await server.createDatabase('schema_newer');
    const store = await PostgresStore.open(url);
    await store.close();
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT version FROM schema_version');
    const current = Number(rows[0]?.version);
    expect(current).toBeGreaterThan(0);
    await client.query('UPDATE schema_version SET version = $1', [current + 1]);
    await expect(PostgresStore.open(url)).rejects.toThrow(
      `The database was written by a newer version (schema ${current + 1}, this build knows ${current}).`,
    );
    expect(Number((await client.query('SELECT version FROM schema_version')).rows[0]?.version)).toBe(current + 1);
    await client.end();
  });

  it('migrates a new database once, whoever opens it first when two open it together', async () => {
    const url = await server.createDatabase('schema_race');
    const [a, b] = await Promise.all([PostgresStore.open(url), PostgresStore.open(url)]);
    expect(await a.market.load()).toEqual({ tokens: [], pairs: [], pools: [] });
    await Promise.all([a.close(), b.close()]);
  });
});
