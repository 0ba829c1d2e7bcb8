import { request } from 'undici';
import { webStreamOf } from '../node/streams';
import { redactedError } from '../shared/redact';
/**
 * How the gateway reaches the data service: a fetch of `/api/v1/...` (and `/api/x/...`) paths with the key added. The
 * embedded service is called in-process (no socket); a remote one over HTTP.
 */
export interface Upstream {
  readonly kind: 'embedded' | 'remote';
  /** Origin (and path) of a remote upstream; /gw/v1/info shows it only as `redactUrl` does. */
  readonly origin?: string;
  /**
   * Whether `fetch` hands back bodies already decoded (as fetch() over HTTP does with any
   * Content-Encoding, leaving the header), so that a compressed body cannot be passed through.
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
    fetch: async (path, init) =>
      appFetch(new Request(new URL(path, 'http://embedded.local'), { ...init, headers: withKey(init, key) })),
  };
}

/** Response statuses that carry no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * GET or HEAD with undici's `request`: the body as the upstream sent it, never decoded (fetch()
 * always decodes), so that a compressed answer can pass through to a browser that takes it.
 */
async function rawRequest(
  url: string,
  method: 'GET' | 'HEAD',
  headers: Headers,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  const answer = await request(url, { method, headers: Object.fromEntries(headers), ...(signal ? { signal } : {}) });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
    else if (value !== undefined) responseHeaders.set(name, value);
  }
  if (method === 'HEAD' || NULL_BODY.has(answer.statusCode)) {
    answer.body.destroy();
    return new Response(null, { status: answer.statusCode, headers: responseHeaders });
  }
  const body = webStreamOf(answer.body) as ReadableStream<Uint8Array<ArrayBuffer>>;
  return new Response(body, { status: answer.statusCode, headers: responseHeaders });
}

/**
 * A remote service (our own on another host, or the hosted API) over HTTP. Redirects are never followed
 * (whatever the caller asks): the key would go along to wherever they point. GETs come back as sent
 * (a compressed body stays compressed: `decodesBodies` is false); the stream's POST goes through fetch.
 */
export function remoteUpstream(origin: string, key: string, fetchImpl: typeof fetch = fetch): Upstream {
  const send = (path: string, init: RequestInit | undefined): Promise<Response> => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET' || method === 'HEAD')
      return rawRequest(`${origin}${path}`, method, withKey(init, key), init?.signal);
    return fetchImpl(`${origin}${path}`, { ...init, redirect: 'manual', headers: withKey(init, key) });
  };
  return {
    kind: 'remote',
    origin,
    decodesBodies: false,
    // A failure's text (undici's `getaddrinfo ENOTFOUND HOST`, say) reaches logs and browsers' error
    // answers: without the upstream's host or path, which may be a tenant's secret.
    fetch: (path, init) => send(path, init).catch((error: unknown) => Promise.reject(redactedError(error, [origin]))),
  };
}
