import { existsSync } from 'node:fs';
import type { ServerResponse, Server } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Hono } from 'hono';
import { DEV_KEY_FILE } from '../../service/auth/dev-key';
import { createLogger, logHookOf, redactedLog, type LogHook } from '../../node/log';
import { createMetrics, metricsResponse } from '../../node/metrics';
import { observeRequests } from '../../node/request-observer';
import { listen, type FetchHandler } from '../listen';
import { Lifecycle, operationsRoutes, startingRoutes } from '../operations';
import { createPlatform, type Platform } from '../platform';
import { progressReporter } from '../progress';
import { textRedactor } from '../../shared/redact';
import { configuredSecrets, readSettings } from '../settings';

const USAGE = `Usage: npm run serve -- [options]

Serves the built app (dist/), the gateway (/gw/v1) and the data service (/api/v1) on one port.

  --port <n>              port (PORT, default 8080)
  --host <addr>           interface (HOST, default 127.0.0.1)
  --metrics-port <n>      serve /metrics on this port instead of --port (METRICS_PORT)
  --metrics-host <addr>   interface of --metrics-port (METRICS_HOST, default --host)
  --metrics-public        serve /metrics on --port although --host is not loopback (METRICS_PUBLIC=1);
                          by default a --host other than 127.0.0.1, ::1 or localhost has no /metrics
  --drain-seconds <s>     after SIGTERM, stay up this long answering /readyz 503 before stopping
                          (DRAIN_SECONDS, default 5; SIGINT stops at once)
  --data-dir <dir>        store directory (DATA_DIR, default ./data)
  --seed <n>              market seed for a new data directory (SEED, default 1)
  --days <n>              days of history to backfill on first start (DAYS, default 30)
  --pools <n>             DEX pools of a new market (POOLS, default 17600)
  --trades-per-block <x>  mean traders' swaps per block, arbitrage on top (TRADES_PER_BLOCK)
  --source <s>            where trades come from: simulated (default), chain (Ogmios) or none
                          (imports only); stored with the market (SOURCE)
  --ogmios <url>          Ogmios v6 WebSocket address for --source chain (OGMIOS_URL), e.g. ws://127.0.0.1:1337
  --chain-start <start>   where a new chain-fed market starts (CHAIN_START): tip (default: the
                          node's tip, live prices at once), <N>d (about N days back: needs --kupo)
                          or <slot>.<block hash>; later starts resume at the stored tip
  --kupo <url>            a Kupo beside Ogmios (KUPO_URL), e.g. http://127.0.0.1:1442: finds the
                          block --chain-start <N>d names (docs/chain.md)
  --token-registry <url>  a CIP-26 token metadata server (TOKEN_REGISTRY_URL), e.g.
                          https://tokens.cardano.org: names, tickers, decimals and logos of the
                          tokens of a chain-fed or imported market, asked off the ingest path
                          and again daily (docs/chain.md "Token identity")
  --token-registry-refresh <d>
                          how often each token is asked of --token-registry again while the
                          market runs (TOKEN_REGISTRY_REFRESH), e.g. 6h or 30m; default 1d
  --ipfs-gateway <url>    the IPFS gateway ipfs:// token logos are fetched through (IPFS_GATEWAY),
                          e.g. http://127.0.0.1:8080 (a local node) or https://ipfs.io; default off:
                          such logos are not fetched (docs/chain.md "Logos")
  --arweave-gateway <url> the Arweave gateway ar:// token logos are fetched through (ARWEAVE_GATEWAY),
                          e.g. https://arweave.net; default off
  --fetch-allow <cidrs>   private ranges logo fetches may reach, comma-separated (FETCH_ALLOW), e.g.
                          10.1.0.0/16: the operator's own networks; default none (public addresses only)
  --vyfi-pools <file>     VyFi's pools for --source chain (VYFI_POOLS): a JSON list of each pool's
                          validator and pair, instead of the bundled one (docs/chain.md, VyFi)
  --role <r>              all (default: one process), ingest (the single writer of a cluster: serves
                          health, probes and metrics only) or api (serves the API, gateway and app
                          from the shared store); ingest and api need DATABASE_URL and REDIS_URL
                          (ROLE; docs/scaling.md)
  --store-check <c>       integrity check at start: quick (default) or off (STORE_CHECK)
  --static-dir <dir>      built SPA (default dist)
  --test-controls         enable POST /__test__/block[?pool=<id>&trades=<n>] (tests and benchmarks
                          only; refused with NODE_ENV=production)
  --spec-only             serve the spec's /api/v1 only, without our /api/x extension routes
                          (SPEC_ONLY=1; to try a gateway against an upstream like the hosted API)
  --help

Environment: TOKEN_API_KEYS (key:plan,...), TOKEN_API_PLANS (JSON), STREAM_PING_SECONDS, STREAM_HANDOVER_MS,
UPSTREAM_URL + UPSTREAM_API_KEY (gateway in front of a remote service), GATEWAY_* limits,
DATABASE_URL (PostgreSQL), REDIS_URL (a cluster's shared state), LOG_LEVEL (info), LOG_FORMAT
(json or pretty; pretty on a terminal) (README, docs/operations.md).`;

/** Exit code of a process stopped by `signal` before it could stop cleanly (128 + the signal's number). */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/** Longest a clean stop may take once the drain is over (the block in progress, the streams, the store). */
const STOP_LIMIT_MS = 5_000;

/**
 * What the server prints, without a part of a configured address (a hosted Ogmios's key, a database's
 * password...): set from the raw settings before they are checked, so their own errors are covered.
 */
let redact = textRedactor(configuredSecrets({}, process.env, process.argv.slice(2)));

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-host': { type: 'string' },
        'metrics-public': { type: 'boolean' },
        'drain-seconds': { type: 'string' },
        'data-dir': { type: 'string' },
        seed: { type: 'string' },
        days: { type: 'string' },
        pools: { type: 'string' },
        'trades-per-block': { type: 'string' },
        'static-dir': { type: 'string' },
        'test-controls': { type: 'boolean' },
        'spec-only': { type: 'boolean' },
        'store-check': { type: 'string' },
        source: { type: 'string' },
        role: { type: 'string' },
        ogmios: { type: 'string' },
        'chain-start': { type: 'string' },
        kupo: { type: 'string' },
        'token-registry': { type: 'string' },
        'token-registry-refresh': { type: 'string' },
        'ipfs-gateway': { type: 'string' },
        'arweave-gateway': { type: 'string' },
        'fetch-allow': { type: 'string' },
        'vyfi-pools': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (error) {
    console.error(redact(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`));
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return;
  }
  redact = textRedactor(configuredSecrets(parsed.values, process.env, process.argv.slice(2)));
  // A bad flag or variable stops here, on standard error, before anything is logged.
  const { platform: options, server } = readSettings(parsed.values, process.env, process.stdout.isTTY === true);
  const logger = createLogger(server.log);
  const plain = logHookOf(logger);
  const log = redactedLog(plain, (text) => redact(text));
  /**
   * Stops the process on a failure it cannot serve past (the port taken, the store refused, another
   * writer): one plain line on standard error, as any command says why it failed, and the same as a
   * fatal JSON log line for a log pipeline (not twice on a terminal, where the log is pretty).
   */
  const stop: Stop = (text) => {
    const line = redact(text);
    if (server.log.format === 'json') logger.fatal(line);
    console.error(line);
    process.exit(1);
  };
  try {
    await serveAll(parsed.values['static-dir'] ?? 'dist', options, server, log, stop, plain);
  } catch (error) {
    stop(error instanceof Error ? error.message : String(error));
  }
}

/** Ends the process with a line saying why. */
type Stop = (line: string) => never;

/**
 * Takes the port at once (probes and metrics answer while the market is created, backfilled or caught
 * up: /readyz says 503 until it is), builds the platform, then serves it; stops on SIGTERM after the
 * drain, on SIGINT at once.
 */
async function serveAll(
  staticDir: string,
  options: ReturnType<typeof readSettings>['platform'],
  server: ReturnType<typeof readSettings>['server'],
  log: LogHook,
  stop: Stop,
  /** For this server's own address only, which the redaction would blank where a configured service shares its host (127.0.0.1). */
  plain: LogHook,
): Promise<void> {
  const built = existsSync(join(staticDir, 'index.html'));
  if (!built)
    log(`No built app in ${staticDir}/ (run npm run build, or npm start): serving the API and gateway only.`, {
      level: 'warn',
    });
  const metrics = createMetrics();
  const lifecycle = new Lifecycle();
  lifecycle.register(metrics.registry);
  const metricsHere = server.metricsOnPublicPort;
  if (!metricsHere && server.metricsPort === undefined)
    log(
      `/metrics is not served: --host ${server.host} is not loopback, so the public port does not answer it. Add --metrics-port 9464 (METRICS_PORT) to serve it on a port of its own, or --metrics-public (METRICS_PUBLIC=1) to serve it on --port.`,
      { level: 'warn' },
    );

  const starting = new Hono({ strict: false });
  starting.use('*', observeRequests({ log, metrics: metrics.http }));
  starting.route('/', operationsRoutes({ lifecycle, ...(metricsHere ? { registry: metrics.registry } : {}) }));
  starting.route('/', startingRoutes(lifecycle));
  let handler: FetchHandler = starting.fetch;
  // While draining, answers ask keep-alive clients to take their next request elsewhere.
  const dispatch: FetchHandler = (request, env) => {
    if (lifecycle.phase === 'draining') {
      const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
      if (outgoing && !outgoing.headersSent) outgoing.setHeader('Connection', 'close');
    }
    return handler(request, env);
  };
  // Taken before the store is opened: a port in use stops the start before any backfill.
  const { server: httpServer, port } = await listen(server.host, server.port, dispatch);
  const shown = (host: string, p: number) => `http://${host === '0.0.0.0' ? 'localhost' : host}:${p}`;
  plain(
    `Listening on ${shown(server.host, port)} (/livez, /readyz${metricsHere ? ', /metrics' : ''} answer while the market starts)`,
    { port },
  );
  let metricsServer: Server | undefined;
  if (server.metricsPort !== undefined) {
    const scrape = new Hono({ strict: false });
    scrape.use('*', observeRequests({ log, metrics: metrics.http }));
    scrape.get('/metrics', () => metricsResponse(metrics.registry));
    const listening = await listen(server.metricsHost, server.metricsPort, scrape.fetch, '--metrics-port');
    metricsServer = listening.server;
    plain(`Metrics on ${shown(server.metricsHost, listening.port)}/metrics`, { port: listening.port });
  }

  /** The platform once built (a signal may come before). */
  const made: { platform?: Platform } = {};
  let stopping = false;
  let drain: NodeJS.Timeout | undefined;
  const stopNow = () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(drain);
    lifecycle.drain();
    log('Shutting down...');
    // No new connections; the block in progress is committed, streams end, the store and its lock are
    // released; then idle keep-alive connections are closed and the process exits.
    httpServer.close();
    metricsServer?.close();
    setTimeout(() => process.exit(0), STOP_LIMIT_MS).unref();
    void (made.platform?.close() ?? Promise.resolve())
      .catch((error: unknown) => log(error instanceof Error ? error.message : String(error), { level: 'error' }))
      .finally(() => {
        httpServer.closeAllConnections?.();
        metricsServer?.closeAllConnections?.();
        process.exit(0);
      });
  };
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (lifecycle.phase === 'starting') {
      // Nothing to drain, and a start cut short is safe: the store resumes or rebuilds on the next one.
      log(`${signal} during the start: stopping`, { level: 'warn' });
      process.exit(SIGNAL_EXIT[signal]);
    }
    // A second signal while draining: stop now.
    if (drain !== undefined) return stopNow();
    const seconds = signal === 'SIGTERM' ? server.drainSeconds : 0;
    if (seconds === 0 || stopping) return stopNow();
    lifecycle.drain();
    log(
      `${signal}: draining for ${seconds} s (/readyz answers 503, requests are still served; another signal stops at once)`,
    );
    drain = setTimeout(stopNow, seconds * 1000);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  httpServer.on('error', (error: Error) => {
    void (made.platform?.close() ?? Promise.resolve()).finally(() => stop(`The server failed: ${error.message}`));
  });

  // Bars on a terminal; on a pipe, a log line every 10 %.
  const progress = progressReporter(process.stderr, process.stderr.isTTY ? undefined : log);
  const started = performance.now();
  const platform = await createPlatform({
    ...options,
    ...(built ? { staticDir } : {}),
    metrics,
    serveMetrics: metricsHere,
    lifecycle,
    hooks: {
      log,
      onProgress: (p) => {
        lifecycle.onProgress(p);
        progress.onProgress(p);
      },
      // Another writer has the database: this one must not carry on (an orchestrator restarting it is refused clearly).
      onFatal: (line) => stop(`Stopping: ${line}`),
    },
  });
  made.platform = platform;
  progress.stop();
  const runtime = platform.runtime;
  if (runtime) {
    log(
      `Market ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${runtime.market.pools.size} pools, ${runtime.startupTrades} trades produced at start.`,
      {
        pools: runtime.market.pools.size,
        startupTrades: runtime.startupTrades,
      },
    );
  }
  platform.startLive();
  handler = platform.app.fetch;
  lifecycle.ready(platform.readiness);
  plain(`Serving on ${shown(server.host, port)}`);
  if (runtime && options.service.dataDir !== ':memory:' && existsSync(join(options.service.dataDir, DEV_KEY_FILE))) {
    log(`API key for curl: $(cat ${join(options.service.dataDir, DEV_KEY_FILE)})`);
  }
}

main().catch((error: unknown) => {
  console.error(redact(error instanceof Error ? error.message : String(error)));
  process.exit(1);
});
