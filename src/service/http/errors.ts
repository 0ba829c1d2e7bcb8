import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { PriceError, TokenError, TokenErrorItem } from '../../shared/api/errors';

/** The three endpoint families, each with its own error shape (spec "Errors", decisions). */
export type Family = 'price' | 'tokens' | 'stream';

export function familyOf(path: string): Family {
  if (/^\/api\/v1\/tokens\/stream\/?$/.test(path)) return 'stream';
  if (path.startsWith('/api/v1/tokens')) return 'tokens';
  return 'price';
}

export function priceError(c: Context, status: ContentfulStatusCode, errmsg: string): Response {
  const body: PriceError = { s: 'error', errmsg };
  return c.json(body, status);
}

export function tokenError(c: Context, status: ContentfulStatusCode, ...detail: TokenErrorItem[]): Response {
  const body: TokenError = { detail };
  return c.json(body, status);
}

/** A one-line error event of the stream family, as a whole response body. */
export function streamErrorLine(errmsg: string): string {
  return `${JSON.stringify({ s: 'error', errmsg })}\n`;
}

export function streamError(c: Context, status: ContentfulStatusCode, errmsg: string): Response {
  return c.body(streamErrorLine(errmsg), status, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
  });
}

/** An error in the shape of the request's family. */
export function familyError(
  c: Context,
  family: Family,
  status: ContentfulStatusCode,
  message: string,
  item: Omit<TokenErrorItem, 'msg'>,
): Response {
  if (family === 'tokens') return tokenError(c, status, { ...item, msg: message });
  if (family === 'stream') return streamError(c, status, message);
  return priceError(c, status, message);
}

/** Longest piece of client input an error message repeats. */
const ECHO_LIMIT = 100;

/** Client input as an error message repeats it: whole when short, else its start and an ellipsis. */
export function echo(value: string): string {
  return value.length <= ECHO_LIMIT ? value : `${value.slice(0, ECHO_LIMIT)}… (${value.length} characters)`;
}
