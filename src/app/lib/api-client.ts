import type { z } from 'zod';
import { priceErrorSchema, tokenErrorSchema } from '../../shared/api/errors';
import { GATEWAY_PREFIX } from '../../shared/api/gateway';
import type { FetchLike } from '../../datafeed';

/** A failed gateway call, with the server's own words when it gave any. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The server's message in either error shape (price endpoints or token endpoints). */
export function serverMessage(body: unknown): string | undefined {
  const price = priceErrorSchema.safeParse(body);
  if (price.success) return price.data.errmsg;
  const token = tokenErrorSchema.safeParse(body);
  if (token.success) return token.data.detail.map((item) => item.msg).join('; ');
  return undefined;
}

/**
 * GET requests to the same-origin gateway for React Query's fetchers: the body validated with the wire
 * contract's schema, failures thrown as `ApiError` with the server's message. Holds no key.
 */
export class ApiClient {
  constructor(
    private readonly fetchImpl: FetchLike,
    readonly baseUrl: string = GATEWAY_PREFIX,
  ) {}

  url(path: string, query: Readonly<Record<string, string | undefined>> = {}): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
    const search = params.toString();
    return `${this.baseUrl}${path}${search === '' ? '' : `?${search}`}`;
  }

  async get<T>(path: string, query: Readonly<Record<string, string | undefined>>, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.url(path, query), { headers: { Accept: 'application/json' }, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(`The gateway is unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new ApiError(response.ok ? `Malformed answer from ${path}` : `The gateway answered ${response.status} to ${path}`, response.status);
    }
    if (!response.ok) throw new ApiError(serverMessage(body) ?? `The gateway answered ${response.status} to ${path}`, response.status);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ApiError(serverMessage(body) ?? `Malformed answer from ${path}`, response.status);
    return parsed.data;
  }
}
