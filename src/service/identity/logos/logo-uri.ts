import { CID } from 'multiformats/cid';
import { base36 } from 'multiformats/bases/base36';
import { fetch } from 'undici';
import { DEFAULT_MAX_BYTES } from '../../../node/safe-fetch';

/**
 * Where a token's logo is, as its metadata gives it (CIP-68 `logo`, a registry entry): a URI
 * (`ipfs://`, `ar://`, `https://`, `data:`), a bare IPFS CID, or the image itself, as text or bytes, whole or
 * in chunks (CIP-68 allows an array of byte strings). This module says what to fetch, or hands over the
 * bytes, or says why the logo cannot be used; it never fetches.
 */

/** A logo as token metadata carries it. Chunks are joined in order. */
export type LogoInput = string | Uint8Array | readonly Uint8Array[];

/** The gateways the operator chose (`--ipfs-gateway`, `--arweave-gateway`); without one, such logos are not fetched. */
export interface LogoGateways {
  /** Base URL of an IPFS gateway: `<base>/ipfs/<cid>[/path]` is fetched. */
  readonly ipfs?: string;
  /** Base URL of an Arweave gateway: `<base>/<id>[/path]` is fetched. */
  readonly arweave?: string;
}

export type LogoSource =
  /** An https (or gateway) URL to fetch. */
  | { readonly kind: 'url'; readonly url: string }
  /** The image's bytes, given inline (a `data:` URI or image data): not yet known to be an image. */
  | { readonly kind: 'bytes'; readonly bytes: Buffer }
  | {
      readonly kind: 'unusable';
      readonly reason: string;
      /** The gateway it would be fetched through, when that is all it lacks (the operator did not configure one). */
      readonly needs?: 'ipfs' | 'arweave';
    };

const unusable = (reason: string, needs?: 'ipfs' | 'arweave'): LogoSource => ({
  kind: 'unusable',
  reason,
  ...(needs ? { needs } : {}),
});

/** Longest text taken for a URI (a `data:` URI may be longer: it is bounded by the byte cap). */
const MAX_URI_CHARS = 4096;
/** An Arweave transaction id: 32 bytes in base64url. */
const ARWEAVE_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * A gateway's base URL from the operator's flag, checked: http(s), no query or fragment, no trailing
 * slash. Throws an Error naming the flag.
 */
export function gatewayBase(raw: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`${flag} must be a URL such as https://ipfs.io or http://127.0.0.1:8080 (got ${raw})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${flag} must be an http(s) URL`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new Error(`${flag} must be a base URL without credentials, query or fragment`);
  return url.href.replace(/\/+$/, '');
}

/** A CID in any of the forms tokens use (CIDv0 `Qm…`, CIDv1 in base32 `b…` or base36 `k…`), canonical; or null. */
function parseCid(text: string): string | null {
  try {
    return (text.startsWith('k') ? CID.parse(text, base36) : CID.parse(text)).toString();
  } catch {
    return null;
  }
}

/** A path below a CID or Arweave id, re-encoded segment by segment; null when it climbs (`..`) or is unreadable. */
function safePath(path: string): string | null {
  if (path === '' || path === '/') return '';
  const segments: string[] = [];
  for (const raw of path.replace(/^\//, '').split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..') return null;
    segments.push(encodeURIComponent(segment));
  }
  return `/${segments.join('/')}`;
}

/** `<cid>[/path][?query][#fragment]` split at the first `/`, `?` or `#`; query and fragment dropped. */
function splitId(rest: string): { id: string; path: string } {
  const end = rest.search(/[/?#]/);
  const id = end < 0 ? rest : rest.slice(0, end);
  const tail = end < 0 ? '' : rest.slice(end);
  const path = tail.startsWith('/') ? tail.replace(/[?#].*$/s, '') : '';
  return { id, path };
}

function ipfsSource(rest: string, gateways: LogoGateways): LogoSource {
  const { id, path } = splitId(rest.replace(/^ipfs\//i, ''));
  const cid = parseCid(id);
  if (cid === null) return unusable(`ipfs logo: ${JSON.stringify(id.slice(0, 100))} is not a CID`);
  const below = safePath(path);
  if (below === null) return unusable('ipfs logo: its path is not usable');
  if (gateways.ipfs === undefined)
    return unusable('ipfs logo not fetched: no IPFS gateway configured (--ipfs-gateway)', 'ipfs');
  return { kind: 'url', url: `${gateways.ipfs}/ipfs/${cid}${below}` };
}

function arweaveSource(rest: string, gateways: LogoGateways): LogoSource {
  const { id, path } = splitId(rest);
  if (!ARWEAVE_ID.test(id)) return unusable(`ar logo: ${JSON.stringify(id.slice(0, 100))} is not an Arweave id`);
  const below = safePath(path);
  if (below === null) return unusable('ar logo: its path is not usable');
  if (gateways.arweave === undefined)
    return unusable('ar logo not fetched: no Arweave gateway configured (--arweave-gateway)', 'arweave');
  return { kind: 'url', url: `${gateways.arweave}/${id}${below}` };
}

/** A `data:` URI's bytes (decoded as the Fetch standard says: base64 or percent-encoded). */
async function dataSource(uri: string, maxBytes: number): Promise<LogoSource> {
  // Percent-encoding takes at most three characters a byte, base64 four for three.
  if (uri.length > maxBytes * 3 + 1024) return unusable(`data: logo is larger than ${maxBytes} bytes`);
  let bytes: Buffer;
  try {
    const response = await fetch(uri);
    bytes = Buffer.from(await response.arrayBuffer());
  } catch {
    return unusable('data: logo is not a valid data URI');
  }
  if (bytes.length > maxBytes) return unusable(`data: logo is larger than ${maxBytes} bytes`);
  if (bytes.length === 0) return unusable('data: logo is empty');
  return { kind: 'bytes', bytes };
}

function httpsSource(text: string): LogoSource {
  try {
    return { kind: 'url', url: new URL(text).href };
  } catch {
    return unusable('https logo: not a valid URL');
  }
}

/** Where a logo given as text points; null when the text is neither a URI nor a CID. */
async function textSource(text: string, gateways: LogoGateways, maxBytes: number): Promise<LogoSource | null> {
  const trimmed = text.trim();
  if (trimmed === '') return unusable('logo is empty');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'data') return dataSource(trimmed, maxBytes);
  if (trimmed.length > MAX_URI_CHARS) return unusable(`logo URI is longer than ${MAX_URI_CHARS} characters`);
  if (scheme === 'ipfs') return ipfsSource(trimmed.slice('ipfs:'.length).replace(/^\/\//, ''), gateways);
  if (scheme === 'ar') return arweaveSource(trimmed.slice('ar:'.length).replace(/^\/\//, ''), gateways);
  if (scheme === 'https') return httpsSource(trimmed);
  if (scheme === 'http') return unusable('http logo not fetched: plain http is refused (https only)');
  if (scheme !== undefined) return unusable(`${scheme}: logos are not fetched (ipfs, ar, https or data only)`);
  if (trimmed.startsWith('/ipfs/')) return ipfsSource(trimmed.slice('/ipfs/'.length), gateways);
  if (parseCid(splitId(trimmed).id) !== null) return ipfsSource(trimmed, gateways);
  return null;
}

/** Text that reads as a URI or CID rather than image data: printable, short, no markup. */
function looksLikeUri(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith('<') || trimmed === '') return false;
  // eslint-disable-next-line no-control-regex -- control characters mark binary data, not a URI
  return !/[\u0000-\u0008\u000e-\u001f\u007f]/.test(trimmed);
}

/**
 * What to do with a logo: fetch a URL, use the bytes given, or why it cannot be used. Text and bytes that
 * decode as a URI or CID are followed; other bytes, and text that is markup (SVG), are taken as image data
 * (the image step sniffs them); other text is refused.
 * `maxBytes` (default 2 MiB) bounds inline images.
 */
export async function logoSource(
  input: LogoInput,
  gateways: LogoGateways,
  maxBytes = DEFAULT_MAX_BYTES,
): Promise<LogoSource> {
  if (typeof input === 'string') {
    if (input.trim().startsWith('<')) {
      const bytes = Buffer.from(input, 'utf8');
      return bytes.length > maxBytes ? unusable(`logo is larger than ${maxBytes} bytes`) : { kind: 'bytes', bytes };
    }
    return (
      (await textSource(input, gateways, maxBytes)) ??
      unusable(`logo ${JSON.stringify(input.trim().slice(0, 60))} is neither a URI nor a CID`)
    );
  }
  const bytes =
    input instanceof Uint8Array ? Buffer.from(input) : Buffer.concat(input.map((chunk) => Buffer.from(chunk)));
  if (bytes.length === 0) return unusable('logo is empty');
  if (bytes.length > maxBytes * 3 + 1024) return unusable(`logo is larger than ${maxBytes} bytes`);
  let text: string | null = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: image data.
  }
  const pointed = text !== null && looksLikeUri(text) ? await textSource(text, gateways, maxBytes) : null;
  if (pointed) return pointed;
  return bytes.length > maxBytes ? unusable(`logo is larger than ${maxBytes} bytes`) : { kind: 'bytes', bytes };
}
