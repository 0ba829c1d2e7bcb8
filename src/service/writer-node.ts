import { join } from 'node:path';
import type { LogFields } from '../node/log';
import { KeyRing, KeyStore } from './auth/keys';
import { resolveDevKey } from './auth/dev-key';
import { keyBudgets, Refusals } from './auth/rate-limit';
import { slotTime } from './chain/block';
import { ChainIngest } from './chain/chain-ingest';
import { chainDecoders } from './chain/dexes';
import { BUNDLED_VYFI_POOLS } from './chain/dexes/vyfi-pools';
import { ChainFollower, type ChainStatus } from './chain/follower';
import { DEFAULT_CHAIN_START } from './chain/start';
import { DEFAULT_POOLS, DEFAULT_SEED, type ServiceConfig } from './config';
import type { HealthReport } from './http/health';
import { HistoryCache } from './http/history-cache';
import { MarketIdentity } from './identity/market-identity';
import { generateMarket, type MarketSpec } from './market/generate';
import type { Ingestor } from './market/ingest';
import { LOGO_GENERATED, LOGO_NONE } from './market/model';
import { Simulator, type SimulatorProgress } from './market/simulator';
import { ServiceMetrics } from './metrics';
import { openMarket } from './open-market';
import { storeCheck, type ServiceNode } from './serving';
import type { RuntimeHooks, StartupProgress } from './service-runtime';
import { DATABASE_FILE } from './store/open';
import { StreamHub } from './stream/hub';

/** Creates the market's tokens, pairs and pools from the spec on a fresh store (one commit). */
async function seedMarket(ingestor: Ingestor, spec: MarketSpec, meta: Record<string, string>): Promise<void> {
  const market = ingestor.market;
  // Tokens an importer already brought in keep their (real) metadata.
  const tokens = new Map(
    spec.tokens.map((t) => [
      t.unit,
      market.tokens.get(t.unit) ??
        ingestor.addToken({
          unit: t.unit,
          ticker: t.ticker,
          name: t.name,
          decimals: t.decimals,
          logoKind: t.hasLogo ? LOGO_GENERATED : LOGO_NONE,
        }),
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
 * The node of a single process or of a cluster's ingest node: the market's one writer. Opens (or
 * creates) the store, backfills or catches up the simulated market to now (or opens the chain source);
 * live trading starts with `startLive()`.
 */
export async function createWriterNode(
  config: ServiceConfig,
  hooks: RuntimeHooks,
  redact: (text: string) => string,
): Promise<ServiceNode> {
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
    if (metrics && !config.databaseUrl && config.dataDir !== ':memory:')
      metrics.sqliteFile(join(config.dataDir, DATABASE_FILE));

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
        log?.(
          `note: ${config.dataDir} holds a market of seed ${seed} with ${poolCount} pools; --seed/--pools apply to a new data directory only`,
          { level: 'warn' },
        );
      }
      const spec = generateMarket(seed, poolCount);
      if (storedSeed === undefined)
        await seedMarket(ingestor, spec, { seed: String(seed), pools: String(poolCount), source: 'simulated' });

      const sim = await Simulator.open(store.sim, market, spec, ingestor, {
        seed,
        tradesPerBlock: config.tradesPerBlock,
      });
      simulator = sim;
      const phase = sim.started ? 'catch-up' : 'backfill';
      if (!sim.started) await sim.startAt(nowSeconds() - Math.round(config.days * 86_400));
      await store.setBulkMode(true);
      const run = () => sim.runUntil(nowSeconds(), (p) => hooks.onProgress?.(simulationProgress(phase, p)));
      // The first backfill is a bulk load: trades first, then every bar in one ordered pass.
      startupTrades =
        phase === 'backfill'
          ? await ingestor.withDeferredBars(run, (done, total) =>
              hooks.onProgress?.({ phase: 'bars', done, total, trades: done }),
            )
          : await run();
      await store.setBulkMode(false);
    } else {
      if (storedSource === undefined) await ingestor.commit({ meta: { source: config.source } });
      if (config.source === 'chain') {
        const vyFiPools = config.vyFiPools ?? BUNDLED_VYFI_POOLS;
        log?.(`chain: VyFi pools: ${vyFiPools.pools.length} from ${vyFiPools.origin}`);
        const ingest = await ChainIngest.open(
          ingestor,
          store.market,
          (line, fields) => log?.(line, fields),
          chainDecoders(vyFiPools.pools),
        );
        const rollbackDepth = metrics?.rollbacks();
        const chainFollower = new ChainFollower(ingest, {
          url: config.ogmiosUrl ?? '',
          start: config.chainStart ?? DEFAULT_CHAIN_START,
          ...(config.kupoUrl ? { kupoUrl: config.kupoUrl } : {}),
          // The follower's lines at their level, with where the chain stands.
          ...(log
            ? {
                log: (line: string, fields?: LogFields) =>
                  log(line, { level: 'warn', ...fields, ...tipFields(chainFollower.status()) }),
              }
            : {}),
          ...(hooks.chainBackoff ? { backoff: hooks.chainBackoff } : {}),
          onRollback: (_point, blocks) => rollbackDepth?.(blocks),
        });
        follower = chainFollower;
        metrics?.chain(chainFollower);
      }
    }
    // Who each token is, from a token metadata server (docs/chain.md "Token identity"); asked once the market is live.
    const kupoUrl = config.source === 'chain' ? config.kupoUrl : undefined;
    const identity =
      config.tokenRegistryUrl || kupoUrl
        ? new MarketIdentity({
            market,
            ingestor,
            registryUrl: config.tokenRegistryUrl,
            registryRefreshSeconds: config.tokenRegistryRefreshSeconds,
            kupoUrl,
            // Logos from where each token's metadata says (docs/chain.md "Logos").
            logos: {
              store: store.market,
              gateways: {
                ...(config.ipfsGateway ? { ipfs: config.ipfsGateway } : {}),
                ...(config.arweaveGateway ? { arweave: config.arweaveGateway } : {}),
              },
              allowCidrs: config.fetchAllow,
            },
            log: (line, fields) => log?.(redact(line), fields),
            now: () => nowMs() / 1000,
          })
        : undefined;
    if (!identity && (config.ipfsGateway || config.arweaveGateway || config.fetchAllow))
      log?.(
        'identity: --ipfs-gateway, --arweave-gateway and --fetch-allow fetch the logos token metadata names: without --token-registry or --kupo no metadata is read, so no logo is fetched',
        { level: 'warn' },
      );
    if (config.source === 'chain' && !kupoUrl)
      log?.(
        'identity: no --kupo: a CIP-68 token is named when chain-sync passes its reference NFT; one created before the start point keeps its asset name and 0 decimals (docs/chain.md "Token identity")',
      );

    const hub = new StreamHub(market);
    const history = new HistoryCache(store.bars, market);
    const refusals = new Refusals();
    // The writer of a cluster serves no API: its hub and caches stay idle, and out of the metrics.
    if (config.role !== 'ingest') metrics?.serving({ hub, history, refusals });
    if (simulator) metrics?.simulator(simulator);
    // Caches first, so a client reacting to an event already reads the new bars.
    ingestor.onCommit((records) => history.invalidate(records));
    ingestor.onRollback((rolledBack) => history.forget(rolledBack));
    // What is known of tokens changed (their decimals, names): the bars cached in whole units of the decimals known
    // then are forgotten, and the streams that asked are told (docs/chain.md "Token identity").
    ingestor.onBatch((batch) => {
      const logos = batch.logos ?? [];
      if (!batch.tokenUpdates?.length && logos.length === 0) return;
      if (batch.tokenUpdates?.length) history.clear();
      // A new logo is a metadata change too: the app asks for the token's logo again (docs/chain.md "Logos").
      const ids = new Set([...(batch.tokenUpdates ?? []), ...logos].map((u) => u.id));
      hub.publishMetadata([...ids].flatMap((id) => market.tokensById.get(id)?.unit ?? []));
    });
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
      ...(ingestor.lastCommitError
        ? { lastCommitError: { ...ingestor.lastCommitError, message: redact(ingestor.lastCommitError.message) } }
        : {}),
      pools: market.pools.size,
      tokens: market.tokens.size,
      streams: hub.connectionCount,
      source: config.source,
      ...(config.role !== 'all' ? { role: config.role } : {}),
      ...(simulator ? { blockHeight: simulator.blockHeight, lastBlockTime: simulator.lastBlockAt } : {}),
      ...(follower ? { chain: chainHealth(follower.status(), redact) } : {}),
      ...(identity ? { identity: identityHealth(identity.status(), redact) } : {}),
    });

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
      store,
      market,
      keys,
      hub,
      history,
      limiter,
      refusals,
      health,
      simulator,
      ingestor,
      keyStore,
      devKey,
      startupTrades,
      // One process publishes every commit to its own hub: it never misses one.
      onStreamGap: () => () => undefined,
      sharedLimiter: undefined,
      readiness: async () => {
        const checks: Record<string, string> = { store: closed ? 'closed' : await storeCheck(store) };
        if (follower) {
          const status = follower.status();
          checks.chain = caughtUpNow()
            ? 'ok'
            : `catching up with the node (${status.state}${status.lagSeconds === undefined ? '' : `, ${status.lagSeconds} s behind`})`;
        }
        return checks;
      },
      startLive: () => {
        simulator?.start(nowSeconds, (error) =>
          log?.(
            `market: a block failed and will be retried: ${error instanceof Error ? error.message : String(error)}`,
            { level: 'error' },
          ),
        );
        follower?.start();
        identity?.start();
      },
      close: async () => {
        if (closed) return;
        closed = true;
        clearInterval(watchChain);
        try {
          await simulator?.stop();
          await follower?.stop();
          await identity?.close();
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

/** What the token identity resolver has learnt and what it waits for (`/healthz`). */
function identityHealth(
  status: ReturnType<MarketIdentity['status']>,
  redact: (text: string) => string,
): NonNullable<HealthReport['identity']> {
  return {
    known: status.known,
    registry: status.registry,
    cip68: status.cip68,
    pending: status.pending,
    registryServer: status.registryServer,
    kupo: status.kupo,
    lastError: status.lastError === undefined ? null : redact(status.lastError),
    ...(status.logos
      ? {
          logos: {
            ...status.logos,
            lastError: status.logos.lastError === undefined ? null : redact(status.logos.lastError),
          },
        }
      : {}),
  };
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
    decodes: status.decodes,
    tipHeight: status.tip?.height ?? null,
    unreadableBlocks: status.unreadableBlocks,
    rollbacks: status.rollbacks,
    deepestRollback: status.deepestRollback,
    garbage: status.garbage,
    refusedRollbacks: status.refusedRollbacks,
    reconnects: status.reconnects,
    lastError: status.lastError === undefined ? null : redact(status.lastError),
  };
}

function simulationProgress(phase: 'backfill' | 'catch-up', p: SimulatorProgress): StartupProgress {
  const total = Math.max(1, p.to - p.from);
  return { phase, done: Math.min(total, Math.max(0, p.blockTime - p.from)), total, trades: p.trades };
}
