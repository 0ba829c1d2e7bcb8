import type { Hono } from 'hono';
import type { LogHook } from '../node/log';
import type { Refusals } from './auth/rate-limit';
import { generateKey, type KeyRing, type KeyStore } from './auth/keys';
import type { ServiceConfig } from './config';
import { createServiceApp } from './http/app';
import type { HealthReport } from './http/health';
import type { RequestLimiter, ServiceEnv } from './http/guard';
import type { HistoryCache } from './http/history-cache';
import type { StreamLeases } from './http/routes/stream';
import { SymbolInfoCache } from './http/symbol-info-cache';
import { LogoService } from './logos/logo-service';
import type { Ingestor } from './market/ingest';
import type { Market } from './market/model';
import type { Simulator } from './market/simulator';
import type { ReadinessChecks } from './service-runtime';
import { SymbolNames } from './market/symbols';
import type { Store } from './store/ports';
import type { StreamHub } from './stream/hub';

/** How a store answers a readiness check (bounded by the store's own connection and query timeouts). */
export function storeCheck(store: Store): Promise<string> {
  return store.ping().then(
    () => 'ok',
    () => 'not answering',
  );
}

/**
 * Limits of the embedded gateway's internal key: one stream carries every browser's pools, and a
 * second one may open beside it while the gateway switches subscriptions (make before break).
 */
export const INTERNAL_PLAN = { requestsPerMinute: 1_000_000, poolsPerStream: 10_000, streamsPerKey: 2 };

export interface ServingParts {
  readonly store: Store;
  readonly market: Market;
  readonly keys: KeyRing;
  readonly hub: StreamHub;
  readonly history: HistoryCache;
  readonly limiter: RequestLimiter;
  /** Stream leases shared by a cluster (absent on one node). */
  readonly leases?: StreamLeases;
  /** Counts requests refused by a plan's budget (metrics). */
  readonly refusals?: Refusals;
  readonly health: () => HealthReport;
}

/**
 * What a node hands runtime.ts, which serves it (`serveMarket`) and builds the one `ServiceRuntime`
 * from it: the market's writer (writer-node.ts) or an API node of a cluster (api-node.ts).
 */
export interface ServiceNode extends ServingParts {
  readonly ingestor: Ingestor;
  readonly keyStore: KeyStore;
  /** The simulator of a simulated market (none on another source or an API node). */
  readonly simulator: Simulator | undefined;
  readonly devKey: string | undefined;
  readonly startupTrades: number;
  readonly sharedLimiter: RequestLimiter | undefined;
  startLive(): void;
  onStreamGap(listener: () => void): () => void;
  readiness(): Promise<ReadinessChecks>;
  close(): Promise<void>;
}

/**
 * The HTTP side every process that serves the API builds the same way (one process, or an API node
 * of a cluster): the gateway's internal key, symbol names, logos, caches, and the Hono app.
 */
export function serveMarket(
  config: ServiceConfig,
  hooks: { readonly nowMs: () => number; readonly log?: LogHook; readonly logRequests?: boolean },
  parts: ServingParts,
): { app: Hono<ServiceEnv>; internalKey: string } {
  const { store, market } = parts;
  const internalKey = generateKey();
  parts.keys.addInternal(internalKey, 'internal', INTERNAL_PLAN);
  const symbols = new SymbolNames(market);
  const logos = new LogoService(store.market);
  const app = createServiceApp({
    market,
    symbols,
    trades: store.trades,
    bars: store.bars,
    keys: parts.keys,
    limiter: parts.limiter,
    ...(parts.leases ? { leases: parts.leases } : {}),
    ...(parts.refusals ? { refusals: parts.refusals } : {}),
    hub: parts.hub,
    logos,
    symbolInfo: new SymbolInfoCache(market, symbols),
    history: parts.history,
    stream: {
      pingSeconds: config.streamPingSeconds,
      maxBodyBytes: config.streamMaxBodyBytes,
      maxBufferedBytes: config.streamMaxBufferedBytes,
      handoverMs: config.streamHandoverMs,
    },
    nowMs: hooks.nowMs,
    health: parts.health,
    ...(hooks.log ? { log: hooks.log } : {}),
    logRequests: hooks.logRequests ?? false,
    extensions: config.extensions,
  });
  return { app, internalKey };
}
