import { Worker } from 'node:worker_threads';
import type { BulkLoad, CommitBatch } from '../ports';
import { TRADE_INDEXES } from '../schema';
import { BARS_STALE } from '../statements';
import { BarFold } from './bar-fold';
import type { Db } from './database';
import {
  BAR_ROWS_PER_COMMIT,
  BulkWriter,
  bulkRest,
  foldTrades,
  packReserves,
  packTrades,
  type BulkTarget,
  type BulkThreadData,
  type FromBulkThread,
  type ToBulkThread,
} from './bulk-load';

/**
 * SQLite's bulk load (see `Store.bulkLoad`): the first backfill's batches are written by a thread of
 * their own, on a second connection to the store file, while the main thread makes the next ones and
 * folds their bars; the fold is handed to the thread at the end, which stores every bar
 * (bulk-load.ts).
 * An in-memory store has no file to share: its load is written on its own connection, at once.
 */

/**
 * Trades handed to the thread and not yet written, past which `commit` waits: the main thread makes
 * batches about as fast as the thread writes them, and this bounds the memory they take meanwhile
 * (about 10 MB packed) while the thread starts.
 */
const MAX_QUEUED_TRADES = 100_000;

/**
 * Starts a bulk load of a store without trades or bars: marks the bars stale and drops the trades'
 * secondary indexes (both undone at the end, or by the next open if the load is cut short).
 * Undefined when the store holds trades or bars already.
 */
export function startSqliteBulkLoad(
  db: Db,
  target: BulkTarget,
  barsPerCommit = BAR_ROWS_PER_COMMIT,
): BulkLoad | undefined {
  const { n } = db
    .prepare<[], { n: number }>('SELECT EXISTS (SELECT 1 FROM trades) + EXISTS (SELECT 1 FROM bars) AS n')
    .get() ?? { n: 1 };
  if (n > 0) return undefined;
  db.transaction(() => {
    for (const { name } of TRADE_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(BARS_STALE, '1');
  })();
  if (db.memory) return new InlineBulkLoad(new BulkWriter(db, target, barsPerCommit));
  return new ThreadBulkLoad({ file: db.name, barsPerCommit }, () => {
    // Not needed for the load to be right: the copy left over is done when bulk mode ends.
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Left to that final copy.
    }
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A bulk load on the store's own connection: each call writes at once. */
class InlineBulkLoad implements BulkLoad {
  private readonly fold = new BarFold();

  constructor(private readonly writer: BulkWriter) {}

  commit(batch: CommitBatch): Promise<void> {
    try {
      this.writer.write(bulkRest(batch), packTrades(batch.trades ?? []), packReserves(batch.reserves));
      foldTrades(this.fold, batch.trades ?? []);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  finish(onProgress?: (done: number, total: number) => void): Promise<number> {
    try {
      return Promise.resolve(this.writer.finish(this.fold, onProgress));
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Starts the bulk load's thread: the built file beside the server's bundle, or from source (tsx,
 * vitest, Vite's dev server) the TypeScript file through tsx, whose loader the thread registers first.
 */
function startBulkThread(data: BulkThreadData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./sqlite-bulk-worker.js', here), { workerData: data });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./bulk-worker.ts', here).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData: data });
}

/** A bulk load written by a thread of its own (see the top of this file). */
class ThreadBulkLoad implements BulkLoad {
  private readonly worker: Worker;
  private readonly abandon = new Int32Array(new SharedArrayBuffer(4));
  private readonly fold = new BarFold();
  private readonly exited: Promise<void>;
  private failure: Error | undefined;
  private queued = 0;
  private waiting: (() => void)[] = [];
  private finishing:
    | {
        resolve: (trades: number) => void;
        reject: (error: Error) => void;
        onProgress?: (done: number, total: number) => void;
      }
    | undefined;
  private closing = false;

  /**
   * `checkpoint` copies what the log holds of committed transactions into the store file, on the
   * store's own connection, without waiting for the thread: called on each of `finish`'s commits, it
   * does most of that copy while the thread writes the next bars, on the other core.
   */
  constructor(
    data: Omit<BulkThreadData, 'abandon'>,
    private readonly checkpoint: () => void,
  ) {
    this.worker = startBulkThread({ ...data, abandon: this.abandon });
    this.worker.on('message', (message: FromBulkThread) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.closing) this.fail(new Error(`the bulk load's thread stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  async commit(batch: CommitBatch): Promise<void> {
    if (this.failure) throw this.failure;
    const rest = bulkRest(batch);
    const trades = packTrades(batch.trades ?? []);
    const reserves = packReserves(batch.reserves);
    this.queued += trades.idLengths.length;
    this.post({ type: 'batch', rest, trades, reserves }, [
      trades.idLengths.buffer,
      trades.numbers.buffer,
      reserves.buffer,
    ]);
    // Folded here while the thread writes them: the two cores share the work.
    foldTrades(this.fold, batch.trades ?? []);
    while (this.queued > MAX_QUEUED_TRADES && !this.failure)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure) throw this.failure;
  }

  finish(onProgress?: (done: number, total: number) => void): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.finishing = { resolve, reject, ...(onProgress ? { onProgress } : {}) };
      const { state, buffers } = this.fold.handOver();
      this.post({ type: 'finish', fold: state }, buffers);
    });
  }

  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      Atomics.store(this.abandon, 0, 1);
      this.post({ type: 'close' });
    }
    await this.exited;
  }

  private post(message: ToBulkThread, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  private receive(message: FromBulkThread): void {
    switch (message.type) {
      case 'written':
        this.queued -= message.trades;
        this.wake();
        return;
      case 'committed':
        this.checkpoint();
        this.finishing?.onProgress?.(message.done, message.total);
        return;
      case 'finished':
        this.finishing?.resolve(message.trades);
        this.finishing = undefined;
        return;
      case 'failed':
        this.fail(Object.assign(new Error(message.message), message.code !== undefined ? { code: message.code } : {}));
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
    this.finishing?.reject(this.failure);
    this.finishing = undefined;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
