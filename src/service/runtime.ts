import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { redactedLog, type LogFields, type LogHook } from '../node/log';
import type { BackoffOptions } from '../shared/backoff';
import { redactedError, textRedactor } from '../shared/redact';
import { KeyRing, KeyStore } from './auth/keys';
import { slotTime } from './chain/block';
import { ChainIngest } from './chain/chain-ingest';
import { chainDecoders } from './chain/dexes';
import { BUNDLED_VYFI_POOLS } from './chain/dexes/vyfi-pools';
import { createApiNode } from './api-node';
import { announceCommits, type Announce, type Announcer, type PublishObserver } from './cluster/announce';
import { ChainFollower, type ChainStatus } from './chain/follower';
import { DEFAULT_CHAIN_START } from './chain/start';
import type { RequestLimiter } from '../node/rate-limits';
import { configuredAddresses, DEFAULT_POOLS, DEFAULT_SEED, type ServiceConfig } from './config';
import type { HealthReport } from './http/app';
import type { ServiceEnv } from './http/guard';
import { HistoryCache } from './http/history-cache';
import type { LogoService } from './logos/logo-service';
import { generateMarket, type MarketSpec } from './market/generate';
import { Ingestor } from './market/ingest';
import { buildMarket } from './market/load';
import { LOGO_GENERATED, LOGO_NONE, type Market } from './market/model';
import { Simulator, type SimulatorProgress } from './market/simulator';
import { lockDataDir } from './store/lock';
import { DATABASE_FILE, openStore, openWriterStore, shownDatabase } from './store/open';
import type { Store } from './store/ports';
import { serveMarket, storeCheck, type ReadinessChecks } from './serving';
import { StreamHub } from './stream/hub';
import { keyBudgets, Refusals } from './auth/rate-limit';
import { ServiceMetrics } from './metrics';

export type { ReadinessChecks };

/** File (in the data directory) holding the dev key created on a first start without keys. */
export const DEV_KEY_FILE = 'dev-api-key.txt';

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

export interface ServiceRuntime {
  readonly app: Hono<ServiceEnv>;
  readonly config: ServiceConfig;
  /** The store, through its interfaces only (ports.ts). */
  readonly store: Store;
  readonly market: Market;
  /** The simulator (source `simulated`; reading it with another source throws). */
  readonly simulator: Simulator;
  readonly ingestor: Ingestor;
  readonly hub: StreamHub;
  readonly keyStore: KeyStore;
  readonly logos: LogoService;
  /** The embedded gateway's own key: in memory only, never stored or printed (plan `internal`). */
  readonly internalKey: string;
  /** The dev key created on a first start without keys (for curl and scripts), when known. */
  readonly devKey: string | undefined;
  /** Trades produced at start (backfill or catch-up). */
  readonly startupTrades: number;
  /** Starts live trading on the clock. */
  startLive(): void;
  /**
   * Calls `listener` when the stream may have missed events: an API node of a cluster that resynced
   * from the store after a gap in the commit messages (never on one process). Returns the unsubscribe.
   */
  onStreamGap(listener: () => void): () => void;
  /** Request budgets shared by a cluster's nodes (an API node: in Redis), for other per-client limits; undefined on one process. */
  readonly sharedLimiter: RequestLimiter | undefined;
  /**
   * Whether this node can serve now, check by check: `ok`, or why not (never an error's text, which
   * may name a host). A writer: its store answers; a chain source: it has caught up with the node once
   * since start; an API node: PostgreSQL answers and its Redis subscription is connected.
   */
  readiness(): Promise<ReadinessChecks>;

  /** Stops trading (after the block in progress is committed), closes the streams and the store. */
  close(): Promise<void>;
}

/** Creates the market's tokens, pairs and pools from the spec on a fresh store (one commit). */
async function seedMarket(ingestor: Ingestor, spec: MarketSpec, meta: Record<string, string>): Promise<void> {
  const market = ingestor.market;
  // Tokens an importer already brought in keep their (real) metadata.
  const tokens = new Map(
    spec.tokens.map((t) => [
      t.unit,
      market.tokens.get(t.unit) ?? ingestor.addToken({ unit: t.unit, ticker: t.ticker, name: t.name, decimals: t.decimals, logoKind: t.hasLogo ? LOGO_GENERATED : LOGO_NONE }),
    ]),
  );
  for (const pool of spec.pools) {
    const base = tokens.get(pool.baseUnit);
    const quote = tokens.get(pool.quoteUnit);
    if (!base || !quote) throw new Error(`pool ${pool.poolId} refers to an unknown token`);
    ingestor.addPool(ingestor.ensurePair(base, quote), {
      poolId: pool.poolId,
      group: pool.group,
      baseReserve: pool.baseReserve,
      quoteReserve: pool.quoteReserve,
      feeBps: pool.feeBps,
      simulated: true,
    });
  }
  await ingestor.commit({ meta });
}

/**
 * Opens (or creates) the store, backfills or catches up the simulated market to now, and builds the
 * HTTP app. Live trading starts with `startLive()`.
 */
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
    throw new Error(`no store in ${dataDir} (no ${DATABASE_FILE}): check --data-dir or DATA_DIR, or start the server once to create it`);
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
export async function openMarket(dataDir: string, purpose: string, options: OpenMarketOptions = {}): Promise<MarketHandle> {
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
async function openPostgresMarket(databaseUrl: string, purpose: string, options: OpenMarketOptions): Promise<MarketHandle> {
  const line = (text: string) => {
    options.log?.(text, { level: 'error' });
    options.onLockTaken?.(text);
  };
  const store = await openWriterStore(databaseUrl, purpose, { ...(options.log ? { log: options.log } : {}), onTaken: (why) => line(`${purpose}: ${why}`) });
  let announcer: Announcer | undefined;
  try {
    const market = buildMarket(await store.market.load());
    if (options.existing && market.tokens.size === 0 && (await store.market.meta('source')) === undefined) {
      throw new Error(`no market in ${shownDatabase(databaseUrl)}: check DATABASE_URL, or start the server once to create it`);
    }
    const ingestor = await Ingestor.open(store, market);
    if (await store.bars.stale()) await store.bars.rebuild();
    // Attached before the first commit (a backfill, a catch-up, an import): none goes unannounced.
    if (options.redisUrl !== undefined) announcer = await announceCommits(ingestor, options.redisUrl, options.announce ?? 'commits', options.log, options.onPublish);
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

export async function createServiceRuntime(config: ServiceConfig, given: RuntimeHooks = {}): Promise<ServiceRuntime> {
  // Every line logged, every error thrown at start and every error text in /healthz without a part of the
  // configured addresses (a hosted Ogmios's or a database's key may be in any of them).
  const redact = textRedactor(configuredAddresses(config));
  const hooks: RuntimeHooks = {
    ...given,
    ...(given.log ? { log: redactedLog(given.log, redact) } : {}),
    ...(given.onFatal ? { onFatal: (line: string) => given.onFatal?.(redact(line)) } : {}),
  };
  try {
    return await (config.role === 'api' ? createApiNode(config, hooks) : createWriterRuntime(config, hooks, redact));
  } catch (error) {
    throw redactedError(error, configuredAddresses(config));
  }
}

/** The runtime of a single process or of a cluster's ingest node: the market's one writer. */
async function createWriterRuntime(config: ServiceConfig, hooks: RuntimeHooks, redact: (text: string) => string): Promise<ServiceRuntime> {
  const nowMs = hooks.nowMs ?? Date.now;
  const log = hooks.log;
  const metrics = hooks.metrics ? new ServiceMetrics(hooks.metrics) : undefined;
  let simulator: Simulator | undefined;
  let follower: ChainFollower | undefined;
  const cluster = config.role === 'ingest' && config.redisUrl !== undefined;
  const handle = await openMarket(config.dataDir, config.role === 'ingest' ? 'the ingest node' : 'service', {
    check: config.storeCheck,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    // The writer of a cluster tells the API nodes what each commit changed (docs/scaling.md).
    ...(cluster ? { redisUrl: config.redisUrl } : {}),
    ...(cluster && metrics ? { onPublish: metrics.writer() } : {}),
    ...(log ? { log } : {}),
    onLockTaken: (line) => {
      // Nothing more is committed anyway (the store refuses): stop producing.
      void simulator?.stop();
      void follower?.stop();
      hooks.onFatal?.(line);
    },
  });
  const { store, ingestor } = handle;
  try {
    // Before the first commit (the market's creation, the backfill): every commit is timed.
    metrics?.commits(ingestor);
    if (metrics && !config.databaseUrl && config.dataDir !== ':memory:') metrics.sqliteFile(join(config.dataDir, DATABASE_FILE));

    // The market's source is fixed at first start: sources are never mixed in one market.
    const storedSeed = await store.market.meta('seed');
    const storedSource = (await store.market.meta('source')) ?? (storedSeed !== undefined ? 'simulated' : undefined);
    if (storedSource !== undefined && storedSource !== config.source) {
      throw new Error(
        `${config.databaseUrl ? 'the database' : config.dataDir} holds a market fed by the ${storedSource} source, and this start asked for --source ${config.source}: ` +
          `start it with --source ${storedSource}, or use another data directory (sources are never mixed)`,
      );
    }
    const market = handle.market;
    // Imported pools and trades carry no source: the chain would mix with them (and a rollback would
    // take imported trades after its point with it).
    if (storedSource === undefined && config.source === 'chain' && market.pools.size > 0) {
      throw new Error(
        `${config.databaseUrl ? 'the database' : config.dataDir} holds ${market.pools.size} imported pool(s) and their trades, and this start asked for --source chain: ` +
          'serve it with --source none, and follow the chain in a data directory of its own (sources are never mixed)',
      );
    }
    const nowSeconds = () => Math.floor(nowMs() / 1000);
    let startupTrades = 0;
    if (config.source === 'simulated') {
      // The market's identity is fixed at first start; later flags that disagree are reported, not applied.
      const seed = storedSeed === undefined ? config.seed : Number(storedSeed);
      const poolCount = storedSeed === undefined ? config.pools : Number(await store.market.meta('pools'));
      const chosen = config.seed !== DEFAULT_SEED || config.pools !== DEFAULT_POOLS;
      if (storedSeed !== undefined && chosen && (seed !== config.seed || poolCount !== config.pools)) {
        log?.(`note: ${config.dataDir} holds a market of seed ${seed} with ${poolCount} pools; --seed/--pools apply to a new data directory only`, { level: 'warn' });
      }
      const spec = generateMarket(seed, poolCount);
      if (storedSeed === undefined) await seedMarket(ingestor, spec, { seed: String(seed), pools: String(poolCount), source: 'simulated' });

      const sim = await Simulator.open(store.sim, market, spec, ingestor, { seed, tradesPerBlock: config.tradesPerBlock });
      simulator = sim;
      const phase = sim.started ? 'catch-up' : 'backfill';
      if (!sim.started) await sim.startAt(nowSeconds() - Math.round(config.days * 86_400));
      await store.setBulkMode(true);
      const run = () => sim.runUntil(nowSeconds(), (p) => hooks.onProgress?.(simulationProgress(phase, p)));
      // The first backfill is a bulk load: trades first, then every bar in one ordered pass.
      startupTrades =
        phase === 'backfill'
          ? await ingestor.withDeferredBars(run, (done, total) => hooks.onProgress?.({ phase: 'bars', done, total, trades: done }))
          : await run();
      await store.setBulkMode(false);
    } else {
      if (storedSource === undefined) await ingestor.commit({ meta: { source: config.source } });
      if (config.source === 'chain') {
        const vyFiPools = config.vyFiPools ?? BUNDLED_VYFI_POOLS;
        log?.(`chain: VyFi pools: ${vyFiPools.pools.length} from ${vyFiPools.origin}`);
        const ingest = await ChainIngest.open(ingestor, store.market, (line, fields) => log?.(line, fields), chainDecoders(vyFiPools.pools));
        const rollbackDepth = metrics?.rollbacks();
        const chainFollower = new ChainFollower(ingest, {
          url: config.ogmiosUrl ?? '',
          start: config.chainStart ?? DEFAULT_CHAIN_START,
          ...(config.kupoUrl ? { kupoUrl: config.kupoUrl } : {}),
          // The follower's lines at their level, with where the chain stands.
          ...(log ? { log: (line: string, fields?: LogFields) => log(line, { level: 'warn', ...fields, ...tipFields(chainFollower.status()) }) } : {}),
          ...(hooks.chainBackoff ? { backoff: hooks.chainBackoff } : {}),
          onRollback: (_point, blocks) => rollbackDepth?.(blocks),
        });
        follower = chainFollower;
        metrics?.chain(chainFollower);
      }
    }

    const hub = new StreamHub(market);
    const history = new HistoryCache(store.bars);
    const refusals = new Refusals();
    // The writer of a cluster serves no API: its hub and caches stay idle, and out of the metrics.
    if (config.role !== 'ingest') metrics?.serving({ hub, history, refusals });
    if (simulator) metrics?.simulator(simulator);
    // Caches first, so a client reacting to an event already reads the new bars.
    ingestor.onCommit((records) => history.invalidate(records));
    ingestor.onRollback(() => history.clear());
    ingestor.onCommit((records) => hub.publish(records));
    // A chain rollback, once committed, is told to the streams that asked (the gateway: docs/chain.md).
    ingestor.onBatch((batch) => {
      if (batch.rollbackTo) hub.publishRollback(batch.rollbackTo);
    });

    const keyStore = new KeyStore(store.keys);
    const keys = new KeyRing(keyStore, config.apiKeys, config.plans);
    const devKey = await resolveDevKey(config, keyStore, keys, log);

    const limiter = keyBudgets();
    const health = (): HealthReport => ({
      status: ingestor.lastCommitError ? 'degraded' : 'ok',
      ...(ingestor.lastCommitError ? { lastCommitError: { ...ingestor.lastCommitError, message: redact(ingestor.lastCommitError.message) } } : {}),
      pools: market.pools.size,
      tokens: market.tokens.size,
      streams: hub.connectionCount,
      source: config.source,
      ...(config.role !== 'all' ? { role: config.role } : {}),
      ...(simulator ? { blockHeight: simulator.blockHeight, lastBlockTime: simulator.lastBlockAt } : {}),
      ...(follower ? { chain: chainHealth(follower.status(), redact) } : {}),
    });
    const { app, internalKey, logos } = serveMarket(config, { ...hooks, nowMs }, { store, market, keys, hub, history, limiter, refusals, health });

    let closed = false;
    // A chain source is ready once it has caught up with the node; it stays ready if it falls behind
    // later (the lag metric and its alert tell that), so that one Ogmios hiccup does not take it out of service.
    let caughtUp = follower === undefined;
    const caughtUpNow = (): boolean => {
      if (caughtUp || !follower) return caughtUp;
      const status = follower.status();
      if (status.state !== 'live') return false;
      caughtUp = true;
      clearInterval(watchChain);
      log?.(`chain: caught up with the node at slot ${status.tip?.slot ?? '?'}: ready`, tipFields(status));
      return true;
    };
    const watchChain = follower ? setInterval(caughtUpNow, 1_000) : undefined;
    watchChain?.unref();
    return {
      app,
      config,
      store,
      market,
      get simulator(): Simulator {
        if (!simulator) throw new Error(`this market's source is ${config.source}: it has no simulator`);
        return simulator;
      },
      ingestor,
      hub,
      keyStore,
      logos,
      internalKey,
      devKey,
      startupTrades,
      // One process publishes every commit to its own hub: it never misses one.
      onStreamGap: () => () => undefined,
      sharedLimiter: undefined,
      readiness: async () => {
        const checks: Record<string, string> = { store: closed ? 'closed' : await storeCheck(store) };
        if (follower) {
          const status = follower.status();
          checks.chain = caughtUpNow() ? 'ok' : `catching up with the node (${status.state}${status.lagSeconds === undefined ? '' : `, ${status.lagSeconds} s behind`})`;
        }
        return checks;
      },
      startLive: () => {
        simulator?.start(nowSeconds, (error) => log?.(`market: a block failed and will be retried: ${error instanceof Error ? error.message : String(error)}`, { level: 'error' }));
        follower?.start();
      },
      close: async () => {
        if (closed) return;
        closed = true;
        clearInterval(watchChain);
        try {
          await simulator?.stop();
          await follower?.stop();
        } finally {
          hub.closeAll();
          await handle.close();
        }
      },
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Where the chain stands, as log fields: the applied tip's slot, block and height. */
function tipFields(status: ChainStatus): { slot?: number; block?: string; height?: number } {
  return status.tip ? { slot: status.tip.slot, block: status.tip.id, height: status.tip.height } : {};
}

function chainHealth(status: ChainStatus, redact: (text: string) => string): NonNullable<HealthReport['chain']> {
  return {
    state: status.state,
    tipSlot: status.tip?.slot ?? null,
    tipTime: status.tip ? slotTime(status.tip.slot) : null,
    nodeTipSlot: status.nodeTip?.slot ?? null,
    lagSeconds: status.lagSeconds ?? null,
    tipAgeSeconds: status.tipAgeSeconds ?? null,
    pendingBlocks: status.pendingBlocks,
    blocks: status.blocks,
    trades: status.trades,
    undecodable: status.undecodable,
    undecodableByDex: status.undecodableByDex,
    unreadableBlocks: status.unreadableBlocks,
    rollbacks: status.rollbacks,
    deepestRollback: status.deepestRollback,
    garbage: status.garbage,
    reconnects: status.reconnects,
    lastError: status.lastError === undefined ? null : redact(status.lastError),
  };
}

function simulationProgress(phase: 'backfill' | 'catch-up', p: SimulatorProgress): StartupProgress {
  const total = Math.max(1, p.to - p.from);
  return { phase, done: Math.min(total, Math.max(0, p.blockTime - p.from)), total, trades: p.trades };
}


/**
 * With no key configured at all, the first start creates a dev key (enterprise plan), saves it in the
 * data directory and prints it. Returns the dev key when there is one.
 */
async function resolveDevKey(config: ServiceConfig, store: KeyStore, keys: KeyRing, log?: LogHook): Promise<string | undefined> {
  const file = config.dataDir === ':memory:' ? undefined : join(config.dataDir, DEV_KEY_FILE);
  if (file && existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (await keys.authenticate(saved)) return saved;
  }
  if ((await keys.size()) === 0) {
    const { key } = await store.create('enterprise', 'dev');
    if (file) writeFileSync(file, `${key}\n`, { mode: 0o600 });
    log?.(`Created a dev API key (enterprise plan)${file ? `, saved in ${file}` : ''}:\n\n    ${key}\n`);
    return key;
  }
  return undefined;
}
