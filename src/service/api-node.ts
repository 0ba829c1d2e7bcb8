import { KeyRing, KeyStore } from './auth/keys';
import { CommitSubscriber, parsePosition, type CommitMessage } from './cluster/bus';
import { SharedLimits } from './cluster/shared-limits';
import type { ServiceConfig } from './config';
import type { HealthReport } from './http/health';
import { HistoryCache } from './http/history-cache';
import { Ingestor } from './market/ingest';
import { buildMarket } from './market/load';
import { sumAggregate, type Token } from './market/model';
import { storeCheck, type ServiceNode } from './serving';
import type { RuntimeHooks } from './service-runtime';
import { openReaderStore } from './store/open';
import { StreamHub } from './stream/hub';
import { Refusals } from './auth/rate-limit';
import { ServiceMetrics } from './metrics';

/**
 * An API node of a cluster (`--role api`): serves /api/v1 (and, composed by the server, the gateway and
 * the app) from the shared PostgreSQL store, holding the market's structure and reserves in memory as
 * a cache kept current by the writer's commit messages on Redis (a gap: reloaded from the store). No
 * source, no writes but API keys; rate limits and stream connection leases are shared through Redis.
 */
export async function createApiNode(config: ServiceConfig, hooks: RuntimeHooks): Promise<ServiceNode> {
  const log = hooks.log;
  if (!config.databaseUrl || !config.redisUrl) throw new Error('--role api needs DATABASE_URL and REDIS_URL');
  const store = await openReaderStore(config.databaseUrl);
  try {
    const market = buildMarket(await store.market.load());
    // The market's source is the writer's (stored at its first start), whatever this node was started with.
    const storedSource =
      (await store.market.meta('source')) ??
      ((await store.market.meta('seed')) !== undefined ? 'simulated' : undefined);
    const source = (storedSource ?? config.source) as ServiceConfig['source'];
    const ingestor = await Ingestor.open(store, market);
    const hub = new StreamHub(market);
    const history = new HistoryCache(store.bars, market);
    const gapListeners = new Set<() => void>();
    let resyncs = 0;
    const metrics = hooks.metrics ? new ServiceMetrics(hooks.metrics) : undefined;
    const refusals = new Refusals();
    metrics?.serving({ hub, history, refusals });

    /** A commit's reserves into the market in memory, its Aggregates' sums after them. */
    const applyReserves = (message: CommitMessage) => {
      for (const r of message.reserves) {
        const pool = market.poolsById.get(r.id);
        if (!pool) continue;
        pool.baseReserve = r.base;
        pool.quoteReserve = r.quote;
      }
      for (const r of message.reserves) {
        const pool = market.poolsById.get(r.id);
        if (pool && pool.group !== 'Aggregate') sumAggregate(pool.pair);
      }
      if (message.reserves.length > 0) market.prices++;
    };
    /** Messages applied while a reload runs: those its snapshot does not include are applied again after it. */
    let applied: CommitMessage[] | undefined;
    const reload = async () => {
      applied = [];
      try {
        const rows = await store.market.load();
        const snapshot = parsePosition(rows.position);
        const described = (t: Token) => `${t.decimals}|${t.ticker}|${t.name}|${t.logoKind}`;
        const seen = new Map([...market.tokens.values()].map((t) => [t.unit, described(t)]));
        market.replaceWith(buildMarket(rows));
        history.clear();
        // Tokens whose decimals, ticker, name or kind of logo the writer changed: the streams that asked are told.
        const changed = [...market.tokens.values()].filter((t) => {
          const before = seen.get(t.unit);
          return before !== undefined && before !== described(t);
        });
        if (changed.length > 0) hub.publishMetadata(changed.map((t) => t.unit));
        for (const message of applied) {
          // Same writer: the snapshot includes its messages up to the stamped one. Another: none of them.
          if (snapshot && snapshot.writer === message.writer && message.seq <= snapshot.seq) continue;
          applyReserves(message);
          history.invalidate(message.records);
        }
        resyncs++;
      } catch (error) {
        log?.(
          `api node: resync failed (${error instanceof Error ? error.message : String(error)}); the next message retries`,
          { level: 'warn' },
        );
      } finally {
        applied = undefined;
      }
    };
    // One reload at a time; a request while one runs gets a fresh one after it (the running one may
    // have read the store before the commits the request is about), shared by every request meanwhile.
    let running: Promise<void> | undefined;
    let queued: Promise<void> | undefined;
    const resync = (): Promise<void> => {
      if (!running) {
        running = reload().finally(() => (running = undefined));
        return running;
      }
      queued ??= running.then(() => {
        queued = undefined;
        return resync();
      });
      return queued;
    };
    const shared = SharedLimits.create(config.redisUrl, {
      leaseMs: config.streamLeaseSeconds * 1000,
      ...(log ? { log } : {}),
    });
    // Read when Prometheus scrapes (the subscriber exists by then); observes each commit message's age when applied here.
    const fanout = metrics?.apiNode({
      connected: () => subscriber.connected,
      gaps: () => subscriber.gaps,
      resyncs: () => resyncs,
      leases: shared,
    });
    const subscriber = CommitSubscriber.create(config.redisUrl, {
      apply: (message) => {
        if (message.at !== undefined) fanout?.(Date.now() - message.at);
        applyReserves(message);
        applied?.push(message);
        history.invalidate(message.records);
      },
      events: (message) => {
        if (message.records.length > 0) hub.publish(message.records);
        if (message.rollback) hub.publishRollback(message.rollback);
      },
      resync: async (_why, gap) => {
        await resync();
        // Browsers of this node's gateway may have missed events: tell them, once the store is reloaded.
        if (gap) for (const listener of gapListeners) listener();
      },
      ...(log ? { log } : {}),
    });

    const keyStore = new KeyStore(store.keys);
    const keys = new KeyRing(keyStore, config.apiKeys, config.plans);
    const health = (): HealthReport => ({
      status: subscriber.connected ? 'ok' : 'degraded',
      pools: market.pools.size,
      tokens: market.tokens.size,
      streams: hub.connectionCount,
      source,
      role: 'api',
      cluster: { redis: subscriber.connected, gaps: subscriber.gaps, resyncs },
    });
    let closed = false;
    return {
      store,
      market,
      keys,
      hub,
      history,
      limiter: shared,
      leases: shared,
      refusals,
      health,
      simulator: undefined,
      ingestor,
      keyStore,
      devKey: undefined,
      startupTrades: 0,
      startLive: () => undefined,
      sharedLimiter: shared,
      readiness: async () => ({
        postgres: closed ? 'closed' : await storeCheck(store),
        redis: subscriber.connected ? 'ok' : 'not connected',
      }),
      onStreamGap: (listener) => {
        gapListeners.add(listener);
        return () => gapListeners.delete(listener);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        hub.closeAll();
        await subscriber.close();
        await shared.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
