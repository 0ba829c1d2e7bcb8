import { Hono } from 'hono';
import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX, metricsResponse } from '../node/metrics';
import { familyError, familyOf } from '../service/http/errors';
import type { ReadinessChecks, StartupProgress } from '../service/service-runtime';

/**
 * What an orchestrator and a load balancer ask of a server (docs/operations.md): `/livez` (the process
 * answers), `/readyz` (send it traffic: started, not draining, and its node's checks pass) and
 * `/metrics` (Prometheus), on every role, never behind the API key.
 */

export type Phase = 'starting' | 'ready' | 'draining';

/** The readiness answer: ready or not, the phase, and each check's `ok` or why not. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly phase: Phase;
  readonly checks: ReadinessChecks;
}

const PHASES = ['backfill', 'catch-up', 'bars'] as const;

/**
 * A server's life: starting (the market being created, backfilled or caught up; the port already
 * answers probes), ready (serving; its node's own checks decide), draining (a SIGTERM came: not ready,
 * still serving, until the drain time is over and it stops).
 */
export class Lifecycle {
  private current: Phase = 'starting';
  private progress: StartupProgress | undefined;
  private nodeChecks: (() => Promise<ReadinessChecks>) | undefined;
  /** The start's phases reached so far, and how far each came (0..1). */
  private readonly ratios = new Map<StartupProgress['phase'], number>();

  get phase(): Phase {
    return this.current;
  }

  /** How far the start has come (the runtime's `onProgress`). */
  onProgress(progress: StartupProgress): void {
    this.progress = progress;
    this.ratios.set(progress.phase, progress.total > 0 ? Math.min(1, progress.done / progress.total) : 1);
  }

  /** Started: from now the node's checks decide. */
  ready(checks: () => Promise<ReadinessChecks>): void {
    this.nodeChecks = checks;
    for (const phase of this.ratios.keys()) this.ratios.set(phase, 1);
    if (this.current === 'starting') this.current = 'ready';
  }

  /** Stopping: not ready any more, while still serving. */
  drain(): void {
    this.current = 'draining';
  }

  /** Where the start is, in words (for /readyz and /healthz while starting). */
  startupText(): string {
    const p = this.progress;
    if (!p) return 'starting: opening the store';
    return `starting: ${p.phase} ${Math.floor((Math.min(p.done, p.total) / Math.max(1, p.total)) * 100)}% (${p.trades} trades)`;
  }

  async readiness(): Promise<ReadinessReport> {
    const phase = this.current;
    if (phase === 'starting' || !this.nodeChecks)
      return { ready: false, phase, checks: { startup: this.startupText() } };
    const checks = { ...(await this.nodeChecks()) };
    if (phase === 'draining') checks.drain = 'draining before shutdown';
    return { ready: phase === 'ready' && Object.values(checks).every((v) => v === 'ok'), phase, checks };
  }

  /** `cdx_ready` and `cdx_startup_progress_ratio` on `registry`. */
  register(registry: Registry): void {
    const ready: Gauge = new Gauge({
      name: `${METRIC_PREFIX}ready`,
      help: 'Whether /readyz answers ready (1) or not (0): starting, draining, or a check failing.',
      registers: [registry],
      collect: async () => {
        ready.set((await this.readiness()).ready ? 1 : 0);
      },
    });
    const progress: Gauge<'phase'> = new Gauge({
      name: `${METRIC_PREFIX}startup_progress_ratio`,
      help: 'How far each phase of the start has come (0 to 1): backfill or catch-up of the simulated market, then building bars.',
      labelNames: ['phase'],
      registers: [registry],
      collect: () => {
        progress.reset();
        for (const phase of PHASES) {
          const ratio = this.ratios.get(phase);
          if (ratio !== undefined) progress.set({ phase }, ratio);
        }
      },
    });
  }
}

export interface OperationsOptions {
  readonly lifecycle: Lifecycle;
  /** Serve `/metrics` from this registry (absent: it is served elsewhere, `--metrics-port`, or not at all). */
  readonly registry?: Registry;
}

/** `/livez`, `/readyz` and (unless moved) `/metrics`. */
export function operationsRoutes(options: OperationsOptions): Hono {
  const app = new Hono({ strict: false });
  app.get('/livez', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ status: 'ok' });
  });
  app.get('/readyz', async (c) => {
    const report = await options.lifecycle.readiness();
    c.header('Cache-Control', 'no-store');
    return c.json(report, report.ready ? 200 : 503);
  });
  const registry = options.registry;
  if (registry) app.get('/metrics', () => metricsResponse(registry));
  return app;
}

/** Paths answered by the API's error shapes while starting. */
const API_PATHS = /^\/(api|gw|udf)(\/|$)/;

/**
 * The whole server while it starts (the port is taken at once, so an orchestrator's probes get an
 * answer during a backfill of seconds or a catch-up of minutes): the probes, the metrics, `/healthz`
 * as 503 with the start's progress, and 503 with `Retry-After` for everything else, in the API
 * family's error shape where there is one.
 */
export function startingRoutes(lifecycle: Lifecycle): Hono {
  const app = new Hono({ strict: false });
  app.get('/healthz', (c) => c.json({ status: 'starting', progress: lifecycle.startupText() }, 503));
  app.all('*', (c) => {
    c.header('Retry-After', '5');
    const message = `The server is starting (${lifecycle.startupText()}); retry in a few seconds`;
    if (API_PATHS.test(c.req.path))
      return familyError(c, familyOf(c.req.path), 503, message, { loc: [], type: 'service_unavailable' });
    return c.text(message, 503);
  });
  return app;
}
