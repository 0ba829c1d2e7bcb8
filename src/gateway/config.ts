import { z } from 'zod';
import { NO_PROXY_TRUST, parseProxyTrust, type ProxyTrust } from '../node/client-address';
import { redactUrl } from '../shared/redact';

/** The gateway's configuration (environment variables; see the README's table). */
export interface GatewayConfig {
  /** Remote upstream service origin (e.g. the hosted API); unset = the embedded service in-process. */
  readonly upstreamUrl: string | undefined;
  /** API key for the remote upstream; the embedded service uses its own local key. */
  readonly upstreamApiKey: string | undefined;
  /** Pools one browser connection may subscribe to. */
  readonly maxPoolsPerConnection: number;
  /** Concurrent /gw/v1/live connections per client address. */
  readonly maxConnectionsPerAddress: number;
  /**
   * Share of the upstream pool budget (percent) one client address may follow: its distinct pools over
   * all its live connections, never less than one connection's worth (docs/gateway.md).
   */
  readonly addressSharePercent: number;
  /**
   * Reverse proxies whose forwarding header (`X-Forwarded-For`, or `Forwarded`) names the client
   * (TRUST_PROXY, TRUST_PROXY_HEADER); nobody by default: the client is the TCP peer.
   */
  readonly trustProxy: ProxyTrust;
  /** REST requests per minute per client address (0: no limit). */
  readonly requestsPerMinutePerAddress: number;
  /**
   * Whole-market answers (symbol_info, a group's list, spreads, liquidity, the token list) the gateway
   * may fetch per minute for one client address when its cache does not hold them (0: no limit).
   */
  readonly listRequestsPerMinutePerAddress: number;
  /**
   * Bytes of whole-market answers the gateway may send one client address per minute from its cache (the
   * answers' uncompressed size; 0: no limit): held answers cost nothing to build but each is a megabyte or more to
   * send, and a flood of them from a few addresses takes the machine from everyone else.
   */
  readonly listBytesPerMinutePerAddress: number;
  /** Server-rendered pages per minute per client address; past it, the page is sent as built (0: no limit). */
  readonly pageRendersPerMinutePerAddress: number;
  /** Pools the single upstream stream may carry (the upstream plan's limit). */
  readonly upstreamMaxPools: number;
  /** Seconds between heartbeats to browsers. */
  readonly heartbeatSeconds: number;
  /**
   * Rollback events to browsers at most one per this many ms: the rollbacks after the first in a window
   * are merged into one naming the deepest point (0: every rollback sent at once).
   */
  readonly rollbackWindowMs: number;
  /** Upstream silence (no ping, no event) after which the gateway reconnects. */
  readonly upstreamSilenceSeconds: number;
  /** Debounce of re-subscriptions when the union of pools changes. */
  readonly resubscribeDebounceMs: number;
  /** Reconnect backoff: first delay and cap (exponential with jitter, forever). */
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** Upstream REST timeout. */
  readonly upstreamTimeoutMs: number;
  /** Unread bytes a browser's live connection may hold before the gateway drops it. */
  readonly maxBufferedBytes: number;
  /** EventSource reconnect delay hint (`retry:`), ms. */
  readonly retryMs: number;
  /** After a re-subscription, how long the replaced upstream connection stays open for in-flight events, ms. */
  readonly handoverMs: number;
  /** How long the upstream subscription stays after the last browser leaves, ms. */
  readonly idleLingerMs: number;
  /**
   * Upstream requests per minute the gateway may spend deriving extension answers from spec endpoints
   * when the upstream lacks `/api/x` (spaced evenly; paused while less than half the upstream's
   * RateLimit-Limit remains, so browsers keep the other half).
   */
  readonly fallbackRequestsPerMinute: number;
  /** Pools per group whose TVL that derivation fetches (the broadest pairs). */
  readonly fallbackCandidatesPerGroup: number;
}

export const DEFAULT_GATEWAY_CONFIG: GatewayConfig = {
  upstreamUrl: undefined,
  upstreamApiKey: undefined,
  maxPoolsPerConnection: 50,
  maxConnectionsPerAddress: 20,
  addressSharePercent: 25,
  trustProxy: NO_PROXY_TRUST,
  requestsPerMinutePerAddress: 1200,
  listRequestsPerMinutePerAddress: 30,
  // About 25 loads a minute of the app's pages on the default market (some 10 MB of lists each, uncompressed).
  listBytesPerMinutePerAddress: 256 * 1024 * 1024,
  pageRendersPerMinutePerAddress: 60,
  upstreamMaxPools: 1000,
  heartbeatSeconds: 15,
  rollbackWindowMs: 1000,
  upstreamSilenceSeconds: 90,
  resubscribeDebounceMs: 200,
  backoffInitialMs: 1000,
  backoffMaxMs: 30_000,
  upstreamTimeoutMs: 15_000,
  maxBufferedBytes: 512 * 1024,
  retryMs: 3000,
  handoverMs: 1000,
  idleLingerMs: 30_000,
  fallbackRequestsPerMinute: 30,
  fallbackCandidatesPerGroup: 8,
};

const positiveInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .positive(`${name} must be positive`);

/** Reads the gateway's settings from the environment; throws an Error naming the bad variable. */
export function parseGatewayConfig(env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const parsed = positiveInt(name).safeParse(raw);
    if (!parsed.success) throw new Error(`${name}: ${parsed.error.issues[0]?.message ?? 'invalid'} (got "${raw}")`);
    return parsed.data;
  };
  const readOrZero = (name: string, fallback: number): number => (env[name] === '0' ? 0 : read(name, fallback));
  const upstreamUrl = env.UPSTREAM_URL?.trim() || undefined;
  if (upstreamUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(upstreamUrl);
    } catch {
      throw new Error(
        `UPSTREAM_URL must be an http(s) URL such as https://api.example.com (got "${redactUrl(upstreamUrl)}")`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('UPSTREAM_URL must use http or https');
    // fetch refuses credentials in a URL, and a query or fragment would end up inside every request path.
    if (
      url.username !== '' ||
      url.password !== '' ||
      url.search !== '' ||
      url.hash !== '' ||
      /[?#]/.test(upstreamUrl)
    ) {
      throw new Error(
        'UPSTREAM_URL must be an origin with an optional path, without credentials, query or fragment (the key goes in UPSTREAM_API_KEY)',
      );
    }
    if (!env.UPSTREAM_API_KEY) throw new Error('UPSTREAM_API_KEY is required with UPSTREAM_URL');
  }
  const d = DEFAULT_GATEWAY_CONFIG;
  const share = read('GATEWAY_ADDRESS_SHARE_PERCENT', d.addressSharePercent);
  if (share > 100)
    throw new Error(
      `GATEWAY_ADDRESS_SHARE_PERCENT must be a percentage, 1-100 (got "${env.GATEWAY_ADDRESS_SHARE_PERCENT}")`,
    );
  const header = (env.TRUST_PROXY_HEADER ?? '').trim().toLowerCase() || 'x-forwarded-for';
  if (header !== 'x-forwarded-for' && header !== 'forwarded') {
    throw new Error(
      `TRUST_PROXY_HEADER must be x-forwarded-for or forwarded: the header your proxy sets (got "${env.TRUST_PROXY_HEADER?.slice(0, 100)}")`,
    );
  }
  return {
    upstreamUrl: upstreamUrl?.replace(/\/+$/, ''),
    upstreamApiKey: env.UPSTREAM_API_KEY || undefined,
    maxPoolsPerConnection: read('GATEWAY_MAX_POOLS_PER_CONNECTION', d.maxPoolsPerConnection),
    maxConnectionsPerAddress: read('GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', d.maxConnectionsPerAddress),
    addressSharePercent: share,
    trustProxy: parseProxyTrust(env.TRUST_PROXY, header),
    requestsPerMinutePerAddress: readOrZero('GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS', d.requestsPerMinutePerAddress),
    listRequestsPerMinutePerAddress: readOrZero(
      'GATEWAY_LIST_REQUESTS_PER_MINUTE_PER_ADDRESS',
      d.listRequestsPerMinutePerAddress,
    ),
    listBytesPerMinutePerAddress: readOrZero(
      'GATEWAY_LIST_BYTES_PER_MINUTE_PER_ADDRESS',
      d.listBytesPerMinutePerAddress,
    ),
    pageRendersPerMinutePerAddress: readOrZero('PAGE_RENDERS_PER_MINUTE_PER_ADDRESS', d.pageRendersPerMinutePerAddress),
    upstreamMaxPools: read('GATEWAY_UPSTREAM_MAX_POOLS', d.upstreamMaxPools),
    heartbeatSeconds: read('GATEWAY_HEARTBEAT_SECONDS', d.heartbeatSeconds),
    rollbackWindowMs: readOrZero('GATEWAY_ROLLBACK_WINDOW_MS', d.rollbackWindowMs),
    upstreamSilenceSeconds: read('GATEWAY_UPSTREAM_SILENCE_SECONDS', d.upstreamSilenceSeconds),
    resubscribeDebounceMs: read('GATEWAY_RESUBSCRIBE_DEBOUNCE_MS', d.resubscribeDebounceMs),
    backoffInitialMs: read('GATEWAY_BACKOFF_INITIAL_MS', d.backoffInitialMs),
    backoffMaxMs: read('GATEWAY_BACKOFF_MAX_MS', d.backoffMaxMs),
    upstreamTimeoutMs: read('GATEWAY_UPSTREAM_TIMEOUT_MS', d.upstreamTimeoutMs),
    maxBufferedBytes: read('GATEWAY_MAX_BUFFERED_BYTES', d.maxBufferedBytes),
    retryMs: read('GATEWAY_RETRY_MS', d.retryMs),
    handoverMs: read('GATEWAY_HANDOVER_MS', d.handoverMs),
    idleLingerMs: read('GATEWAY_IDLE_LINGER_MS', d.idleLingerMs),
    fallbackRequestsPerMinute: read('GATEWAY_FALLBACK_REQUESTS_PER_MINUTE', d.fallbackRequestsPerMinute),
    fallbackCandidatesPerGroup: read('GATEWAY_FALLBACK_CANDIDATES', d.fallbackCandidatesPerGroup),
  };
}
