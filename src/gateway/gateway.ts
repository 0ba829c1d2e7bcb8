import { addressListBudget, addressListBytesBudget, addressRateLimit } from './address-limit';
import { redactedLog, type LogHook } from '../node/log';
import type { RequestLimiter } from '../node/rate-limits';
import { clientKey } from '../node/client-address';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono, type Context } from 'hono';
import {
  deepestSchema,
  EXTENSION_PREFIX,
  EXTENSION_ROUTES,
  marketSourceResponseSchema,
  type DataSource,
} from '../shared/api/extensions';
import { groupStatsQuerySchema, spreadsQuerySchema } from '../shared/api/queries';
import { gatewayInfoSchema, type GatewayInfo } from '../shared/api/gateway';
import { GATEWAY_PREFIX } from '../shared/api/gateway-prefix';
import { symbolInfoResponseSchema } from '../shared/api/symbol-info';
import { isTokenUnit } from '../shared/id-rules';
import type { GatewayConfig } from './config';
import { PacedUpstream } from './derive/paced-upstream';
import { SpecDerivation } from './derive/spec-derivation';
import { extensionRoutes, UpstreamExtensions, type GatewayExtension } from './extensions';
import { Forwarder, gatewayError, type CacheRule } from './forward';
import { LiveHub } from './live/live-hub';
import { liveRoutes } from './live/live-route';
import { UpstreamStream } from './live/upstream-stream';
import { groupKey, restRoutes } from './rest';
import { UDF_GATEWAY_PATH, udfRoutes } from './udf';
import { redactUrl, textRedactor } from '../shared/redact';
import type { Upstream } from './upstream';

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly upstream: Upstream;
  readonly log?: LogHook;
  /**
   * The key of a browser's per-address limits; default: its client address (the socket's peer, or what
   * a trusted proxy says: `config.trustProxy`) by `addressKey` (an IPv6 address by its /64).
   */
  readonly clientAddress?: (c: Context) => string;
  /**
   * Budgets of the per-address REST limit: this process's by default; a cluster's API node passes its
   * shared ones, so an address has one budget across the nodes behind a load balancer.
   */
  readonly addressLimiter?: RequestLimiter;
}

export interface Gateway {
  /** The gateway's routes, under /gw/v1. */
  readonly app: Hono;
  readonly hub: LiveHub;
  readonly upstreamStream: UpstreamStream;
  /** The gateway's own paced upstream requests (deriving extension answers over an upstream without them). */
  readonly paced: PacedUpstream;
  /** /gw/v1/info's answer (the page's HTML carries it too: src/server/platform.ts). */
  info(): Promise<GatewayInfo>;
  /** REST requests refused for being over their client address's budget, since start (metrics). */
  readonly addressRefusals: number;
  /** Whole-market answers refused for being over their client address's list budget, since start (metrics). */
  readonly listRefusals: number;
  close(): void;
}

const AGGREGATE_TTL_MS = 60_000;
/** The upstream's data source is asked again after this long (the chain's lag moves; /info is asked on every page load). */
const MARKET_SOURCE_TTL_MS = 5_000;
/** How long /info waits for the deepest pools before answering without them. */
const INFO_DEEPEST_WAIT_MS = 3000;

/** Held upstream answers a chain rollback changes: symbol_info (pools, pricescales) and the whole-market lists. */
const PRICED_ANSWERS = /^\/api\/(v1\/symbol_info|x\/(group-stats|spreads|liquidity|deepest))(\?|$)/;

/** The gateway's own GET routes below (relative to /gw/v1): other methods there are a 405, not a 404. */
const OWN_PATHS: readonly RegExp[] = [
  /^\/info\/?$/,
  /^\/liquidity\/?$/,
  /^\/group-stats\/?$/,
  /^\/token-info(\/[^/]+)?\/?$/,
  /^\/live\/?$/,
  UDF_GATEWAY_PATH,
];

/** The browser-facing gateway: REST forwarding with the key added, the live SSE multiplexer, /info. */
export function createGateway(options: GatewayOptions): Gateway {
  const { config, upstream } = options;
  // What the gateway logs passes without the upstream's address (its host or path may be a tenant's secret).
  const redact = textRedactor([upstream.origin]);
  const log = options.log ? redactedLog(options.log, redact) : undefined;
  const hub = new LiveHub((pools) => upstreamStream.setPools(pools), {
    upstreamMaxPools: config.upstreamMaxPools,
    addressSharePercent: config.addressSharePercent,
    maxPoolsPerConnection: config.maxPoolsPerConnection,
    rollbackWindowMs: config.rollbackWindowMs,
    // A rollback (merged: at most one a window) drops the held answers that carry prices or may name a
    // pool it deleted; the groups, logos, token names and UDF configuration stand.
    onRollbackSent: () => forwarder.forget((target) => PRICED_ANSWERS.test(target)),
    // A change of token metadata (names, tickers, decimals) may change any answer held: all of them go.
    onMetadataSent: () => forwarder.forget(() => true),
  });
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
        const response = await upstream.fetch('/api/v1/symbol_info?group=Aggregate', {
          signal: AbortSignal.timeout(config.upstreamTimeoutMs),
        });
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

  const forwarder = new Forwarder({ upstream, timeoutMs: config.upstreamTimeoutMs });
  const extensions = new UpstreamExtensions(forwarder);
  const paced = new PacedUpstream({
    upstream,
    requestsPerMinute: config.fallbackRequestsPerMinute,
    timeoutMs: config.upstreamTimeoutMs,
    ...(log ? { log } : {}),
  });
  const derivation = new SpecDerivation(paced, {
    candidatesPerGroup: config.fallbackCandidatesPerGroup,
    catalogTtlMs: 10 * 60_000,
    tvlTtlMs: 10 * 60_000,
    ...(log ? { log } : {}),
  });

  /** Each group's deepest pool: the upstream's /api/x/deepest, else what the derivation knows so far. */
  const deepest = async (): Promise<Record<string, string> | undefined> => {
    try {
      if (!(await extensions.has(EXTENSION_ROUTES.deepest))) return derivation.deepest();
      // Held 10 s, then sent up to 50 s more while refreshed behind it (CacheRule.staleMs): a group's
      // deepest pool seldom changes, and a page opened on a group's first chart waits for it.
      const { answer } = await forwarder.buffered(`${EXTENSION_PREFIX}/${EXTENSION_ROUTES.deepest}`, 10_000, 50_000);
      if (answer.status !== 200) return undefined;
      return deepestSchema.parse(JSON.parse(new TextDecoder().decode(answer.body))).deepest;
    } catch {
      return undefined;
    }
  };
  /** Where the upstream's trades come from (its /api/x/market), when it says: the same over any upstream. */
  let marketSource: { value: DataSource | undefined; until: number } | undefined;
  const market = async (): Promise<DataSource | undefined> => {
    if (marketSource && marketSource.until > Date.now()) return marketSource.value;
    let value: DataSource | undefined;
    try {
      if (await extensions.has(EXTENSION_ROUTES.market)) {
        const { answer } = await forwarder.buffered(`${EXTENSION_PREFIX}/${EXTENSION_ROUTES.market}`, 5_000);
        if (answer.status === 200) {
          const { s: _ok, ...source } = marketSourceResponseSchema.parse(
            JSON.parse(new TextDecoder().decode(answer.body)),
          );
          value = source;
        }
      }
    } catch {
      value = undefined;
    }
    marketSource = { value, until: Date.now() + MARKET_SOURCE_TTL_MS };
    return value;
  };
  const shownUpstream = upstream.origin === undefined ? undefined : redactUrl(upstream.origin);
  const info = async (): Promise<GatewayInfo> => {
    const stop = new AbortController();
    const late = sleep(INFO_DEEPEST_WAIT_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    const [groups, source] = await Promise.all([
      Promise.race([deepest(), late]),
      Promise.race([market(), late]),
    ]).finally(() => stop.abort());
    return gatewayInfoSchema.parse({
      source: upstream.kind,
      simulated: source?.source === 'simulated',
      ...(shownUpstream ? { upstream: shownUpstream } : {}),
      heartbeatSeconds: config.heartbeatSeconds,
      maxPoolsPerConnection: config.maxPoolsPerConnection,
      time: Math.floor(Date.now() / 1000),
      ...(groups && Object.keys(groups).length > 0 ? { deepest: groups } : {}),
      ...(source ? { market: source } : {}),
    });
  };

  const app = new Hono({ strict: false }).basePath(GATEWAY_PREFIX);
  const clientAddress =
    options.clientAddress ?? ((c: Context) => clientKey(c.env, (name) => c.req.header(name), config.trustProxy));
  let addressRefusals = 0;
  let listRefusals = 0;
  const chargeList = addressListBudget({
    requestsPerMinute: config.listRequestsPerMinutePerAddress,
    clientAddress,
    ...(options.addressLimiter ? { limiter: options.addressLimiter } : {}),
    onRefused: () => listRefusals++,
  });
  const chargeListBytes = addressListBytesBudget({
    bytesPerMinute: config.listBytesPerMinutePerAddress,
    clientAddress,
    ...(options.addressLimiter ? { limiter: options.addressLimiter } : {}),
    onRefused: () => listRefusals++,
  });
  if (config.requestsPerMinutePerAddress > 0) {
    app.use(
      '*',
      addressRateLimit({
        requestsPerMinute: config.requestsPerMinutePerAddress,
        clientAddress,
        ...(options.addressLimiter ? { limiter: options.addressLimiter } : {}),
        onRefused: () => addressRefusals++,
      }),
    );
  }
  app.get('/info', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await info());
  });
  app.route(
    '/',
    extensionRoutes({
      forwarder,
      extensions,
      routes: gatewayExtensions(derivation, forwarder),
      chargeList,
      chargeListBytes,
    }),
  );
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
      clientAddress,
    }),
  );
  app.route('/', udfRoutes(forwarder));
  app.route('/', restRoutes({ forwarder, ownPaths: OWN_PATHS, chargeList, chargeListBytes }));

  return {
    app,
    hub,
    upstreamStream,
    paced,
    info,
    get addressRefusals() {
      return addressRefusals;
    },
    get listRefusals() {
      return listRefusals;
    },
    close: () => {
      paced.close();
      upstreamStream.close();
      hub.closeAll();
    },
  };
}

/**
 * The extension routes the gateway serves under /gw/v1 (see GatewayExtension): forwarded to the
 * upstream's /api/x, or derived from the spec's endpoints when it lacks them.
 */
function gatewayExtensions(derivation: SpecDerivation, forwarder: Forwarder): GatewayExtension[] {
  /**
   * Who tokens are (names, tickers, decimals, where that comes from): held an hour here (forgotten on a metadata
   * change), a minute in browsers, so a page loaded after a registry correction shows it.
   */
  const IDENTITY_RULE: CacheRule = { ttlMs: 60 * 60_000, browserMaxAge: 60 };
  /** Whole-market lists the overview asks again after 30 s (forward.ts, CacheRule.staleMs): never older than that. */
  const LIST_RULE: CacheRule = { ttlMs: 5_000, browserMaxAge: 5, staleMs: 25_000 };
  return [
    {
      route: EXTENSION_ROUTES.liquidity,
      path: '/liquidity',
      cache: { ttlMs: 30_000, browserMaxAge: 30 },
      costly: () => true,
      target: (c) => {
        const group = c.req.query('group');
        if (group === undefined || group === '')
          return gatewayError(c, 'price', 400, 'group is required', { loc: ['query', 'group'], type: 'missing' });
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.liquidity}?group=${encodeURIComponent(groupKey(group))}`;
      },
      derive: async (c) => {
        const group = c.req.query('group') ?? '';
        try {
          const answer = await derivation.liquidity(group);
          if (!answer)
            return gatewayError(c, 'price', 404, `Unknown group: ${group.slice(0, 100)}`, {
              loc: ['query', 'group'],
              type: 'not_found',
            });
          // Partial while TVLs are still being fetched: the browser asks again soon.
          c.header('Cache-Control', answer.complete ? 'private, max-age=60' : 'no-store');
          return c.json(answer.body);
        } catch (error) {
          return forwarder.failure(c, 'price', error);
        }
      },
    },
    {
      route: EXTENSION_ROUTES.tokenInfo,
      path: '/token-info',
      cache: IDENTITY_RULE,
      costly: () => true,
      target: () => `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.tokenInfo}`,
      derive: async (c) => {
        try {
          const answer = await derivation.tokenNames();
          c.header('Cache-Control', answer.complete ? 'private, max-age=600' : 'no-store');
          return c.json(answer.body);
        } catch (error) {
          return forwarder.failure(c, 'price', error);
        }
      },
    },
    {
      // Over an upstream without it: the rows from symbol_info, the numbers of the rows a browser shows
      // (`pools`) from /tokens/current through the paced queue, partial (`complete: false`) meanwhile.
      route: EXTENSION_ROUTES.groupStats,
      path: '/group-stats',
      // The whole list is shared for 5 s, and up to 30 s (the app's own staleTime for it) sent at once
      // while it is fetched again behind it: 1.5 MB of JSON for the Aggregate, which takes the service
      // 80-150 ms to make, is never what an opening overview waits for. The rows a browser names
      // (`pools`: rows that just came on screen, which the app then asks fresh, or after missed trades)
      // are never from a cache.
      cache: (c) => ((c.req.query('pools') ?? '') === '' ? LIST_RULE : { ttlMs: 0, browserMaxAge: 0 }),
      // The whole list; named rows (at most GROUP_STATS_MAX_POOLS) are the group's rows picked out.
      costly: (c) => (c.req.query('pools') ?? '') === '',
      target: (c) => {
        const parsed = groupStatsQuerySchema.safeParse(c.req.query());
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          return gatewayError(c, 'price', 400, issue?.message ?? 'group is required', {
            loc: ['query', String(issue?.path[0] ?? 'group')],
            type: 'value_error',
          });
        }
        const { group, pools } = parsed.data;
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.groupStats}?group=${encodeURIComponent(groupKey(group))}${pools === undefined ? '' : `&pools=${pools.toLowerCase()}`}`;
      },
      derive: async (c) => {
        const { group, pools } = groupStatsQuerySchema.parse(c.req.query());
        try {
          const body = await derivation.groupStats(group, pools?.split(','));
          if (!body)
            return gatewayError(c, 'price', 404, `Unknown group: ${group.slice(0, 100)}`, {
              loc: ['query', 'group'],
              type: 'not_found',
            });
          // Partial while numbers are being fetched: the browser asks again soon. Named rows are asked to be fresh.
          c.header('Cache-Control', body.complete && pools === undefined ? 'private, max-age=10' : 'no-store');
          return c.json(body);
        } catch (error) {
          return forwarder.failure(c, 'price', error);
        }
      },
    },
    {
      // Over an upstream without it the app builds the panel from symbol_info and tokens/current itself.
      route: EXTENSION_ROUTES.pairPools,
      path: '/pair-pools',
      cache: { ttlMs: 0, browserMaxAge: 0 },
      target: (c) => {
        const pool = c.req.query('pool') ?? '';
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.pairPools}?pool=${encodeURIComponent(pool.slice(0, 200))}`;
      },
    },
    {
      // No derive: every pool of every pair at once is what the spec's endpoints cannot give (the app's
      // overview then has no spread column, and says why; the spread view derives a pair's from its pools).
      route: EXTENSION_ROUTES.spreads,
      path: '/spreads',
      // Asked again by the app after 30 s, as the list: sent at once while fetched again behind it. Its
      // key is min_tvl as a number (`1e3`, `1000.0` and `01000` are one answer); each new one is built.
      cache: LIST_RULE,
      costly: () => true,
      target: (c) => {
        const parsed = spreadsQuerySchema.safeParse(c.req.query());
        if (!parsed.success)
          return gatewayError(c, 'price', 400, parsed.error.issues[0]?.message ?? 'invalid query', {
            loc: ['query', 'min_tvl'],
            type: 'value_error',
          });
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.spreads}?min_tvl=${parsed.data.min_tvl}`;
      },
    },
    {
      // No derive: the hosted API says nothing of its freshness (the app then shows the connection state alone).
      route: EXTENSION_ROUTES.status,
      path: '/status',
      // One answer a second for every browser: it changes with each block.
      cache: { ttlMs: 1_000, browserMaxAge: 0 },
      target: () => `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.status}`,
    },
    {
      // No derive: the spec has no trades endpoint (the app's tape then shows what the live stream brings).
      route: EXTENSION_ROUTES.trades,
      path: '/trades',
      cache: { ttlMs: 0, browserMaxAge: 0 },
      target: (c) => {
        const query = new URL(c.req.url).search;
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.trades}${query.length > 2000 ? query.slice(0, 2000) : query}`;
      },
    },
    {
      // No derive: decimals are in no spec endpoint (404; clients use the decoded asset name).
      route: EXTENSION_ROUTES.tokenInfo,
      path: '/token-info/:unit',
      cache: IDENTITY_RULE,
      target: (c) => {
        const unit = c.req.param('unit') ?? '';
        if (!isTokenUnit(unit)) {
          return gatewayError(
            c,
            'price',
            400,
            `Invalid token ${unit.slice(0, 140)}: a policy ID (56 hex characters) followed by an asset name`,
            { loc: ['path', 'unit'], type: 'value_error' },
          );
        }
        return `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.tokenInfo}/${unit.toLowerCase()}`;
      },
    },
  ];
}
