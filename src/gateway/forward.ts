import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { promisify } from 'node:util';
import { createBrotliDecompress, createGunzip, createGzip, createInflate, gzip as gzipCallback } from 'node:zlib';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { LRUCache } from 'lru-cache';
import type { PriceError, TokenError, TokenErrorItem } from '../shared/api/errors';
import { acceptsEncoding, acceptsGzip, etagMatches } from '../node/http';
import { webStreamOf } from '../node/streams';
import { redactError } from '../shared/redact';
import type { Upstream } from './upstream';

const gzipAsync = promisify(gzipCallback);

/** The two error shapes of the service's families: FastAPI's for /tokens/…, `{s, errmsg}` otherwise. */
export type Family = 'price' | 'tokens';

/** How long an upstream answer is reused (200s only), and the browser's max-age for it. */
export interface CacheRule {
  readonly ttlMs: number;
  readonly browserMaxAge: number;
  /**
   * How long past `ttlMs` a held answer may still be sent while one refresh runs behind it (HTTP's
   * stale-while-revalidate): the next browser gets the refreshed one. 0 or absent: an expired answer
   * is fetched again before anyone gets it.
   */
  readonly staleMs?: number;
}

/** Upstream response headers passed to the browser (never Authorization-related ones; ETag is handled apart). */
const PASSED_HEADERS = ['content-type', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

/** They describe the gateway's key at the time of a fetch: an answer served from the cache leaves them out. */
const RATE_LIMIT_HEADERS: ReadonlySet<string> = new Set([
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
]);

/** Answers smaller than this go uncompressed: gzip would save nothing worth its header. */
const COMPRESS_MIN_BYTES = 1024;

/** The ETag of each representation the gateway serves. */
interface Tags {
  readonly identity: string;
  readonly gzip: string;
}

/** An upstream answer held whole (cached paths): small bodies, reused for many browsers. */
export interface BufferedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly tags: Tags | undefined;
  readonly body: Uint8Array;
  gzip?: Promise<Uint8Array>;
}

/** A held answer in the cache, with when it was fetched (the forwarder's clock). */
interface Held {
  readonly answer: BufferedAnswer;
  readonly at: number;
}

/** An upstream 3xx: never followed (the key would go along), passed on as a 502. */
export class UpstreamRedirect extends Error {
  constructor(readonly status: number) {
    super(
      `Upstream answered a redirect (${status}), which is not followed: the gateway sends its key to the upstream's API paths only`,
    );
  }
}

const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;

/** An error in the family's shape. */
export function gatewayError(
  c: Context,
  family: Family,
  status: ContentfulStatusCode,
  message: string,
  item: Omit<TokenErrorItem, 'msg'>,
): Response {
  if (family === 'tokens') {
    const body: TokenError = { detail: [{ loc: item.loc, msg: message, type: item.type }] };
    return c.json(body, status);
  }
  const body: PriceError = { s: 'error', errmsg: message };
  return c.json(body, status);
}

/**
 * The tags of the two representations, by the service's rule (src/service/http/routes/price.ts): a
 * strong tag per representation, the gzipped one's ending in `-gz"`. A body fetch() decoded had its
 * tag name the encoded representation.
 */
function representationTags(etag: string | null, encoding: string | undefined): Tags | undefined {
  if (etag === null) return undefined;
  // A weak tag holds for every encoding of the same content.
  if (etag.startsWith('W/')) return { identity: etag, gzip: etag };
  if (encoding === undefined) return { identity: etag, gzip: `${etag.slice(0, -1)}-gz"` };
  if (encoding === 'gzip' && etag.endsWith('-gz"')) return { identity: `${etag.slice(0, -4)}"`, gzip: etag };
  // A strong tag of another encoding is only weakly valid for the decoded body.
  return { identity: `W/${etag}`, gzip: `W/${etag}` };
}

/** The upstream's Content-Encoding, undefined for identity. */
function encodingOf(response: Response): string | undefined {
  const value = response.headers.get('content-encoding')?.trim().toLowerCase();
  return value === undefined || value === '' || value === 'identity' ? undefined : value;
}

function passedHeaders(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

const toNode = (body: ReadableStream<Uint8Array>) => Readable.fromWeb(body as NodeReadableStream<Uint8Array>);

/** `body` through a Node transform (zlib, on libuv's threads); cancelling the result cancels the source. */
function through(body: ReadableStream<Uint8Array>, transform: NodeJS.ReadWriteStream): ReadableStream<Uint8Array> {
  return webStreamOf(pipeline(toNode(body), transform, () => {}));
}

/** A decoder for an upstream encoding the browser does not take, if known. */
function decoder(encoding: string): NodeJS.ReadWriteStream | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/** A streamed body (or none) with the headers set on `c`. */
function send(c: Context, body: ReadableStream<Uint8Array> | null, status: number): Response {
  if (body === null) return c.body(null, status as 200);
  return c.body(body as ReadableStream<Uint8Array<ArrayBuffer>>, status as 200);
}

export interface ForwarderOptions {
  readonly upstream: Upstream;
  readonly timeoutMs: number;
  /** The cache's clock (ms); performance.now by default. */
  readonly now?: () => number;
}

/**
 * Fetches upstream paths for browsers: answers of cached paths are held whole and shared (one upstream
 * fetch for concurrent identical requests), every other answer streams through as it comes, compressed
 * for the browser off the event loop or passed through compressed when the upstream already did it.
 */
export class Forwarder {
  // Entries expire by the forwarder's own clock (`buffered`), so that tests can move it; the LRU bounds the size.
  private readonly cache = new LRUCache<string, Held>({
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (held) => Math.max(1, Math.ceil(held.answer.body.byteLength * 1.5)),
  });
  /** Fetches under way, with when each was asked (the age of what it brings). */
  private readonly inFlight = new Map<string, { readonly answer: Promise<BufferedAnswer>; readonly asked: number }>();
  private readonly now: () => number;

  constructor(private readonly options: ForwarderOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  private async load(target: string): Promise<BufferedAnswer> {
    // Held answers are the service's JSON (a logo too: the PNG is made from it, gateway/logo.ts), asked
    // for explicitly: an upstream that serves a logo as an image to some clients keeps the JSON here.
    const response = await this.options.upstream.fetch(target, {
      signal: AbortSignal.timeout(this.options.timeoutMs),
      redirect: 'manual',
      headers: { Accept: 'application/json' },
    });
    if (isRedirect(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamRedirect(response.status);
    }
    // No Accept-Encoding was sent, so the body should be identity; one encoded anyway is decoded here
    // (unless fetch() did already), and its tag named the encoded representation.
    const encoding = encodingOf(response);
    let body: Uint8Array;
    if (encoding !== undefined && !this.options.upstream.decodesBodies && response.body) {
      const decode = decoder(encoding);
      if (!decode) throw new Error(`the upstream answered in an unknown Content-Encoding (${encoding.slice(0, 40)})`);
      body = new Uint8Array(await new Response(through(response.body, decode)).arrayBuffer());
    } else {
      body = new Uint8Array(await response.arrayBuffer());
    }
    return {
      status: response.status,
      headers: passedHeaders(response),
      tags: representationTags(response.headers.get('etag'), encoding),
      body,
    };
  }

  /** Drops the held answers whose target `touched` names (a rollback: the answers that carry prices). */
  forget(touched: (target: string) => boolean): void {
    for (const target of [...this.cache.keys()]) if (touched(target)) this.cache.delete(target);
  }

  /**
   * Whether `target` would be answered now from what the cache holds (fresh, or stale within `rule`'s
   * `staleMs` with its refresh behind it): the answer costs the gateway nothing new.
   */
  holds(target: string, rule: CacheRule): boolean {
    const held = this.cache.peek(target);
    if (!held) return false;
    const age = this.now() - held.at;
    return age >= 0 && age < rule.ttlMs + (rule.staleMs ?? 0);
  }

  /** The uncompressed size of the answer `holds` would answer `target` with, or undefined when it holds none. */
  heldBytes(target: string, rule: CacheRule): number | undefined {
    return this.holds(target, rule) ? this.cache.peek(target)?.answer.body.byteLength : undefined;
  }

  /**
   * An upstream answer held whole: from the cache when `ttlMs` is given and a 200 fetched less than
   * `ttlMs` ago is there, else fetched (once for concurrent callers) and cached when it is a 200. With
   * `staleMs`, a 200 older than `ttlMs` by less than that is answered at once while one refresh runs
   * behind it. Rejects like fetch, or with UpstreamRedirect.
   */
  async buffered(target: string, ttlMs?: number, staleMs = 0): Promise<{ answer: BufferedAnswer; fromCache: boolean }> {
    const held = ttlMs === undefined ? undefined : this.cache.get(target);
    if (held && ttlMs !== undefined) {
      const age = this.now() - held.at;
      if (age >= 0 && age < ttlMs) return { answer: held.answer, fromCache: true };
      if (age >= 0 && age < ttlMs + staleMs) {
        // A failed refresh leaves the held answer until it is too old; the next browser tries again.
        if (!this.inFlight.has(target)) void this.fetchAndHold(target, ttlMs).catch(() => undefined);
        return { answer: held.answer, fromCache: true };
      }
    }
    return { answer: await this.fetchAndHold(target, ttlMs), fromCache: false };
  }

  /** `target` fetched (once for concurrent callers), and held when `ttlMs` is given and it is a 200. */
  private async fetchAndHold(target: string, ttlMs: number | undefined): Promise<BufferedAnswer> {
    let flight = this.inFlight.get(target);
    if (!flight) {
      flight = { answer: this.load(target).finally(() => this.inFlight.delete(target)), asked: this.now() };
      this.inFlight.set(target, flight);
    }
    const answer = await flight.answer;
    // Each caller that wants it held holds it (one that joined an uncached caller's fetch too), as old as its fetch.
    if (ttlMs !== undefined && answer.status === 200 && this.cache.peek(target)?.answer !== answer)
      this.cache.set(target, { answer, at: flight.asked });
    return answer;
  }

  /** Answers a browser with `target`'s upstream answer: a cached path's whole, any other streamed. */
  async forward(c: Context, target: string, family: Family, rule?: CacheRule): Promise<Response> {
    try {
      if (rule) {
        const { answer, fromCache } = await this.buffered(target, rule.ttlMs, rule.staleMs);
        return await this.sendBuffered(c, answer, fromCache, rule);
      }
      return await this.stream(c, target);
    } catch (error) {
      return this.failure(c, family, error);
    }
  }

  /** An upstream failure in the family's shape: 502 (unreachable, redirect) or 504 (no answer in time). */
  failure(c: Context, family: Family, error: unknown): Response {
    if (error instanceof UpstreamRedirect)
      return gatewayError(c, family, 502, error.message, { loc: [], type: 'upstream_redirect' });
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return gatewayError(c, family, 504, `Upstream did not answer within ${this.options.timeoutMs} ms`, {
        loc: [],
        type: 'upstream_timeout',
      });
    }
    // The upstream's own failures come redacted (remoteUpstream); any other passes through here too.
    const reason = redactError(error, [this.options.upstream.origin]);
    return gatewayError(c, family, 502, `Upstream unavailable: ${reason}`, { loc: [], type: 'upstream_unavailable' });
  }

  /** A held answer, gzipped once per cached answer (off the event loop) for browsers that take it. */
  async sendBuffered(c: Context, answer: BufferedAnswer, fromCache: boolean, rule: CacheRule): Promise<Response> {
    for (const [name, value] of Object.entries(answer.headers))
      if (!(fromCache && RATE_LIMIT_HEADERS.has(name))) c.header(name, value);
    c.header('Cache-Control', answer.status === 200 ? `private, max-age=${rule.browserMaxAge}` : 'no-store');
    // Appended: a route may vary on more (a logo's representation, gateway/logo.ts).
    c.header('Vary', 'Accept-Encoding', { append: true });
    const gzip = answer.body.byteLength > COMPRESS_MIN_BYTES && acceptsGzip(c.req.header('Accept-Encoding'));
    const etag = gzip ? answer.tags?.gzip : answer.tags?.identity;
    if (etag !== undefined) c.header('ETag', etag);
    if (etag !== undefined && answer.status === 200 && etagMatches(c.req.header('If-None-Match'), etag))
      return c.body(null, 304);
    if (gzip) {
      // One compression per cached answer, shared by concurrent browsers.
      const body = await (answer.gzip ??= gzipAsync(answer.body, { level: 6 }).then((b) => new Uint8Array(b)));
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), answer.status as 200);
    }
    // Shared by every browser served from the cache: sent as it is, never written to.
    return c.body(answer.body as Uint8Array<ArrayBuffer>, answer.status as 200);
  }

  /**
   * An uncached answer, streamed: the browser's Accept-Encoding goes upstream, and a body the upstream
   * compressed in a coding the browser takes passes through untouched (an in-process upstream's; fetch()
   * decodes a remote one). Otherwise a body over 1 KiB is gzipped as it streams, on zlib's threads.
   */
  private async stream(c: Context, target: string): Promise<Response> {
    const { upstream } = this.options;
    const accept = c.req.header('Accept-Encoding');
    const response = await upstream.fetch(target, {
      signal: AbortSignal.timeout(this.options.timeoutMs),
      redirect: 'manual',
      ...(accept !== undefined && !upstream.decodesBodies ? { headers: { 'Accept-Encoding': accept } } : {}),
    });
    if (isRedirect(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamRedirect(response.status);
    }
    for (const [name, value] of Object.entries(passedHeaders(response))) c.header(name, value);
    c.header('Cache-Control', 'no-store');
    c.header('Vary', 'Accept-Encoding', { append: true });
    const encoding = encodingOf(response);
    const length = response.headers.get('content-length');
    let body: ReadableStream<Uint8Array> | null = response.body;
    const etag = response.headers.get('etag');

    if (encoding !== undefined && !upstream.decodesBodies) {
      if (acceptsEncoding(accept, encoding as 'gzip' | 'deflate' | 'br')) {
        // Passed through as the upstream encoded it: its tag names this very representation.
        if (etag !== null) c.header('ETag', etag);
        if (etag !== null && response.status === 200 && etagMatches(c.req.header('If-None-Match'), etag))
          return this.notModified(c, body);
        c.header('Content-Encoding', encoding);
        if (length !== null) c.header('Content-Length', length);
        return send(c, body, response.status);
      }
      const decode = decoder(encoding);
      if (!decode) throw new Error(`the upstream answered in an unknown Content-Encoding (${encoding.slice(0, 40)})`);
      if (body) body = through(body, decode);
    }
    // A decoded body's length is unknown, and its tag named the encoded representation.
    const identityLength = encoding !== undefined ? null : length;
    const tags = representationTags(etag, encoding);
    const gzip =
      body !== null && acceptsGzip(accept) && (identityLength === null || Number(identityLength) > COMPRESS_MIN_BYTES);
    const tag = gzip ? tags?.gzip : tags?.identity;
    if (tag !== undefined) c.header('ETag', tag);
    if (tag !== undefined && response.status === 200 && etagMatches(c.req.header('If-None-Match'), tag))
      return this.notModified(c, body);
    if (gzip && body) {
      c.header('Content-Encoding', 'gzip');
      return send(c, through(body, createGzip({ level: 1 })), response.status);
    }
    if (identityLength !== null) c.header('Content-Length', identityLength);
    return send(c, body, response.status);
  }

  private notModified(c: Context, body: ReadableStream<Uint8Array> | null): Response {
    void body?.cancel().catch(() => {});
    return c.body(null, 304);
  }
}
