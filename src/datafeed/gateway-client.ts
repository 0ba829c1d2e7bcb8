import { safeParse } from 'zod/mini';
import type { $ZodError, $ZodType } from 'zod/v4/core';
import { priceErrorSchema, tokenErrorSchema } from '../shared/api/errors';

/** The subset of `fetch` the datafeed uses (the browser's, or a test's in-process one). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** A settled request: the validated body, or a message fit for the chart's `onError`. */
export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly status?: number };

import { gatewayUrl, type QueryValue } from '../shared/api/gateway-urls';

/** A failed gateway request (what `GatewayClient.getOrThrow` rejects with): the message, and the HTTP status when there was an answer. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The server's own words for a failed request, when its body has them (either error shape: price or token endpoints). */
function serverMessage(body: unknown): string | undefined {
  const price = safeParse(priceErrorSchema, body);
  if (price.success) return price.data.errmsg;
  const token = safeParse(tokenErrorSchema, body);
  if (token.success) return token.data.detail.map((item) => item.msg).join('; ');
  return undefined;
}

function describeIssue(error: $ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}

/**
 * The browser's one HTTP client of the gateway: GET requests validated with the wire contract's schemas
 * (zod/mini: the browser's bundle carries only the checks they use), holding no key. `get` never throws (every failure, network, HTTP status or malformed body,
 * becomes an `Outcome` with a clear message: what the datafeed's callbacks want) and identical requests
 * in flight share one fetch; `getOrThrow` is the same request for promise-based callers (React Query
 * fetchers): it rejects with a `GatewayError` and can be aborted.
 */
export class GatewayClient {
  private readonly inFlight = new Map<string, Promise<Outcome<unknown>>>();
  /** Set once the market's token metadata changed while the page was open (`revalidate`). */
  private revalidating = false;

  constructor(
    private readonly baseUrl: string,
    private readonly fetchImpl: FetchLike,
  ) {}

  /**
   * The market's token metadata changed while the page was open (a `metadata` event): answers the browser holds in
   * its HTTP cache (a token's name and source, its logo: kept for up to an hour) may be out of date, so every later
   * request of this page is checked with the gateway first (`cache: 'no-cache'`: a conditional request, an unchanged
   * answer costs a 304 where the gateway gives an ETag).
   */
  revalidate(): void {
    this.revalidating = true;
  }

  /** The URL of a gateway path (for EventSource, which does its own request). */
  url(path: string, query?: Readonly<Record<string, QueryValue>>): string {
    return gatewayUrl(this.baseUrl, path, query);
  }

  /** GET `<base><path>?<query>`, the body validated by `schema`; shares a fetch with an identical request in flight. */
  get<T>(path: string, query: Readonly<Record<string, QueryValue>>, schema: $ZodType<T>): Promise<Outcome<T>> {
    const url = this.url(path, query);
    let pending = this.inFlight.get(url);
    if (!pending) {
      pending = this.load(url, path, schema).finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, pending);
    }
    // Same URL, same schema: the shared outcome has type T.
    return pending as Promise<Outcome<T>>;
  }

  /**
   * GET `<base><path>?<query>`, the body validated by `schema`; rejects with a `GatewayError` carrying
   * the server's message (or the signal's reason when `signal` aborted it). Not shared with other
   * requests: each caller's abort stays its own.
   */
  async getOrThrow<T>(
    path: string,
    query: Readonly<Record<string, QueryValue>>,
    schema: $ZodType<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    signal?.throwIfAborted();
    const outcome = await this.load(this.url(path, query), path, schema, signal);
    // Aborted meanwhile: the caller asked for no answer (whatever the fetch did with the signal).
    signal?.throwIfAborted();
    if (outcome.ok) return outcome.value;
    throw new GatewayError(outcome.error, outcome.status);
  }

  private async load<T>(url: string, path: string, schema: $ZodType<T>, signal?: AbortSignal): Promise<Outcome<T>> {
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        headers: { Accept: 'application/json' },
        ...(signal ? { signal } : {}),
        ...(this.revalidating ? { cache: 'no-cache' as const } : {}),
      });
    } catch (error) {
      return {
        ok: false,
        error: `The gateway is unreachable (${path}): ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    let body: unknown;
    let parsedJson = true;
    try {
      body = await response.json();
    } catch {
      parsedJson = false;
    }
    if (!response.ok) {
      const message = parsedJson ? serverMessage(body) : undefined;
      return {
        ok: false,
        status: response.status,
        error: message ?? `The gateway answered ${response.status} to ${path}`,
      };
    }
    if (!parsedJson)
      return { ok: false, status: response.status, error: `Malformed answer from ${path}: the body is not JSON` };
    const parsed = safeParse(schema, body);
    if (!parsed.success) {
      const message = serverMessage(body);
      if (message !== undefined) return { ok: false, status: response.status, error: message };
      return {
        ok: false,
        status: response.status,
        error: `Malformed answer from ${path}: ${describeIssue(parsed.error)}`,
      };
    }
    return { ok: true, value: parsed.data };
  }
}
