import { Hono, type Context } from 'hono';
import { TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { EXTENSION_PREFIX, extensionIndexSchema, type ExtensionRoute } from '../shared/api/extensions';
import { gatewayError, type CacheRule, type Forwarder } from './forward';

/** How long the upstream's list of extension routes is trusted, found or absent. */
const INDEX_TTL_MS = 10 * 60_000;
/** After a failure to read it (unreachable, 429, 5xx), when to ask again. */
const INDEX_RETRY_MS = 30_000;

/** What the upstream said about its extension routes: the ones it has, or a failure to tell. */
type IndexState =
  | { readonly routes: ReadonlySet<string>; readonly until: number }
  | { readonly error: unknown; readonly until: number };

/**
 * Which of our extension routes (`/api/x/<name>`) the upstream has, from its `GET /api/x` (one
 * request per ten minutes, shared by every browser). An upstream without `/api/x` at all (the hosted
 * API: 404) has none. A failure to ask is remembered for 30 s, so browsers do not probe it each.
 */
export class UpstreamExtensions {
  private state: IndexState | undefined;
  private loading: Promise<IndexState> | undefined;

  constructor(
    private readonly forwarder: Forwarder,
    private readonly now: () => number = Date.now,
  ) {}

  private async load(): Promise<IndexState> {
    try {
      const { answer } = await this.forwarder.buffered(EXTENSION_PREFIX);
      if (answer.status === 200) {
        const index = extensionIndexSchema.parse(JSON.parse(new TextDecoder().decode(answer.body)));
        return { routes: new Set(index.routes), until: this.now() + INDEX_TTL_MS };
      }
      // No /api/x here (404), or not this method (405): the upstream has no extension routes.
      if (answer.status === 404 || answer.status === 405)
        return { routes: new Set(), until: this.now() + INDEX_TTL_MS };
      return { error: new Error(`${EXTENSION_PREFIX} answered ${answer.status}`), until: this.now() + INDEX_RETRY_MS };
    } catch (error) {
      return { error, until: this.now() + INDEX_RETRY_MS };
    }
  }

  /** Whether the upstream has the route; rejects with the reason when that cannot be told now. */
  async has(route: ExtensionRoute): Promise<boolean> {
    let state = this.state;
    if (!state || state.until <= this.now()) {
      this.loading ??= this.load().finally(() => (this.loading = undefined));
      state = this.state = await this.loading;
    }
    if ('error' in state) throw state.error;
    return state.routes.has(route);
  }
}

/**
 * One of our extension routes as the gateway serves it: `GET /gw/v1<path>` forwards to the upstream's
 * `/api/x/…` when it has the route, and otherwise answers with `derive` (from the spec's endpoints) or,
 * without one, a 404 saying the upstream lacks it. Errors are price-shaped, as the service's.
 */
export interface GatewayExtension {
  /** Its name in the upstream's `GET /api/x`. */
  readonly route: ExtensionRoute;
  /** Hono path under /gw/v1 (`/liquidity`, `/token-info/:unit`). */
  readonly path: string;
  /** How long the upstream's 200 is reused (ttlMs 0: never; streamed through), or the rule for one request. */
  readonly cache: CacheRule | ((c: Context) => CacheRule);
  /**
   * Whether this request's answer is a whole-market list (every pair's spread, a group's every row):
   * fetching it (an answer the cache does not hold) is charged to the client's list budget.
   */
  readonly costly?: (c: Context) => boolean;
  /** The upstream path with query (`/api/x/…`), or a refusal of bad input. */
  target(c: Context): string | Response;
  /** The answer over an upstream that lacks the route. */
  derive?(c: Context): Promise<Response>;
}

export interface ExtensionRoutesOptions {
  readonly forwarder: Forwarder;
  /** Charges the client's list budget before a costly answer is fetched; a Response when refused (address-limit.ts). */
  readonly chargeList?: (c: Context, family: 'price') => Promise<Response | undefined>;
  /** Charges the client's bytes budget before a costly answer is sent from the cache (address-limit.ts). */
  readonly chargeListBytes?: (c: Context, family: 'price', bytes: number) => Promise<Response | undefined>;
  readonly extensions: UpstreamExtensions;
  readonly routes: readonly GatewayExtension[];
}

/** The gateway's side of the extension routes (see GatewayExtension). */
export function extensionRoutes({
  forwarder,
  extensions,
  routes,
  chargeList,
  chargeListBytes,
}: ExtensionRoutesOptions): Hono {
  const app = new Hono({ strict: false });
  for (const extension of routes) {
    app.get(extension.path, async (c) => {
      const target = extension.target(c);
      if (target instanceof Response) return target;
      let present: boolean;
      try {
        present = await extensions.has(extension.route);
      } catch (error) {
        return forwarder.failure(c, 'price', error);
      }
      // A rule of no time (live data) is streamed through, never cached.
      const rule = typeof extension.cache === 'function' ? extension.cache(c) : extension.cache;
      if (present) {
        if (extension.costly?.(c)) {
          const held = rule.ttlMs > 0 ? forwarder.heldBytes(target, rule) : undefined;
          const refused =
            held === undefined ? await chargeList?.(c, 'price') : await chargeListBytes?.(c, 'price', held);
          if (refused) return refused;
        }
        return forwarder.forward(c, target, 'price', rule.ttlMs > 0 ? rule : undefined);
      }
      if (extension.derive) return extension.derive(c);
      return gatewayError(
        c,
        'price',
        404,
        `Not available from this upstream: it has no ${EXTENSION_PREFIX}/${extension.route} route, and the spec's endpoints cannot give it`,
        {
          loc: ['path'],
          type: TOKEN_ERROR_TYPES.notFound,
        },
      );
    });
  }
  return app;
}
