import type { Ingestor } from '../market/ingest';
import { COMMIT_POSITION_META, type CommitBatch } from '../store/ports';
import type { LogHook } from '../../node/log';
import { CommitPublisher } from './bus';

/** Told of each commit message published: the Redis round trip's seconds, and whether it succeeded. */
export type PublishObserver = (seconds: number, ok: boolean) => void;

/**
 * How a writer of a cluster tells the API nodes about its commits:
 * - `commits` (the ingest node): every commit, numbered and stamped in its transaction, with its
 *   trades and reserves (or, when the market's structure changed, a reload);
 * - `reloads` (an importer): reloads only, at most one a second and one at the end: imported trades
 *   are history, not live events, and an import's many batches must not reload every node each time.
 */
export type Announce = 'commits' | 'reloads';

/** Whether a committed batch changed more than trades and reserves: readers reload the market. */
function changesStructure(batch: CommitBatch): boolean {
  return (
    (batch.tokens?.length ?? 0) +
      (batch.pairs?.length ?? 0) +
      (batch.pools?.length ?? 0) +
      (batch.tokenUpdates?.length ?? 0) +
      (batch.logos?.length ?? 0) +
      (batch.identities?.set?.length ?? 0) +
      (batch.identities?.remove?.length ?? 0) >
      0 ||
    batch.removeTradesAfter !== undefined ||
    (batch.refold?.length ?? 0) > 0 ||
    batch.barsStale !== undefined
  );
}

/** The publishing side of a writer, attached to its ingestor before its first commit. */
export interface Announcer {
  /** Tells the API nodes to reload now (after a change that bypasses the commits, such as a bar rebuild). */
  reload(): Promise<void>;
  /** Publishes what is still held back (a `reloads` announcer's last reload) and disconnects. */
  close(): Promise<void>;
}

/**
 * Connects to Redis and attaches to `ingestor` before anything is committed, so no commit goes
 * unannounced; first says "a new writer: reload" (an earlier writer may have died between a commit
 * and its message).
 */
export async function announceCommits(
  ingestor: Ingestor,
  redisUrl: string,
  mode: Announce,
  log?: LogHook,
  observe?: PublishObserver,
): Promise<Announcer> {
  const publisher = await CommitPublisher.connect(redisUrl, log);
  const failed = (error: unknown) =>
    log?.(
      `commit bus: publish failed (${error instanceof Error ? error.message : String(error)}); API nodes will resync`,
      { level: 'warn' },
    );
  /** Publishes message `seq`, timing the round trip to Redis. */
  const publish = (seq: number, message: Parameters<CommitPublisher['publish']>[1]) => {
    const started = performance.now();
    return publisher.publish(seq, message).then(
      () => observe?.((performance.now() - started) / 1000, true),
      (error: unknown) => {
        observe?.((performance.now() - started) / 1000, false);
        failed(error);
      },
    );
  };
  const reload = () => publish(publisher.next(), { records: [], reserves: [], resync: true });
  await reload();
  if (mode === 'commits') {
    ingestor.stampBatches(() => ({ [COMMIT_POSITION_META]: publisher.position(publisher.next()) }));
    ingestor.onBatch((batch) => {
      const seq = Number(/#(\d+)$/.exec(batch.meta?.[COMMIT_POSITION_META] ?? '')?.[1]);
      const resync = changesStructure(batch);
      // A reload gives the nodes the reserves from the store; the trades go to their streams either
      // way (a chain block that creates a pool and trades another is both).
      void publish(seq, {
        records: batch.trades ?? [],
        reserves: resync ? [] : (batch.reserves ?? []),
        resync,
        ...(batch.rollbackTo ? { rollback: batch.rollbackTo } : {}),
      });
    });
    return { reload, close: () => publisher.close() };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let held = false;
  let last = 0;
  ingestor.onBatch(() => {
    if (Date.now() - last >= 1_000) {
      last = Date.now();
      void reload();
      return;
    }
    held = true;
    timer ??= setTimeout(() => {
      timer = undefined;
      held = false;
      last = Date.now();
      void reload();
    }, 1_000);
  });
  return {
    reload,
    close: async () => {
      if (timer !== undefined) clearTimeout(timer);
      if (held) await reload();
      await publisher.close();
    },
  };
}
