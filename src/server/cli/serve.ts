import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { DEV_KEY_FILE } from '../../service/runtime';
import { createServer as createHttpServer, type Server } from 'node:http';
import { answerClientErrors } from '../../node/client-errors';
import { guardRawPaths } from '../../node/raw-path';
import { NODE_SERVER_OPTIONS } from '../../node/response-sink';
import { createPlatform } from '../platform';
import { progressReporter } from '../progress';
import { readSettings } from '../settings';

const USAGE = `Usage: npm run serve -- [options]

Serves the built app (dist/), the gateway (/gw/v1) and the data service (/api/v1) on one port.

  --port <n>              port (PORT, default 8080)
  --host <addr>           interface (HOST, default 127.0.0.1)
  --data-dir <dir>        store directory (DATA_DIR, default ./data)
  --seed <n>              market seed for a new data directory (SEED, default 1)
  --days <n>              days of history to backfill on first start (DAYS, default 30)
  --pools <n>             DEX pools of a new market (POOLS, default 17600)
  --trades-per-block <x>  mean trades per block (TRADES_PER_BLOCK)
  --source <s>            where trades come from: simulated (default), chain (Ogmios) or none
                          (imports only); stored with the market (SOURCE)
  --ogmios <url>          Ogmios v6 WebSocket address for --source chain (OGMIOS_URL), e.g. ws://127.0.0.1:1337
  --chain-start <start>   where a new chain-fed market starts (CHAIN_START): tip (default: the
                          node's tip, live prices at once), <N>d (about N days back: needs --kupo)
                          or <slot>.<block hash>; later starts resume at the stored tip
  --kupo <url>            a Kupo beside Ogmios (KUPO_URL), e.g. http://127.0.0.1:1442: finds the
                          block --chain-start <N>d names (docs/chain.md)
  --vyfi-pools <file>     VyFi's pools for --source chain (VYFI_POOLS): a JSON list of each pool's
                          validator and pair, instead of the bundled one (docs/chain.md, VyFi)
  --role <r>              all (default: one process), ingest (the single writer of a cluster: serves
                          /healthz only) or api (serves the API, gateway and app from the shared
                          store); ingest and api need DATABASE_URL and REDIS_URL (ROLE; docs/scaling.md)
  --store-check <c>       integrity check at start: quick (default) or off (STORE_CHECK)
  --static-dir <dir>      built SPA (default dist)
  --test-controls         enable POST /__test__/block[?pool=<id>&trades=<n>] (tests and benchmarks
                          only; refused with NODE_ENV=production)
  --spec-only             serve the spec's /api/v1 only, without our /api/x extension routes
                          (SPEC_ONLY=1; to try a gateway against an upstream like the hosted API)
  --help

Environment: TOKEN_API_KEYS (key:plan,...), TOKEN_API_PLANS (JSON), STREAM_PING_SECONDS, STREAM_HANDOVER_MS,
UPSTREAM_URL + UPSTREAM_API_KEY (gateway in front of a remote service), GATEWAY_* limits,
DATABASE_URL (PostgreSQL), REDIS_URL (a cluster's shared state) (README).`;

/** Why the port cannot be listened on, in one line (undefined when it can). */
function portProblem(error: NodeJS.ErrnoException, host: string, port: number): string {
  if (error.code === 'EADDRINUSE') return `Port ${port} on ${host} is in use (another server?): stop it or choose another --port.`;
  if (error.code === 'EACCES') return `Port ${port} on ${host} needs privileges this process lacks: choose a port above 1023.`;
  if (error.code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine: check --host.`;
  return `Cannot listen on ${host}:${port}: ${error.message}`;
}

/** Fails fast, before a backfill of several seconds, when the port is taken. */
function checkPort(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new Error(portProblem(error, host, port))));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
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
        'vyfi-pools': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return;
  }
  const { platform: options, server } = readSettings(parsed.values, process.env);
  const staticDir = parsed.values['static-dir'] ?? 'dist';
  if (!existsSync(join(staticDir, 'index.html'))) {
    console.warn(`No built app in ${staticDir}/ (run npm run build, or npm start): serving the API and gateway only.`);
  }
  await checkPort(server.host, server.port);
  const progress = progressReporter();
  const started = performance.now();
  const platform = await createPlatform({
    ...options,
    staticDir,
    hooks: {
      log: (line) => console.log(line),
      onProgress: progress.onProgress,
      // Another writer has the database: this one must not carry on (an orchestrator restarting it is refused clearly).
      onFatal: (line) => {
        console.error(`Stopping: ${line}`);
        process.exit(1);
      },
    },
  });
  progress.stop();
  const runtime = platform.runtime;
  if (runtime) {
    console.log(
      `Market ready in ${((performance.now() - started) / 1000).toFixed(1)} s: ${runtime.market.pools.size} pools, ${runtime.startupTrades} trades produced at start.`,
    );
  }
  platform.startLive();
  // Raw paths are checked before the adapter parses them into a URL (src/node/raw-path.ts).
  const createServer = ((options: object, listener: Parameters<typeof guardRawPaths>[0]) => createHttpServer(options, guardRawPaths(listener))) as typeof createHttpServer;
  const httpServer = serve({ fetch: platform.app.fetch, port: server.port, hostname: server.host, createServer, ...NODE_SERVER_OPTIONS }, (info) => {
    console.log(`Listening on http://${server.host === '0.0.0.0' ? 'localhost' : server.host}:${info.port}`);
    if (runtime && options.service.dataDir !== ':memory:' && existsSync(join(options.service.dataDir, DEV_KEY_FILE))) {
      console.log(`API key for curl: $(cat ${join(options.service.dataDir, DEV_KEY_FILE)})`);
    }
  });
  answerClientErrors(httpServer as Server);
  httpServer.once('error', (error: NodeJS.ErrnoException) => {
    console.error(portProblem(error, server.host, server.port));
    void platform.close().finally(() => process.exit(1));
  });
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    console.log('Shutting down...');
    // No new connections; the block in progress is committed, streams end, the store and its lock are
    // released; then idle keep-alive connections are closed and the process exits.
    httpServer.close();
    setTimeout(() => process.exit(0), 5000).unref();
    void platform
      .close()
      .catch((error: unknown) => console.error(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        (httpServer as Server).closeAllConnections?.();
        process.exit(0);
      });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
