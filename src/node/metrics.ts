import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of a server process (prom-client): one registry per process (per platform in
 * tests), holding Node's default process metrics, the HTTP metrics below, and what the service and the
 * gateway register on it. Every label takes values from a bounded set (route templates, methods,
 * statuses, plan names, DEX groups): never a raw URL, a key or anything else a client chooses.
 */

/** Prefix of our own metrics (Node's defaults keep their standard `process_` and `nodejs_` names). */
export const METRIC_PREFIX = 'cdx_';

/** Seconds: from a millisecond cache hit to a 10 s stall. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Methods counted by name; anything else a client sends is `other` (the label set stays bounded). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** HTTP requests by route template and status, with their latency. */
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time to answer an HTTP request (for a stream, until its response starts), by method and route template.',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'other';
    this.requests.inc({ method: m, route, status: String(status) });
    this.duration.observe({ method: m, route }, seconds);
  }
}

/** A process's metrics: the registry, and the HTTP metrics every app of the process records into. */
export interface Metrics {
  readonly registry: Registry;
  readonly http: HttpMetrics;
}

/** A registry with Node's default process metrics and the HTTP metrics. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return { registry, http: new HttpMetrics(registry) };
}

/** Label values of a metric and its value. */
export type Sample<L extends string> = readonly [Partial<Record<L, string>>, number];

/**
 * A counter whose total is kept by the object that counts (a plain number, cheap on a hot path) and
 * read when Prometheus scrapes: `read` gives the total (or the totals by labels) since the process
 * started, and the counter shows exactly that.
 */
export function scrapedCounter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => number | Iterable<Sample<L>>,
): Counter<L> {
  return new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      const value = read();
      // prom-client counters only go up: the kept total is set by starting from zero at each scrape.
      this.reset();
      if (typeof value === 'number') this.inc(value);
      else for (const [labels, n] of value) this.inc(labels, n);
    },
  });
}

/** A gauge read when Prometheus scrapes (`undefined`: not known yet, shown as NaN, which no comparison matches). */
export function scrapedGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => number | undefined | Iterable<Sample<L>>,
): Gauge<L> {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      const value = read();
      this.reset();
      if (value === undefined) {
        if (labelNames.length === 0) this.set(Number.NaN);
      } else if (typeof value === 'number') this.set(value);
      else for (const [labels, n] of value) this.set(labels, n);
    },
  });
}

/** The registry in Prometheus' text format, as an HTTP answer. */
export async function metricsResponse(registry: Registry): Promise<Response> {
  return new Response(await registry.metrics(), {
    headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' },
  });
}

export { LATENCY_BUCKETS };
