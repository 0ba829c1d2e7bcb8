import { Hono } from 'hono';
import { Gauge } from 'prom-client';
import { createMetrics, METRIC_PREFIX, type Metrics } from '../node/metrics';
import { observeRequests } from '../node/request-observer';
import { createServiceRuntime } from '../service/runtime';
import type { ReadinessChecks, RuntimeHooks, ServiceRuntime } from '../service/service-runtime';
import { securityHeaders } from '../node/security-headers';
import { clientKey } from '../node/client-address';
import { memoryBudgets } from '../node/rate-limits';
import type { ServiceConfig } from '../service/config';
import type { GatewayConfig } from '../gateway/config';
import { createGateway, type Gateway } from '../gateway/gateway';
import { gatewayMetrics } from '../gateway/metrics';
import { Lifecycle, operationsRoutes } from './operations';
import { embeddedUpstream, remoteUpstream } from '../gateway/upstream';
import { gatewayRoutes, NON_PAGE, serviceRoutes } from './routes';
import { staticApp } from './static-app';
import { marketTestControls, refuseTestControlsInProduction, upstreamTestControls } from './test-controls';

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

/**
 * Composes the server: the embedded data service (unless the gateway points at a remote upstream),
 * the gateway in front of it for the browser, and optionally the built SPA. The one module that sees
 * both the service and the gateway (eslint's zones): the gateway itself knows only its upstream.
 */
export async function createPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.hooks?.log;
  if (options.testControls) refuseTestControlsInProduction();
  const remote = options.gateway.upstreamUrl;
  const metrics = options.metrics ?? createMetrics();
  const lifecycle = options.lifecycle ?? new Lifecycle();
  // A host that gives both has registered its lifecycle's metrics (it serves them while starting).
  if (options.metrics === undefined || options.lifecycle === undefined) lifecycle.register(metrics.registry);
  const runtime =
    remote === undefined
      ? await createServiceRuntime(options.service, { ...options.hooks, logRequests: false, metrics: metrics.registry })
      : undefined;
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
    }).set(
      { role: runtime ? runtime.config.role : 'gateway', source: runtime ? runtime.config.source : 'upstream' },
      1,
    );
    const readiness = async (): Promise<ReadinessChecks> => (runtime ? runtime.readiness() : {});

    const app = new Hono({ strict: false });
    // Every answer: the app's page and files, /docs, the API, the gateway (src/node/security-headers.ts).
    app.use('*', securityHeaders());
    app.use(
      '*',
      observeRequests({ ...(log ? { log } : {}), metrics: metrics.http, trustProxy: options.gateway.trustProxy }),
    );
    // Probes and metrics on every role, never behind a key (docs/operations.md).
    app.route(
      '/',
      operationsRoutes({ lifecycle, ...(options.serveMetrics === false ? {} : { registry: metrics.registry }) }),
    );
    // A path under an API prefix that no part serves (e.g. /gw/healthz) is a 404 in the price family's
    // shape, like every other refusal there; anything else (a missing asset) stays a plain 404.
    app.notFound((c) => {
      if (!NON_PAGE.test(c.req.path)) return c.text('Not Found', 404);
      const path = c.req.path.length > 200 ? `${c.req.path.slice(0, 200)}…` : c.req.path;
      return c.json({ s: 'error', errmsg: `Unknown endpoint: ${c.req.method} ${path}` }, 404);
    });
    if (runtime) app.route('/', serviceRoutes(runtime));
    if (options.testControls && runtime) app.route('/', marketTestControls(runtime, log));
    if (options.testControls && remote !== undefined) app.route('/', upstreamTestControls(remote, log));
    // An ingest node serves no browser: no gateway, no app.
    if (runtime?.config.role !== 'ingest') {
      app.route('/', gatewayRoutes(gateway));
      if (options.staticDir !== undefined) {
        const trust = options.gateway.trustProxy;
        app.route(
          '/',
          await staticApp({
            dir: options.staticDir,
            gateway,
            ...(log ? { log } : {}),
            // The gateway's rule of who a client is; in a cluster, one budget across the API nodes.
            budget: {
              perMinute: options.gateway.pageRendersPerMinutePerAddress,
              clientAddress: (c) => clientKey(c.env, (name) => c.req.header(name), trust),
              limiter: runtime?.sharedLimiter ?? memoryBudgets('page'),
            },
          }),
        );
      }
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
