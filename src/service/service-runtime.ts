import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { LogHook } from '../node/log';
import type { RequestLimiter } from '../node/rate-limits';
import type { BackoffOptions } from '../shared/backoff';
import type { ServiceConfig } from './config';
import type { ServiceEnv } from './http/guard';
import type { Market } from './market/model';
import type { Simulator } from './market/simulator';

/**
 * The service as the composition root sees it: the members src/server uses, nothing else. Built by
 * `createServiceRuntime` (runtime.ts), the one place that assembles it; what tests and benchmarks need
 * besides (the store, the stream hub, the ingestor, the key store) comes from `runtimeInternals`
 * (runtime-internals.ts), a handle of its own. Kept apart from its implementation as
 * lightweight-charts keeps `IChartApi` apart from `ChartApi`.
 */
export interface ServiceRuntime {
  /** The service's HTTP surface (/api/v1, /api/x, /udf, /healthz, /docs). */
  readonly app: Hono<ServiceEnv>;
  readonly config: ServiceConfig;
  /** The market in memory (pools, pairs, tokens). */
  readonly market: Market;
  /** The simulator (source `simulated`; reading it with another source throws). */
  readonly simulator: Simulator;
  /** The embedded gateway's own key: in memory only, never stored or printed (plan `internal`). */
  readonly internalKey: string;
  /** Trades produced at start (backfill or catch-up). */
  readonly startupTrades: number;
  /** Request budgets shared by a cluster's nodes (an API node: in Redis), for other per-client limits; undefined on one process. */
  readonly sharedLimiter: RequestLimiter | undefined;
  /** Starts live trading on the clock. */
  startLive(): void;
  /**
   * Calls `listener` when the stream may have missed events: an API node of a cluster that resynced
   * from the store after a gap in the commit messages (never on one process). Returns the unsubscribe.
   */
  onStreamGap(listener: () => void): () => void;
  /**
   * Whether this node can serve now, check by check: `ok`, or why not (never an error's text, which
   * may name a host). A writer: its store answers; a chain source: it has caught up with the node once
   * since start; an API node: PostgreSQL answers and its Redis subscription is connected.
   */
  readiness(): Promise<ReadinessChecks>;
  /** Stops trading (after the block in progress is committed), closes the streams and the store. */
  close(): Promise<void>;
}

/** Each readiness check's answer: `ok`, or why the node is not ready. */
export type ReadinessChecks = Readonly<Record<string, string>>;

/** How far a start has come in one of its phases (`done` of `total`, in the phase's own units). */
export interface StartupProgress {
  /** Producing missed blocks (units: simulated seconds), or building every bar (units: trades). */
  readonly phase: 'backfill' | 'catch-up' | 'bars';
  readonly done: number;
  readonly total: number;
  /** Trades produced or folded so far. */
  readonly trades: number;
}

export interface RuntimeHooks {
  /** Wall clock in milliseconds (injectable so tests run fast). */
  readonly nowMs?: () => number;
  /** Notices (and request lines with `logRequests`), with their level and fields. */
  readonly log?: LogHook;
  /** The process's Prometheus registry: the service registers its metrics there (docs/operations.md). */
  readonly metrics?: Registry;
  /** Log one line per request from the service app itself (off when a host logs them). */
  readonly logRequests?: boolean;
  /** Progress of the start: producing the backfill or catch-up, then (first start) building the bars. */
  readonly onProgress?: (progress: StartupProgress) => void;
  /** Reconnect delays of the chain source (tests shorten them). */
  readonly chainBackoff?: BackoffOptions;
  /**
   * The runtime cannot go on (a cluster's writer found another writer holding the database after it
   * lost its connection): the host should stop the process. Without it, the line is logged and the
   * runtime stays up without committing.
   */
  readonly onFatal?: (line: string) => void;
}
