import { Hono, type Context } from 'hono';
import type { PriceError } from '../shared/api/errors';
import { GATEWAY_PREFIX, gatewayInfoSchema, type GatewayInfo, type GatewayLiquidity, type GatewayTokenInfo, type GatewayTokenNames } from '../shared/api/gateway';
import { symbolInfoResponseSchema } from '../shared/api/symbol-info';
import type { GatewayConfig } from './config';
import { LiveHub } from './live/live-hub';
import { liveRoutes } from './live/live-route';
import { UpstreamStream } from './live/upstream-stream';
import { restRoutes } from './rest';
import { publicUpstreamUrl, type Upstream } from './upstream';

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly upstream: Upstream;
  /** True when the upstream is the embedded market simulator. */
  readonly simulated: boolean;
  readonly log?: (line: string) => void;
  /** The browser's address (for per-address limits); default: the socket's remote address. */
  readonly clientAddress?: (c: Context) => string;
  /** TVL per symbol of a group (embedded market only); undefined for an unknown or missing group. */
  readonly liquidity?: (group: string | undefined) => GatewayLiquidity | undefined;
  /** A token's metadata (embedded market only); undefined for an unknown token. */
  readonly tokenInfo?: (unit: string) => GatewayTokenInfo | undefined;
  /** The deepest pool ID of each group (embedded market only), for /info. */
  readonly deepest?: () => Record<string, string>;
  /** Every token's name at once (embedded market only), for search. */
  readonly tokenNames?: () => GatewayTokenNames;
}

export interface Gateway {
  /** The gateway's routes, under /gw/v1. */
  readonly app: Hono;
  readonly hub: LiveHub;
  readonly upstreamStream: UpstreamStream;
  close(): void;
}

const AGGREGATE_TTL_MS = 60_000;

/** The gateway's own GET routes below (relative to /gw/v1): other methods there are a 405, not a 404. */
const OWN_PATHS: readonly RegExp[] = [/^\/info\/?$/, /^\/liquidity\/?$/, /^\/token-info(\/[^/]+)?\/?$/, /^\/live\/?$/];

/** Socket address of a request served by @hono/node-server (or 'local' in-process). */
function socketAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/** The browser-facing gateway: REST forwarding with the key added, the live SSE multiplexer, /info. */
export function createGateway(options: GatewayOptions): Gateway {
  const { config, upstream, log } = options;
  const hub = new LiveHub((pools) => upstreamStream.setPools(pools), { upstreamMaxPools: config.upstreamMaxPools });
  const upstreamStream = new UpstreamStream(
    {
      upstream,
      silenceMs: config.upstreamSilenceSeconds * 1000,
      debounceMs: config.resubscribeDebounceMs,
      backoffInitialMs: config.backoffInitialMs,
      backoffMaxMs: config.backoffMaxMs,
      handoverMs: config.handoverMs,
      idleLingerMs: config.idleLingerMs,
      ...(log ? { log } : {}),
    },
    hub,
  );

  let aggregates: { pools: ReadonlySet<string>; until: number } | undefined;
  let loading: Promise<ReadonlySet<string>> | undefined;
  const aggregatePools = async (): Promise<ReadonlySet<string>> => {
    if (aggregates && aggregates.until > Date.now()) return aggregates.pools;
    loading ??= (async () => {
      try {
        const response = await upstream.fetch('/api/v1/symbol_info?group=Aggregate', { signal: AbortSignal.timeout(config.upstreamTimeoutMs) });
        if (!response.ok) throw new Error(`symbol_info answered ${response.status}`);
        const body = symbolInfoResponseSchema.parse(await response.json());
        const pools = new Set(body.ticker.map((t) => t.toLowerCase()));
        aggregates = { pools, until: Date.now() + AGGREGATE_TTL_MS };
        return pools;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };

  const shownUpstream = upstream.origin === undefined ? undefined : publicUpstreamUrl(upstream.origin);
  const info = (): GatewayInfo =>
    gatewayInfoSchema.parse({
      source: upstream.kind,
      simulated: options.simulated,
      ...(shownUpstream ? { upstream: shownUpstream } : {}),
      heartbeatSeconds: config.heartbeatSeconds,
      maxPoolsPerConnection: config.maxPoolsPerConnection,
      time: Math.floor(Date.now() / 1000),
      ...(options.deepest ? { deepest: options.deepest() } : {}),
    });

  const app = new Hono({ strict: false }).basePath(GATEWAY_PREFIX);
  app.get('/info', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(info());
  });
  app.get('/liquidity', (c) => {
    if (!options.liquidity) {
      const body: PriceError = { s: 'error', errmsg: 'Liquidity is only known for the embedded market' };
      return c.json(body, 404);
    }
    const group = c.req.query('group');
    if (group === undefined || group === '') {
      const body: PriceError = { s: 'error', errmsg: 'group is required' };
      return c.json(body, 400);
    }
    const answer = options.liquidity(group);
    if (!answer) {
      const body: PriceError = { s: 'error', errmsg: `Unknown group: ${group}` };
      return c.json(body, 404);
    }
    c.header('Cache-Control', 'private, max-age=30');
    return c.json(answer);
  });
  app.get('/token-info', (c) => {
    if (!options.tokenNames) {
      const body: PriceError = { s: 'error', errmsg: 'Token metadata is only known for the embedded market' };
      return c.json(body, 404);
    }
    c.header('Cache-Control', 'private, max-age=3600');
    return c.json(options.tokenNames());
  });
  app.get('/token-info/:unit', (c) => {
    const unit = c.req.param('unit').toLowerCase();
    const info = options.tokenInfo?.(unit);
    if (!info) {
      const body: PriceError = { s: 'error', errmsg: options.tokenInfo ? `Unknown token: ${unit}` : 'Token metadata is only known for the embedded market' };
      return c.json(body, 404);
    }
    c.header('Cache-Control', 'private, max-age=3600');
    return c.json(info);
  });
  app.route(
    '/',
    liveRoutes({
      hub,
      maxPoolsPerConnection: config.maxPoolsPerConnection,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      heartbeatSeconds: config.heartbeatSeconds,
      maxBufferedBytes: config.maxBufferedBytes,
      retryMs: config.retryMs,
      aggregatePools,
      clientAddress: options.clientAddress ?? socketAddress,
    }),
  );
  app.route('/', restRoutes({ upstream, timeoutMs: config.upstreamTimeoutMs, ownPaths: OWN_PATHS }));

  return {
    app,
    hub,
    upstreamStream,
    close: () => {
      upstreamStream.close();
      hub.closeAll();
    },
  };
}
