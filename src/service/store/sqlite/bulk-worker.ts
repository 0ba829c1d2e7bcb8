import { parentPort, workerData } from 'node:worker_threads';
import { BarFold } from './bar-fold';
import { openBulkConnection } from './database';
import { BulkWriter, type BulkThreadData, type FromBulkThread, type ToBulkThread } from './bulk-load';
import { SqliteStore } from './store';

/**
 * The thread of a bulk load (bulk.ts): a connection of its own to the store file, writing the
 * batches it is handed in order while the main thread makes the next ones, then the bars. After a
 * batch fails, every later request gets that failure back; nothing more is written.
 */
const port = parentPort;
if (!port) throw new Error('sqlite-bulk-worker runs as a worker thread (see bulk.ts)');
const { file, abandon, barsPerCommit } = workerData as BulkThreadData;
const db = openBulkConnection(file);
const store = new SqliteStore(db);
const writer = new BulkWriter(
  db,
  { apply: (batch) => store.apply(batch), rebuild: (onProgress) => store.rebuildNow(onProgress) },
  barsPerCommit,
);
let failed: FromBulkThread | undefined;

port.on('message', (message: ToBulkThread) => {
  if (message.type === 'close') {
    db.close();
    port.close();
    return;
  }
  if (failed) {
    port.postMessage(failed);
    return;
  }
  // An abandoned load writes none of the batches still queued.
  if (Atomics.load(abandon, 0) === 1) return;
  try {
    if (message.type === 'batch') {
      writer.write(message.rest, message.trades, message.reserves);
      port.postMessage({ type: 'written', trades: message.trades.idLengths.length } satisfies FromBulkThread);
    } else {
      const trades = writer.finish(new BarFold(message.fold), (done, total) =>
        port.postMessage({ type: 'committed', done, total } satisfies FromBulkThread),
      );
      port.postMessage({ type: 'finished', trades } satisfies FromBulkThread);
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    failed = {
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
      ...(typeof code === 'string' ? { code } : {}),
    };
    port.postMessage(failed);
  }
});
