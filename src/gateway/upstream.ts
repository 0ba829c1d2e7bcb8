/**
 * How the gateway reaches the data service: a fetch of `/api/v1/...` (and `/api/x/...`) paths with the key added. The
 * embedded service is called in-process (no socket); a remote one over HTTP.
 */
export interface Upstream {
  readonly kind: 'embedded' | 'remote';
  /** Origin (and path) of a remote upstream; /gw/v1/info shows it through publicUpstreamUrl. */
  readonly origin?: string;
  /**
   * Whether `fetch` hands back bodies already decoded (fetch() over HTTP decodes any Content-Encoding,
   * leaving the header), so that a compressed upstream body can never be passed through as it came.
   */
  readonly decodesBodies: boolean;
  /** Fetches an upstream path (`/api/v1/...` with query) with the Authorization header added. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

type FetchLike = (request: Request) => Response | Promise<Response>;

function withKey(init: RequestInit | undefined, key: string): Headers {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${key}`);
  return headers;
}

/** The embedded service, called in-process through its Hono app's fetch. */
export function embeddedUpstream(appFetch: FetchLike, key: string): Upstream {
  return {
    kind: 'embedded',
    decodesBodies: false,
    fetch: async (path, init) => appFetch(new Request(new URL(path, 'http://embedded.local'), { ...init, headers: withKey(init, key) })),
  };
}

/**
 * A remote service (our own on another host, or the hosted API) over HTTP. Redirects are never followed
 * (`redirect: 'manual'`, whatever the caller asks): the key would go along to wherever they point.
 */
export function remoteUpstream(origin: string, key: string, fetchImpl: typeof fetch = fetch): Upstream {
  return {
    kind: 'remote',
    origin,
    decodesBodies: true,
    fetch: (path, init) => fetchImpl(`${origin}${path}`, { ...init, redirect: 'manual', headers: withKey(init, key) }),
  };
}

/** The upstream URL as browsers may see it (/gw/v1/info): origin and path, never credentials, query or fragment. */
export function publicUpstreamUrl(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}
