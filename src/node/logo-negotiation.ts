import { createHash } from 'node:crypto';

/**
 * How a logo is answered (docs/decisions.md "Logos for browsers and for programs"): the spec's JSON
 * string of base64 PNG for programs, the PNG itself for browsers. One rule for the service's
 * `/api/v1/tokens/logo/{token}` and the gateway's `/gw/v1/tokens/logo/{token}`.
 */
export type LogoRepresentation = 'json' | 'image';

/** The request headers the choice reads: every logo answer names them in `Vary`. */
export const LOGO_VARY = 'Accept, Sec-Fetch-Dest, Origin';

/** What a request says about itself, as the choice reads it. */
export interface LogoRequestHeaders {
  readonly accept: string | undefined;
  /**
   * Fetch Metadata's destination (`empty` for fetch(), `image` for an `<img>`): set by every current
   * browser on its requests to https and localhost origins, and by none of curl, Python requests or Node's fetch. Not `Sec-Fetch-Mode`:
   * Node's fetch (undici, following the Fetch standard) sends `Sec-Fetch-Mode: cors` itself.
   */
  readonly secFetchDest: string | undefined;
  /** Set by browsers on every cross-origin fetch (a CORS request), whatever the origin's scheme. */
  readonly origin: string | undefined;
}

/** The headers of a Hono-like request. */
export function logoHeadersOf(header: (name: string) => string | undefined): LogoRequestHeaders {
  return { accept: header('Accept'), secFetchDest: header('Sec-Fetch-Dest'), origin: header('Origin') };
}

interface AcceptEntry {
  readonly type: string;
  readonly q: number;
  readonly index: number;
}

/** The media ranges of an Accept header with their quality (RFC 9110 12.5.1); a bad q counts as 0. */
function acceptEntries(accept: string): AcceptEntry[] {
  const entries: AcceptEntry[] = [];
  accept.split(',').forEach((part, index) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type === '') return;
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    entries.push({ type, q: Number.isFinite(quality) ? quality : 0, index });
  });
  return entries;
}

/** The best quality and earliest position among the entries `matches` picks (q 0 and index ∞ when none). */
function best(entries: readonly AcceptEntry[], matches: (type: string) => boolean): { q: number; index: number } {
  let q = 0;
  let index = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    if (!matches(entry.type) || entry.q <= 0) continue;
    if (entry.q > q || (entry.q === q && entry.index < index)) {
      q = entry.q;
      index = entry.index;
    }
  }
  return { q, index };
}

/**
 * Which representation a request gets:
 *
 * - An `Accept` that names any range but the full wildcard (star/star) is the client's explicit choice
 *   and always wins: the PNG when an image type is preferred to JSON (a higher q, or the same q listed
 *   first), else the spec's JSON (an `<img>`'s `image/avif,…,image/apng` gets the image;
 *   `application/json`, `text/html` or an image refused with q=0 get JSON).
 * - No `Accept`, or only the full wildcard (what curl, Python requests, Node's and the browsers' fetch send by
 *   default): a browser gets the PNG, a program the spec's JSON. A request is a browser's when it
 *   carries `Sec-Fetch-Dest` (Fetch Metadata, which those programs do not send) or `Origin` (every
 *   cross-origin fetch of a page; browsers leave Fetch Metadata out over plain http to other hosts).
 */
export function logoRepresentation(headers: LogoRequestHeaders): LogoRepresentation {
  const entries = acceptEntries(headers.accept ?? '');
  const explicit = entries.some((entry) => entry.type !== '*/*');
  if (!explicit) {
    const browser = Boolean(headers.secFetchDest?.trim()) || Boolean(headers.origin?.trim());
    return browser ? 'image' : 'json';
  }
  const image = best(entries, (type) => type.startsWith('image/'));
  const json = best(entries, (type) => type === 'application/json' || type === 'application/*');
  if (image.q === 0) return 'json';
  if (image.q !== json.q) return image.q > json.q ? 'image' : 'json';
  return image.index < json.index ? 'image' : 'json';
}

/** The strong ETag of a logo's PNG bytes: the same tag from the service and the gateway. */
export function logoImageEtag(png: Uint8Array): string {
  return `"${createHash('sha256').update(png).digest('base64url').slice(0, 27)}-png"`;
}
