import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LogHook } from '../node/log';
import { announceCommits, type Announce, type Announcer, type PublishObserver } from './cluster/announce';
import { Ingestor } from './market/ingest';
import { buildMarket } from './market/load';
import type { Market } from './market/model';
import { lockDataDir } from './store/lock';
import { DATABASE_FILE, openStore, openWriterStore, shownDatabase } from './store/open';
import type { Store } from './store/ports';

/** The store of a data directory, opened and locked, with its market in memory; no simulation. */
export interface MarketHandle {
  readonly store: Store;
  readonly market: Market;
  readonly ingestor: Ingestor;
  /** Tells a cluster's API nodes to reload from the store (after writes outside the ingestor); nothing elsewhere. */
  reloadReaders(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Fails unless the data directory holds a store: commands that only read or fix one (keys list and
 * revoke, rebuild-bars) must not create an empty store where a typo pointed them.
 */
export function requireStore(dataDir: string): void {
  if (dataDir !== ':memory:' && !existsSync(join(dataDir, DATABASE_FILE))) {
    throw new Error(
      `no store in ${dataDir} (no ${DATABASE_FILE}): check --data-dir or DATA_DIR, or start the server once to create it`,
    );
  }
}

/**
 * Opens a data directory's store for one writer (the server, or a CLI such as an importer); with
 * `existing`, only a store that is already there.
 */
export interface OpenMarketOptions {
  /** Only a store that is already there (commands that read or fix one). */
  readonly existing?: boolean;
  readonly check?: 'quick' | 'off';
  /** A PostgreSQL database (`DATABASE_URL`) instead of the data directory's SQLite file. */
  readonly databaseUrl?: string;
  /** A cluster's Redis (`REDIS_URL`, with `databaseUrl`): the API nodes are told of this writer's commits. */
  readonly redisUrl?: string;
  /** How they are told (see `Announce`); default `commits`. */
  readonly announce?: Announce;
  readonly log?: LogHook;
  /** Told of each commit message the writer publishes (metrics). */
  readonly onPublish?: PublishObserver;
  /** Another writer took the database after this one lost its PostgreSQL session (see `RuntimeHooks.onFatal`). */
  readonly onLockTaken?: (line: string) => void;
}

/**
 * Opens a data directory's store (or the PostgreSQL database of `databaseUrl`) for one writer (the
 * server, or a CLI such as an importer); with `existing`, only a store that is already there.
 */
export async function openMarket(
  dataDir: string,
  purpose: string,
  options: OpenMarketOptions = {},
): Promise<MarketHandle> {
  if (options.databaseUrl !== undefined) return openPostgresMarket(options.databaseUrl, purpose, options);
  // A missing directory is reported before the lock would create it; a held one reports its holder.
  if (options.existing && !existsSync(dataDir)) requireStore(dataDir);
  const release = lockDataDir(dataDir, purpose);
  let store: Store | undefined;
  try {
    if (options.existing) requireStore(dataDir);
    store = openStore(dataDir, options.check ? { check: options.check } : {});
    const market = buildMarket(await store.market.load());
    const ingestor = await Ingestor.open(store, market);
    // A backfill cut short (a crash before its bar pass) left trades without bars: rebuild them first.
    if (await store.bars.stale()) await store.bars.rebuild();
    const opened = store;
    let closed = false;
    return {
      store: opened,
      market,
      ingestor,
      reloadReaders: () => Promise.resolve(),
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await opened.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    await store?.close();
    release();
    throw error;
  }
}

/**
 * The market of a PostgreSQL database (`DATABASE_URL`), for its single writer: refused while another
 * writer holds the database; with `redisUrl`, every commit from here on is announced to the API nodes.
 */
async function openPostgresMarket(
  databaseUrl: string,
  purpose: string,
  options: OpenMarketOptions,
): Promise<MarketHandle> {
  const line = (text: string) => {
    options.log?.(text, { level: 'error' });
    options.onLockTaken?.(text);
  };
  const store = await openWriterStore(databaseUrl, purpose, {
    ...(options.log ? { log: options.log } : {}),
    onTaken: (why) => line(`${purpose}: ${why}`),
  });
  let announcer: Announcer | undefined;
  try {
    const market = buildMarket(await store.market.load());
    if (options.existing && market.tokens.size === 0 && (await store.market.meta('source')) === undefined) {
      throw new Error(
        `no market in ${shownDatabase(databaseUrl)}: check DATABASE_URL, or start the server once to create it`,
      );
    }
    const ingestor = await Ingestor.open(store, market);
    if (await store.bars.stale()) await store.bars.rebuild();
    // Attached before the first commit (a backfill, a catch-up, an import): none goes unannounced.
    if (options.redisUrl !== undefined)
      announcer = await announceCommits(
        ingestor,
        options.redisUrl,
        options.announce ?? 'commits',
        options.log,
        options.onPublish,
      );
    let closed = false;
    return {
      store,
      market,
      ingestor,
      reloadReaders: async () => {
        await announcer?.reload();
      },
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await announcer?.close();
        } finally {
          await store.close();
        }
      },
    };
  } catch (error) {
    await announcer?.close();
    await store.close();
    throw error;
  }
}
