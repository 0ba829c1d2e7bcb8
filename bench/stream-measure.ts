import type { CommitListener, Ingestor } from '../src/service/market/ingest';
import type { Market } from '../src/service/market/model';
import type { TradeRecord } from '../src/service/store/ports';
import { eventKey, sharedNow, type ClientSpec, type FromClients } from './stream-protocol';

export interface Commit {
  /** Shared-clock time at which the commit's transaction was done, before any other listener ran. */
  readonly t: number;
  readonly records: readonly TradeRecord[];
  /**
   * When the server's event loop was free again after the commit (a setImmediate scheduled by the
   * last commit listener): every connection's bytes for this commit handed to the kernel.
   */
  serverDone?: number;
}

/**
 * Stamps every commit with the shared clock, as the first of the ingest path's commit listeners, and
 * notes when the server has finished with it. Returns the function that removes both listeners.
 */
export function stampCommits(ingestor: Ingestor, onCommit: (commit: Commit) => void): () => void {
  let last: Commit | undefined;
  const first: CommitListener = (records) => {
    last = { t: sharedNow(), records };
    onCommit(last);
  };
  const removeFirst = ingestor.onCommit(first);
  // The runtime registered the history cache and the stream hub before us: move our stamp in front, so
  // it reads the time the transaction ended, not the time after the hub has fanned the events out.
  const listeners = (ingestor as unknown as { listeners?: unknown }).listeners;
  if (!(listeners instanceof Set))
    throw new Error('Ingestor no longer keeps its commit listeners in a Set: update stampCommits');
  const others = [...(listeners as Set<CommitListener>)].filter((l) => l !== first);
  listeners.clear();
  for (const l of [first, ...others]) listeners.add(l);
  const removeLast = ingestor.onCommit(() => {
    const commit = last;
    last = undefined;
    if (commit) setImmediate(() => (commit.serverDone = sharedNow()));
  });
  return () => {
    removeFirst();
    removeLast();
  };
}

export interface Analysis {
  /** Committed events that at least one client follows. */
  readonly events: number;
  /** (event, client following its pool) pairs: what should have been delivered. */
  readonly expected: number;
  readonly deliveries: number;
  readonly lost: number;
  /** Shared keys, duplicates, deliveries of unknown events or of pools the client does not follow, stream problems. */
  readonly anomalies: readonly string[];
  /** Receive time minus commit time of every delivery, ms, sorted. */
  readonly latencies: Float64Array;
  /** Server time per block from the commit until its event loop was free again, ms, sorted. */
  readonly serverMs: Float64Array;
}

/** Matches what the clients received with what was committed: latency of every delivery, and losses. */
export function analyse(
  commits: readonly Commit[],
  collected: Extract<FromClients, { type: 'collected' }>,
  specs: readonly ClientSpec[],
  market: Market,
): Analysis {
  const stamps = new Map<string, { t: number; pool: string }>();
  let sameKey = 0;
  for (const commit of commits) {
    for (const record of commit.records) {
      const pool = market.poolsById.get(record.agg)?.poolId;
      if (pool === undefined) continue;
      const key = eventKey(pool, record.blockTime, record.aggPrevPrice, record.aggPrice);
      if (stamps.has(key)) sameKey++;
      stamps.set(key, { t: commit.t, pool });
    }
  }
  const followers = new Map<string, Set<number>>();
  specs.forEach((spec, i) => {
    for (const pool of spec.pools) {
      let set = followers.get(pool);
      if (!set) followers.set(pool, (set = new Set()));
      set.add(i);
    }
  });
  let events = 0;
  let expected = 0;
  for (const { pool } of stamps.values()) {
    const n = followers.get(pool)?.size ?? 0;
    if (n > 0) events++;
    expected += n;
  }

  const latencies = new Float64Array(collected.time.length);
  let count = 0;
  let unknown = 0;
  let wrongPool = 0;
  let duplicates = 0;
  const seen = new Set<number>();
  const keyCount = collected.keys.length;
  for (let i = 0; i < collected.time.length; i++) {
    const client = collected.client[i] ?? -1;
    const k = collected.keyIndex[i] ?? -1;
    const stamp = stamps.get(collected.keys[k] ?? '');
    if (!stamp) {
      unknown++;
      continue;
    }
    if (!followers.get(stamp.pool)?.has(client)) {
      wrongPool++;
      continue;
    }
    const id = client * keyCount + k;
    if (seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    latencies[count++] = (collected.time[i] ?? 0) - stamp.t;
  }
  const anomalies = [
    ...(sameKey > 0 ? [`${sameKey} events share a key`] : []),
    ...(unknown > 0 ? [`${unknown} deliveries of events not committed in the window`] : []),
    ...(wrongPool > 0 ? [`${wrongPool} deliveries of pools the client does not follow`] : []),
    ...(duplicates > 0 ? [`${duplicates} duplicate deliveries`] : []),
    ...collected.problems,
  ];
  return {
    events,
    expected,
    deliveries: count,
    lost: expected - count,
    anomalies,
    latencies: latencies.slice(0, count).sort(),
    serverMs: Float64Array.from(commits, (c) => (c.serverDone ?? c.t) - c.t).sort(),
  };
}

/** Nearest-rank percentile (the rule of measure.ts's percentile()) of sorted values. */
export function sortedPercentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
