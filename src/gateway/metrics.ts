import type { Registry } from 'prom-client';
import { METRIC_PREFIX as P, scrapedCounter, scrapedGauge } from '../node/metrics';
import type { Gateway } from './gateway';

/**
 * The gateway's Prometheus metrics (docs/operations.md), read from its parts when Prometheus scrapes:
 * browsers' live connections and what reached them, its one upstream stream, its per-address limit.
 */
export function gatewayMetrics(registry: Registry, gateway: Gateway): void {
  const { hub, upstreamStream } = gateway;
  scrapedGauge(
    registry,
    `${P}gateway_live_connections`,
    'Open browser live connections (/gw/v1/live).',
    [],
    () => hub.size,
  );
  scrapedCounter(
    registry,
    `${P}gateway_events_delivered_total`,
    'Trade events written to browser live connections (one per event and connection).',
    [],
    () => hub.delivered,
  );
  scrapedCounter(
    registry,
    `${P}gateway_events_dropped_total`,
    'Trade events a browser connection could not take: it was dropped for not reading.',
    [],
    () => hub.dropped,
  );
  scrapedCounter(
    registry,
    `${P}gateway_slow_consumers_dropped_total`,
    'Browser live connections dropped for leaving too many bytes unread.',
    [],
    () => hub.slowConsumers,
  );
  scrapedCounter(
    registry,
    `${P}gateway_rollbacks_received_total`,
    'Chain rollbacks the gateway took from its upstream (copies brought by a second connection left out).',
    [],
    () => hub.rollbacksReceived,
  );
  scrapedCounter(
    registry,
    `${P}gateway_rollback_events_total`,
    'Rollback events sent to the browsers: rollbacks within a window merged into one naming the deepest point.',
    [],
    () => hub.rollbackEvents,
  );
  scrapedGauge(
    registry,
    `${P}gateway_upstream_up`,
    "1 while the gateway's upstream stream is not down (live, switching, or idle with no browser).",
    [],
    () => (upstreamStream.isDown ? 0 : 1),
  );
  scrapedGauge(
    registry,
    `${P}gateway_upstream_pools`,
    "Pools the gateway's live upstream subscription carries.",
    [],
    () => upstreamStream.livePools?.size ?? 0,
  );
  scrapedCounter(
    registry,
    `${P}gateway_rate_limit_refusals_total`,
    "REST requests refused (429) for being over their client address's budget.",
    [],
    () => gateway.addressRefusals,
  );
  scrapedCounter(
    registry,
    `${P}gateway_list_limit_refusals_total`,
    "Whole-market answers refused (429) for being over their client address's list budget (answers the gateway had to fetch).",
    [],
    () => gateway.listRefusals,
  );
}
