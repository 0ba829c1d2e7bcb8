import { join, resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { compress } from 'hono/compress';
import { GATEWAY_PREFIX } from '../shared/api/gateway';
import { Gauge } from 'prom-client';
import { createMetrics, METRIC_PREFIX, type Metrics } from '../node/metrics';
import { observeRequests } from '../node/request-observer';
import { createServiceRuntime } from '../service/runtime';
import type { ReadinessChecks, RuntimeHooks, ServiceRuntime } from '../service/service-runtime';
import { redactError, redactUrl } from '../shared/redact';
import { securityHeaders } from '../node/security-headers';
import type { ServiceConfig } from '../service/config';
import type { GatewayConfig } from '../gateway/config';
import { createGateway, type Gateway } from '../gateway/gateway';
import { gatewayMetrics } from '../gateway/metrics';
import { Lifecycle, operationsRoutes } from './operations';
import { embeddedUpstream, remoteUpstream } from '../gateway/upstream';
import { parseBlockQuery } from './test-controls';

export interface PlatformOptions {
  /** The embedded service's configuration (unused when the gateway has a remote upstream). */
  readonly service: ServiceConfig;
  readonly gateway: GatewayConfig;
  /** Directory of the built SPA to serve (npm run serve); omit under Vite, which serves it. */
  readonly staticDir?: string;
  /**
   * Test-only market control (POST /__test__/block, optionally ?pool=&trades= to trade one pair; in
   * remote mode passed to the upstream's, for the browser flows). Refused when NODE_ENV=production.
   */
  readonly testControls?: boolean;
  readonly hooks?: RuntimeHooks;
  /** The process's metrics (default: a registry of the platform's own). */
  readonly metrics?: Metrics;
  /** Serve /metrics on the platform's app (default true; false when `--metrics-port` moves it). */
  readonly serveMetrics?: boolean;
  /**
   * The server's life (starting, ready, draining), which /readyz answers from; the host marks it ready
   * once it serves the platform. Default: one of the platform's own, ready once the platform is built.
   */
  readonly lifecycle?: Lifecycle;
}

export interface Platform {
  /** The whole HTTP surface: /api/v1, /api/x and /healthz (embedded service), /gw/v1, the SPA. */
  readonly app: Hono;
  readonly runtime: ServiceRuntime | undefined;
  readonly gateway: Gateway;
  readonly metrics: Metrics;
  readonly lifecycle: Lifecycle;
  /** This node's readiness checks (its store, chain, PostgreSQL and Redis: see ServiceRuntime.readiness). */
  readiness(): Promise<ReadinessChecks>;
  /** Starts live trading of the embedded market. */
  startLive(): void;
  close(): Promise<void>;
}

/** Paths the SPA fallback must never answer. */
const NON_SPA = /^\/(api|gw|udf|healthz|livez|readyz|metrics|__test__|docs|openapi\.json)(\/|$)/;

/**
 * Composes the server: the embedded data service (unless the gateway points at a remote upstream),
 * the gateway in front of it for the browser, and optionally the built SPA. The one module that sees
 * both the service and the gateway (eslint's zones): the gateway itself knows only its upstream.
 */
export async function createPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.hooks?.log;
  if (options.testControls && process.env.NODE_ENV === 'production') {
    throw new Error('Test controls can never be enabled in production (NODE_ENV=production).');
  }
  const remote = options.gateway.upstreamUrl;
  const metrics = options.metrics ?? createMetrics();
  const lifecycle = options.lifecycle ?? new Lifecycle();
  // A host that gives both has registered its lifecycle's metrics (it serves them while starting).
  if (options.metrics === undefined || options.lifecycle === undefined) lifecycle.register(metrics.registry);
  const runtime = remote === undefined ? await createServiceRuntime(options.service, { ...options.hooks, logRequests: false, metrics: metrics.registry }) : undefined;
  try {
    let upstream;
    if (remote !== undefined) {
      upstream = remoteUpstream(remote, options.gateway.upstreamApiKey ?? '');
    } else {
      if (!runtime) throw new Error('no embedded service');
      upstream = embeddedUpstream((request) => runtime.app.fetch(request), runtime.internalKey);
    }
    const gateway = createGateway({
      config: options.gateway,
      upstream,
      // An API node of a cluster: an address's REST budget is one across the nodes.
      ...(runtime?.sharedLimiter ? { addressLimiter: runtime.sharedLimiter } : {}),
      ...(log ? { log } : {}),
    });

    // An API node of a cluster that resynced after a gap tells its browsers through the gateway, as the
    // gateway tells them after a gap of its own upstream stream.
    const unwatch = runtime?.onStreamGap(() => gateway.upstreamStream.markMissed());

    // An ingest node serves no browser: its gateway stays idle, and out of the metrics.
    if (runtime?.config.role !== 'ingest') gatewayMetrics(metrics.registry, gateway);
    new Gauge({
      name: `${METRIC_PREFIX}node_info`,
      help: 'Always 1: what this process is, as labels (role: all, ingest, api or gateway; source of its market).',
      labelNames: ['role', 'source'],
      registers: [metrics.registry],
    }).set({ role: runtime ? runtime.config.role : 'gateway', source: runtime ? runtime.config.source : 'upstream' }, 1);
    const readiness = async (): Promise<ReadinessChecks> => (runtime ? runtime.readiness() : {});

    const app = new Hono({ strict: false });
    // Every answer: the app's page and files, /docs, the API, the gateway (src/node/security-headers.ts).
    app.use('*', securityHeaders());
    app.use('*', observeRequests({ ...(log ? { log } : {}), metrics: metrics.http, trustProxy: options.gateway.trustProxy }));
    // Probes and metrics on every role, never behind a key (docs/operations.md).
    app.route('/', operationsRoutes({ lifecycle, ...(options.serveMetrics === false ? {} : { registry: metrics.registry }) }));
    // A path under an API prefix that no part serves (e.g. /gw/healthz) is a 404 in the price family's
    // shape, like every other refusal there; anything else (a missing asset) stays a plain 404.
    app.notFound((c) => {
      if (!NON_SPA.test(c.req.path)) return c.text('Not Found', 404);
      const path = c.req.path.length > 200 ? `${c.req.path.slice(0, 200)}…` : c.req.path;
      return c.json({ s: 'error', errmsg: `Unknown endpoint: ${c.req.method} ${path}` }, 404);
    });
    if (runtime && runtime.config.role === 'ingest') {
      // The single writer of a cluster: health (and the test market control) only; API nodes serve the rest.
      app.all('/healthz', (c: Context) => runtime.app.fetch(c.req.raw, c.env));
    } else if (runtime) {
      // Handed over whole (not app.route, which drops the service's own 404/405 answers in its error shapes).
      const service = (c: Context) => runtime.app.fetch(c.req.raw, c.env);
      app.all('/api/v1/*', service);
      app.all('/api/v1', service);
      app.all('/api/x/*', service);
      app.all('/api/x', service);
      app.all('/udf/*', service);
      app.all('/udf', service);
      app.all('/healthz', service);
      app.get('/openapi.json', service);
      app.get('/docs', service);
      app.get('/docs/*', service);
    }
    if (runtime && options.testControls) {
      log?.('Test controls are ON: POST /__test__/block makes the market trade now. Never use this in production.', { level: 'warn' });
      app.post('/__test__/block', async (c) => {
        if (runtime.config.source !== 'simulated') return c.json({ s: 'error', errmsg: `The market's source is ${runtime.config.source}: there is no simulator to trade` }, 409);
        const query = parseBlockQuery(c.req.query('pool'), c.req.query('trades'));
        if ('errmsg' in query) return c.json({ s: 'error', errmsg: query.errmsg }, 400);
        const { target } = query;
        if (target && !runtime.simulator.trades(target.pool)) {
          const errmsg = runtime.market.pools.has(target.pool) ? `The simulator does not trade ${target.pool} (a pair with imported history)` : `Unknown pool ${target.pool}`;
          return c.json({ s: 'error', errmsg }, runtime.market.pools.has(target.pool) ? 409 : 404);
        }
        try {
          const trades = await runtime.simulator.forceBlock(Date.now() / 1000, target);
          return c.json({ trades, height: runtime.simulator.blockHeight });
        } catch (error) {
          // The block was not committed (a full disk, say): nothing of it happened.
          const errmsg = `The block could not be committed: ${error instanceof Error ? error.message : String(error)}`;
          log?.(`market: ${errmsg}`, { level: 'error' });
          return c.json({ s: 'error', errmsg }, 503);
        }
      });
    }
    if (remote !== undefined && options.testControls) {
      // Browser flows in remote mode drive the other server's market through this one.
      log?.(`Test controls are ON: POST /__test__/block is passed to the upstream (${redactUrl(remote)}). Never use this in production.`, { level: 'warn' });
      app.post('/__test__/block', async (c) => {
        try {
          // The query (a pool to trade, trades) goes along: the upstream's control reads it.
          const answer = await fetch(new URL(`/__test__/block${new URL(c.req.url).search}`, remote), { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(15_000) });
          return new Response(answer.body, { status: answer.status, headers: { 'Content-Type': answer.headers.get('Content-Type') ?? 'application/json' } });
        } catch (error) {
          return c.json({ s: 'error', errmsg: `The upstream's test control did not answer: ${redactError(error, [remote])}` }, 502);
        }
      });
    }
    // An ingest node serves no browser: no gateway, no app.
    const servesBrowser = runtime?.config.role !== 'ingest';
    // Compress gateway REST answers on the fly (the live SSE stream is never compressed).
    if (servesBrowser) {
      app.use(`${GATEWAY_PREFIX}/*`, async (c, next) => {
        if (c.req.path.startsWith(`${GATEWAY_PREFIX}/live`)) return next();
        return compress()(c, next);
      });
      app.route('/', gateway.app);
    }

    if (servesBrowser && options.staticDir !== undefined) {
      const root = resolve(options.staticDir);
      const indexFile = join(root, 'index.html');
      app.use('/assets/*', async (c, next) => {
        await next();
        if (c.res.status === 200) c.res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
      });
      // The app's page, with its skeleton and its first chart's bars (first-paint.ts). Loaded here only:
      // under Vite's servers (no static directory) the page is Vite's, and the app's code is not imported.
      const { firstPaintPage } = await import('./first-paint');
      const page = firstPaintPage({ indexFile, gateway, ...(log ? { log } : {}) });
      app.get('/', page);
      app.get('/index.html', page);
      // The build's .br/.gz files (vite.config.ts) when the browser accepts them.
      app.get('*', serveStatic({ root, precompressed: true }));
      app.get('*', (c) => {
        if (NON_SPA.test(c.req.path)) return c.notFound();
        return page(c);
      });
    }

    // Built: a platform that owns its lifecycle is ready now; a host that gave one says when.
    if (options.lifecycle === undefined) lifecycle.ready(readiness);
    return {
      app,
      runtime,
      gateway,
      metrics,
      lifecycle,
      readiness,
      startLive: () => runtime?.startLive(),
      close: async () => {
        unwatch?.();
        gateway.close();
        await runtime?.close();
      },
    };
  } catch (error) {
    await runtime?.close();
    throw error;
  }
}
