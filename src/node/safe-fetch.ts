import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { createAddressPolicy, type AddressPolicy } from './address-policy';
import { discard, readBody } from './capped-body';
import { ownError, SafeFetchError } from './safe-fetch-error';

export { SafeFetchError } from './safe-fetch-error';

/**
 * Outbound HTTP for addresses that come from untrusted data (token logos, webhook targets): only public
 * addresses, checked after DNS resolution and again on the socket actually connected (the name is resolved
 * once and the connection made to what was checked, so DNS rebinding has no window), on every redirect too;
 * a cap on the body enforced while it streams, after decompression; one deadline for the whole exchange.
 * Every refusal is a `SafeFetchError` saying why; nothing throws anything else.
 */

/** Bodies longer than this are refused unless the caller sets `maxBytes`. */
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
/** The whole exchange (redirects and body included) must end within this unless the caller sets `timeoutMs`. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Redirects followed at most (and the default). */
export const MAX_REDIRECTS = 3;

export interface SafeFetchOptions {
  /** Allow plain `http://` URLs (default: `https://` only). */
  readonly allowHttp?: boolean;
  /** CIDR ranges reachable although not public: the operator's own networks (e.g. `10.1.0.0/16`). */
  readonly allowCidrs?: readonly string[];
  /**
   * Origins (`scheme://host[:port]`) the operator configured, reached whatever their address and scheme
   * (an IPFS gateway on the same host, say). Redirects from them are checked as usual.
   */
  readonly trustedOrigins?: readonly string[];
  /** Largest body accepted, after decompression (default 2 MiB). */
  readonly maxBytes?: number;
  /** Deadline of one fetch, redirects and body included, in milliseconds (default 15 s). */
  readonly timeoutMs?: number;
  /** Redirects followed, 0 to 3 (default 3). */
  readonly maxRedirects?: number;
  /** Certificate authorities trusted besides the usual roots (PEM). */
  readonly ca?: string | readonly string[];
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  readonly resolve?: (hostname: string) => Promise<readonly string[]>;
  /** The User-Agent sent. */
  readonly userAgent?: string;
}

export interface SafeRequest {
  /** Default GET. Redirects are followed for GET and HEAD only; other methods get the 3xx answer. */
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Aborts the fetch (a `SafeFetchError` of kind `aborted`). */
  readonly signal?: AbortSignal;
}

export interface SafeResponse {
  readonly status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, decompressed. */
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: string;
  /** The URLs redirected to, in order. */
  readonly redirects: readonly string[];
}

export interface SafeFetcher {
  /** Fetches `url`; resolves with any HTTP status, rejects with a `SafeFetchError` only. */
  fetch(url: string, request?: SafeRequest): Promise<SafeResponse>;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const originOf = (protocol: string, hostname: string, port: string): string =>
  `${protocol}//${hostname}${port === '' || port === (protocol === 'https:' ? '443' : '80') ? '' : `:${port}`}`;

/** The canonical origin of an origin or URL text (throws on one that is not http(s)). */
function canonicalOrigin(text: string): string {
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${text} is not an http(s) origin`);
  return url.origin;
}

const systemResolve = (hostname: string): Promise<readonly string[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) =>
      error ? reject(error) : resolve(addresses.map((entry) => entry.address)),
    );
  });

function dnsError(hostname: string, error: unknown): SafeFetchError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND' || code === 'ENODATA')
    return new SafeFetchError('network', `${hostname} was not found`, false);
  return new SafeFetchError('network', `${hostname} could not be resolved (${code ?? String(error)})`, true);
}

const TLS_CODES = /^(CERT_|ERR_TLS_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_SSL_)/;

/** An error of undici or the socket, as a SafeFetchError. */
function asFetchError(error: unknown, url: string): SafeFetchError {
  const own = ownError(error);
  if (own) return own;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  if (TLS_CODES.test(code)) return new SafeFetchError('tls', `TLS failed for ${url}: ${text}`, false);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return new SafeFetchError('timeout', `${url} did not answer in time`, true);
  return new SafeFetchError('network', `${url} failed: ${code ? `${code} ` : ''}${text}`, true);
}

function headerRecord(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Builds a fetcher; throws on a bad option (an unreadable CIDR or origin). */
export function createSafeFetcher(options: SafeFetchOptions = {}): SafeFetcher {
  const policy: AddressPolicy = createAddressPolicy(options.allowCidrs);
  const trusted = new Set((options.trustedOrigins ?? []).map(canonicalOrigin));
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = Math.max(0, Math.min(MAX_REDIRECTS, options.maxRedirects ?? MAX_REDIRECTS));
  const resolveName = options.resolve ?? systemResolve;
  const extraCa = options.ca === undefined ? [] : typeof options.ca === 'string' ? [options.ca] : [...options.ca];
  const tls = extraCa.length > 0 ? { ca: [...rootCertificates, ...extraCa] } : {};

  // The name is resolved here, once; every address is checked and the socket connects to those addresses.
  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveName(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new SafeFetchError('network', `${hostname} has no address`, true);
        for (const address of addresses) {
          const why = policy.refusal(address);
          if (why) throw new SafeFetchError('refused', `refused: ${hostname} resolves to ${address}, ${why}`, false);
        }
        const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
        const entries = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => !family || entry.family === family);
        const first = entries[0];
        if (!first) throw new SafeFetchError('network', `${hostname} has no IPv${family} address`, true);
        return lookupOptions.all ? entries : first;
      })
      .then(
        (answer) => {
          if (Array.isArray(answer)) callback(null, answer);
          else callback(null, answer.address, answer.family);
        },
        (error: unknown) => {
          callback(ownError(error) ?? dnsError(hostname, error), '', 0);
        },
      );
  };
  // undici's own timeouts are a second line behind the deadline, which names the fetch's limit.
  const backstopMs = timeoutMs + 1_000;
  const checkedConnect = buildConnector({ ...tls, lookup: checkedLookup, timeout: backstopMs });
  const plainConnect = buildConnector({ ...tls, timeout: backstopMs });
  const agent = new Agent({
    connect(connectOptions, callback) {
      const origin = originOf(connectOptions.protocol, connectOptions.hostname, connectOptions.port);
      if (trusted.has(origin)) {
        plainConnect(connectOptions, callback);
        return;
      }
      checkedConnect(connectOptions, (error, socket) => {
        if (error || !socket) {
          callback(error ?? new Error('no socket'), null);
          return;
        }
        // The address actually connected to, whatever resolved it (IP literals never reach the lookup).
        const remote = socket.remoteAddress;
        const why = remote === undefined ? 'not connected' : policy.refusal(remote);
        if (why) {
          socket.destroy();
          callback(
            new SafeFetchError('refused', `refused: ${connectOptions.hostname} is ${remote ?? '?'}, ${why}`, false),
            null,
          );
          return;
        }
        callback(null, socket);
      });
    },
    headersTimeout: backstopMs,
    bodyTimeout: backstopMs,
  });

  /** The URL parsed and checked before any connection; throws a SafeFetchError. */
  const checkUrl = (text: string): URL => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new SafeFetchError('url', `${JSON.stringify(text.slice(0, 200))} is not a URL`, false);
    }
    const isTrusted = trusted.has(url.origin);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (options.allowHttp || isTrusted)))
      throw new SafeFetchError(
        'url',
        `refused: ${url.protocol} URLs are not fetched (${options.allowHttp ? 'http and https' : 'https'} only)`,
        false,
      );
    if (url.username !== '' || url.password !== '')
      throw new SafeFetchError('url', 'refused: URLs with credentials are not fetched', false);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (!isTrusted && isIP(host) !== 0) {
      const why = policy.refusal(host);
      if (why) throw new SafeFetchError('refused', `refused: ${host} is ${why}`, false);
    }
    return url;
  };

  return {
    async fetch(text, init = {}) {
      const method = init.method ?? 'GET';
      let url = checkUrl(text);
      const deadline = new AbortController();
      const timer = setTimeout(
        () => deadline.abort(new SafeFetchError('timeout', `${text} took longer than ${timeoutMs} ms`, true)),
        timeoutMs,
      );
      const signal = init.signal ? AbortSignal.any([deadline.signal, init.signal]) : deadline.signal;
      const redirects: string[] = [];
      try {
        for (;;) {
          if (signal.aborted) throw signal.reason;
          let response: Dispatcher.ResponseData;
          try {
            response = await request(url, {
              dispatcher: agent,
              method,
              signal,
              headers: {
                'user-agent': options.userAgent ?? 'cardano-dex-charts',
                'accept-encoding': 'gzip, deflate, br',
                ...init.headers,
              },
              ...(init.body !== undefined ? { body: init.body } : {}),
            });
          } catch (error) {
            throw signal.aborted ? signal.reason : asFetchError(error, url.href);
          }
          const headers = headerRecord(response.headers);
          const location = headers.location;
          if (REDIRECTS.has(response.statusCode) && location !== undefined && (method === 'GET' || method === 'HEAD')) {
            discard(response.body);
            if (redirects.length >= maxRedirects)
              throw new SafeFetchError('redirect', `more than ${maxRedirects} redirects from ${text}`, false);
            let next: URL;
            try {
              next = new URL(location, url);
            } catch {
              throw new SafeFetchError('redirect', `${url.href} redirects to an unreadable location`, false);
            }
            if (next.protocol !== url.protocol)
              throw new SafeFetchError(
                'redirect',
                `refused: ${url.href} redirects from ${url.protocol} to ${next.protocol}`,
                false,
              );
            url = checkUrl(next.href);
            redirects.push(url.href);
            continue;
          }
          let body: Buffer;
          try {
            body = await readBody(response.body, headers, maxBytes, url.href);
          } catch (error) {
            throw signal.aborted ? signal.reason : asFetchError(error, url.href);
          }
          return { status: response.statusCode, headers, body, url: url.href, redirects };
        }
      } catch (error) {
        if (error instanceof SafeFetchError) throw error;
        if (signal.aborted && !deadline.signal.aborted)
          throw new SafeFetchError('aborted', `the fetch of ${text} was aborted`, false);
        throw asFetchError(error, url.href);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => agent.close(),
  };
}
