import { statSync } from 'node:fs';
import { Counter, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, METRIC_PREFIX as P, scrapedCounter, scrapedGauge } from '../node/metrics';
import type { Refusals } from './auth/rate-limit';
import type { ChainFollower, ChainState } from './chain/follower';
import type { SharedLimits } from './cluster/shared-limits';
import type { HistoryCache } from './http/history-cache';
import type { Ingestor } from './market/ingest';
import type { Simulator } from './market/simulator';
import type { StreamHub } from './stream/hub';

/**
 * The data service's Prometheus metrics (docs/operations.md lists each). Totals that the service keeps
 * anyway (the hub's, the cache's, the chain follower's `status()`) are read when Prometheus scrapes;
 * durations are observed as they happen. Nothing here is labelled by a value a client chooses.
 */

/** Trades in one store commit: a live block has a few, a backfill day or a chain catch-up batch thousands. */
const COMMIT_TRADE_BUCKETS = [0, 1, 5, 10, 50, 100, 500, 1_000, 5_000, 20_000, 100_000];
/** Blocks one rollback undid: Cardano's are mostly 1-2 deep; k (2,160) is the most any can be. */
const ROLLBACK_BUCKETS = [1, 2, 3, 5, 10, 20, 50, 100, 500, 2_160];
const CHAIN_STATES: readonly ChainState[] = ['connecting', 'syncing', 'live', 'reconnecting', 'stopped'];

export class ServiceMetrics {
  private readonly commitSeconds: Histogram<'result'>;
  private readonly commitTrades: Histogram;

  constructor(private readonly registry: Registry) {
    this.commitSeconds = new Histogram({
      name: `${P}store_commit_duration_seconds`,
      help: 'Time of one store commit (one transaction), by result (ok, failed).',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.commitTrades = new Histogram({
      name: `${P}store_commit_trades`,
      help: 'Trades written by one successful store commit.',
      buckets: COMMIT_TRADE_BUCKETS,
      registers: [registry],
    });
  }

  /** The commits of the one write path (a writer: the simulator, the chain, the market's creation). */
  commits(ingestor: Ingestor): void {
    ingestor.observeCommits((seconds, trades, ok) => {
      this.commitSeconds.observe({ result: ok ? 'ok' : 'failed' }, seconds);
      if (ok) this.commitTrades.observe(trades);
    });
  }

  /** What every node serving the API has: streams, the /history cache, rate-limit refusals. */
  serving(parts: { readonly hub: StreamHub; readonly history: HistoryCache; readonly refusals: Refusals }): void {
    const { hub, history, refusals } = parts;
    const r = this.registry;
    scrapedGauge(r, `${P}stream_connections`, 'Open /api/v1/tokens/stream connections.', [], () => hub.connectionCount);
    scrapedCounter(
      r,
      `${P}stream_events_delivered_total`,
      'Trade events handed to stream connections (one per event and connection).',
      [],
      () => hub.delivered,
    );
    scrapedCounter(
      r,
      `${P}stream_events_dropped_total`,
      'Trade events a stream connection could not take: it was dropped for not reading.',
      [],
      () => hub.dropped,
    );
    scrapedCounter(
      r,
      `${P}stream_slow_consumers_dropped_total`,
      'Stream connections dropped for leaving too many bytes unread.',
      [],
      () => hub.slowConsumers,
    );
    scrapedCounter(
      r,
      `${P}history_cache_lookups_total`,
      '/history chunk lookups (1,440 buckets of one series and resolution): hit (cached) or miss (read from the store).',
      ['result'],
      () => [
        [{ result: 'hit' }, history.hits],
        [{ result: 'miss' }, history.misses],
      ],
    );
    scrapedGauge(r, `${P}history_cache_bytes`, 'Bytes held by the /history chunk cache.', [], () => history.bytes);
    scrapedCounter(
      r,
      `${P}rate_limit_refusals_total`,
      "Requests refused (429) for being over their key's plan, by plan.",
      ['plan'],
      () => [...refusals.entries()].map(([plan, n]) => [{ plan }, n] as const),
    );
  }

  /** The embedded simulator's progress. */
  simulator(simulator: Simulator): void {
    scrapedGauge(
      this.registry,
      `${P}simulator_block_height`,
      "Height of the simulated market's last block.",
      [],
      () => simulator.blockHeight,
    );
    scrapedGauge(
      this.registry,
      `${P}simulator_last_block_timestamp_seconds`,
      "Unix time of the simulated market's last block.",
      [],
      () => simulator.lastBlockAt,
    );
  }

  /** The SQLite file's size (with its write-ahead log): PostgreSQL's is the database server's to report. */
  sqliteFile(path: string): void {
    const size = (file: string) => {
      try {
        return statSync(file).size;
      } catch {
        return 0;
      }
    };
    scrapedGauge(
      this.registry,
      `${P}store_bytes`,
      'Bytes of the SQLite store on disk (database file and write-ahead log).',
      [],
      () => size(path) + size(`${path}-wal`),
    );
  }

  /** The chain's rollbacks: observes how many blocks each undid (its count is the rollbacks applied). */
  rollbacks(): (blocks: number) => void {
    const depth = new Histogram({
      name: `${P}chain_rollback_depth_blocks`,
      help: 'Blocks undone by each rollback (its count is the rollbacks applied).',
      buckets: ROLLBACK_BUCKETS,
      registers: [this.registry],
    });
    return (blocks) => depth.observe(blocks);
  }

  /** The chain source (`--source chain`), from its follower's status. */
  chain(follower: ChainFollower): void {
    const r = this.registry;
    const status = () => follower.status();
    scrapedGauge(r, `${P}chain_state`, "The chain follower's state: 1 for the current one.", ['state'], () => {
      const state = status().state;
      return CHAIN_STATES.map((s) => [{ state: s }, s === state ? 1 : 0] as const);
    });
    scrapedGauge(r, `${P}chain_tip_slot`, 'Slot of the last block applied.', [], () => status().tip?.slot);
    scrapedGauge(
      r,
      `${P}chain_node_tip_slot`,
      "Slot of the node's tip, as Ogmios last reported it.",
      [],
      () => status().nodeTip?.slot,
    );
    scrapedGauge(
      r,
      `${P}chain_lag_seconds`,
      "Seconds the applied tip is behind the node's (one slot is one second).",
      [],
      () => status().lagSeconds,
    );
    scrapedGauge(
      r,
      `${P}chain_tip_age_seconds`,
      "Seconds since the applied tip's block was made (wall clock).",
      [],
      () => status().tipAgeSeconds,
    );
    scrapedCounter(r, `${P}chain_blocks_total`, 'Blocks committed since start.', [], () => status().blocks);
    scrapedCounter(
      r,
      `${P}chain_trades_total`,
      'Trade events committed from the chain since start.',
      [],
      () => status().trades,
    );
    scrapedCounter(
      r,
      `${P}chain_undecodable_outputs_total`,
      'Pool outputs skipped because they could not be decoded, by DEX group.',
      ['dex'],
      () => Object.entries(status().undecodableByDex).map(([dex, n]) => [{ dex }, n] as const),
    );
    scrapedCounter(
      r,
      `${P}chain_unreadable_blocks_total`,
      'Blocks skipped whole because they could not be read.',
      [],
      () => status().unreadableBlocks,
    );
    scrapedCounter(
      r,
      `${P}chain_garbage_frames_total`,
      'Frames from Ogmios that were not JSON, blocks without a header, rollbacks to no point or to one the source does not have (each drops the connection).',
      [],
      () => status().garbage,
    );
    scrapedCounter(
      r,
      `${P}chain_refused_rollbacks_total`,
      'Rollbacks refused: to origin, before the journal, a wrong block id at a slot of ours, or after the tip (the tip kept, the connection dropped).',
      [],
      () => status().refusedRollbacks,
    );
    scrapedCounter(
      r,
      `${P}chain_reconnects_total`,
      'Connections to Ogmios made again after one was lost.',
      [],
      () => status().reconnects,
    );
    scrapedGauge(
      r,
      `${P}chain_deepest_rollback_blocks`,
      'The most blocks one rollback undid since start.',
      [],
      () => status().deepestRollback,
    );
  }

  /** An API node's link to the writer: Redis, gaps and resyncs, fan-out latency, stream lease conflicts. */
  apiNode(parts: {
    readonly connected: () => boolean;
    readonly gaps: () => number;
    readonly resyncs: () => number;
    readonly leases: SharedLimits;
  }): (ageMs: number) => void {
    const r = this.registry;
    scrapedGauge(
      r,
      `${P}cluster_redis_connected`,
      "1 while this API node's commit subscription to Redis is connected.",
      [],
      () => (parts.connected() ? 1 : 0),
    );
    scrapedCounter(
      r,
      `${P}cluster_gaps_total`,
      'Gaps seen in the commit messages (lost messages, a new writer, a Redis reconnect).',
      [],
      parts.gaps,
    );
    scrapedCounter(r, `${P}cluster_resyncs_total`, 'Reloads of the market from the store.', [], parts.resyncs);
    scrapedCounter(
      r,
      `${P}cluster_lease_conflicts_total`,
      "Stream leases not had: held (every slot of the key taken), lost (a live connection's slot taken), unreachable (Redis did not answer).",
      ['kind'],
      () => {
        const c = parts.leases.conflicts;
        return [
          [{ kind: 'held' }, c.held],
          [{ kind: 'lost' }, c.lost],
          [{ kind: 'unreachable' }, c.unreachable],
        ];
      },
    );
    const fanout = new Histogram({
      name: `${P}cluster_fanout_seconds`,
      help: "Age of a commit message when this API node applied it: from the writer's publish to here (includes the two machines' clock difference).",
      buckets: LATENCY_BUCKETS,
      registers: [r],
    });
    return (ageMs) => fanout.observe(Math.max(0, ageMs) / 1000);
  }

  /** The writer of a cluster: how long publishing each commit to Redis took. Returns the observer. */
  writer(): (seconds: number, ok: boolean) => void {
    const publish = new Histogram({
      name: `${P}cluster_publish_seconds`,
      help: 'Time to publish one commit message to Redis (the writer of a cluster).',
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    const failures = new Counter({
      name: `${P}cluster_publish_failures_total`,
      help: 'Commit messages Redis refused or did not take (API nodes resync).',
      registers: [this.registry],
    });
    return (seconds, ok) => {
      if (ok) publish.observe(seconds);
      else failures.inc();
    };
  }
}
