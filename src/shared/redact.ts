/**
 * Making the addresses of what the server connects to (Ogmios, the gateway's upstream, PostgreSQL,
 * Redis) safe to show: in `/healthz`, `/gw/v1/info`, logs, error messages and configuration errors.
 *
 * A hosted endpoint may carry its key in any part of its URL: in a host label
 * (`wss://KEY.cardano-mainnet-v6.ogmios-m1.demeter.run`), in the path (`wss://host/KEY`), in the query
 * (`?api-key=KEY`) or as user info (`redis://:KEY@host`, `postgres://user:KEY@host/db`). So the shown
 * form keeps only what cannot carry one:
 * - the scheme, when it is one of the few this server speaks (a fixed word, never chosen by a provider);
 * - the port, when the URL names one (a number below 65,536: 16 bits hold no key, and it tells apart
 *   two services on one machine);
 * - and in place of everything else, the fixed placeholder {@link REDACTED}.
 * An IP-literal host could carry no key, but it is dropped as well: one rule ("nothing of the host")
 * is one that can be checked, and the operator knows which address they configured; the message
 * around a shown URL names its setting (OGMIOS_URL, UPSTREAM_URL, DATABASE_URL, REDIS_URL).
 *
 * Client libraries put the address, or parts of it, in their error texts (`request to
 * http://HOST/KEY/health failed`, `getaddrinfo ENOTFOUND KEY.host`, `database "KEY" does not exist`):
 * {@link redactText} removes every part of the given addresses from a text, and {@link textRedactor}
 * does the same with the work done once.
 */

/** What stands for every part of an address that could carry a key. */
export const REDACTED = '<redacted>';

/** Schemes shown as they are: the ones this server's settings accept. Any other is dropped with the rest. */
const SHOWN_SCHEMES = new Set(['ws', 'wss', 'http', 'https', 'postgres', 'postgresql', 'redis', 'rediss']);

/**
 * Parts shorter than this are left in texts: no key is that short (a three-character secret is guessed
 * at once), and removing them would blot out words such as `api` or `v1` everywhere in a message.
 */
const MIN_PART_LENGTH = 4;

/**
 * An address as it may be shown: `scheme://<redacted>` and `:port` when it names one, e.g.
 * `wss://<redacted>:443`, `postgres://<redacted>:5432`. Anything that is not a URL (a mistyped setting)
 * is shown as `<redacted>` alone, with its scheme when that is one of ours.
 */
export function redactUrl(address: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(address.trim())?.[1]?.toLowerCase();
  const shownScheme = scheme !== undefined && SHOWN_SCHEMES.has(scheme) ? `${scheme}://` : '';
  let port = '';
  try {
    port = new URL(address.trim()).port;
  } catch {
    // Not a URL: no port is taken from it (its parts cannot be told apart).
  }
  return `${shownScheme}${REDACTED}${port === '' ? '' : `:${port}`}`;
}

/** `decodeURIComponent`, or the text itself when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The parts of an address that could carry a key, in each form a library may print them. */
function secretParts(address: string): { readonly exact: string[]; readonly host: string[] } {
  const exact = new Set<string>();
  const host = new Set<string>();
  const raw = address.trim();
  exact.add(raw);
  // The host as written (before the URL parser lower-cases or punycodes it), and the user info.
  const written = /^[a-z][a-z0-9+.-]*:\/\/(?:([^@/?#]*)@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(raw);
  if (written) {
    for (const part of (written[1] ?? '').split(':')) exact.add(part).add(decoded(part));
    host.add(written[2] ?? '');
  }
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url) {
    exact.add(url.href);
    host.add(url.hostname);
    if (url.hostname.startsWith('[')) host.add(url.hostname.slice(1, -1));
    for (const part of [url.username, url.password]) exact.add(part).add(decoded(part));
    // Without its first slash, so that a redacted text keeps its shape (`host:1/<redacted>/health`).
    const path = url.pathname.slice(1);
    exact.add(path).add(decoded(path));
    for (const segment of path.split('/')) exact.add(segment).add(decoded(segment));
    for (const piece of [url.search, url.search.slice(1), url.hash, url.hash.slice(1)])
      exact.add(piece).add(decoded(piece));
    for (const pair of url.search.slice(1).split('&')) {
      exact.add(pair);
      for (const piece of pair.split('=')) exact.add(piece).add(decoded(piece));
    }
  } else {
    // Not a URL: every run of characters between separators may be the key.
    for (const piece of raw.split(/[\s:/?#@&=]+/)) exact.add(piece).add(decoded(piece));
  }
  const long = (set: Set<string>) => [...set].filter((part) => part.length >= MIN_PART_LENGTH && !harmless(part));
  return { exact: long(exact), host: long(host) };
}

/**
 * A part that is a piece of a shown form (a scheme this server speaks, or the placeholder), such as the
 * customary user name `postgres`: no key, and removing it would spoil already redacted texts.
 */
function harmless(part: string): boolean {
  const lower = part.toLowerCase();
  return REDACTED.includes(lower) || [...SHOWN_SCHEMES].some((scheme) => scheme.includes(lower));
}

const escaped = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A pattern matching `part` in any letter case (host names are case-insensitive), the rest of the pattern case-sensitive. */
const anyCase = (part: string) =>
  [...part]
    .map((char) => {
      const [lower, upper] = [char.toLowerCase(), char.toUpperCase()];
      return lower !== upper && lower.length === 1 && upper.length === 1
        ? `[${escaped(lower)}${escaped(upper)}]`
        : escaped(char);
    })
    .join('');

/**
 * A function that removes every part of `addresses` able to carry a key from a text (an error message
 * of a client library, a log line): each whole address becomes its {@link redactUrl} form, and its host
 * (in any letter case), user name, password, path, path segments, query, query names and values and
 * fragment (as written and percent-decoded) become {@link REDACTED}. One pass, longest part first, so a
 * replacement is never searched again. Undefined and empty addresses are skipped, so a caller can pass
 * its settings as they are.
 */
export function textRedactor(addresses: readonly (string | undefined)[]): (text: string) => string {
  const given = addresses.filter((address): address is string => address !== undefined && address.trim() !== '');
  if (given.length === 0) return (text) => text;
  const whole = new Map<string, string>();
  const patterns = new Map<string, string>();
  for (const address of given) {
    const shown = redactUrl(address);
    whole.set(address.trim(), shown);
    try {
      whole.set(new URL(address.trim()).href, shown);
    } catch {
      // Not a URL: its written form is the one there is.
    }
    const parts = secretParts(address);
    for (const part of parts.exact) patterns.set(part, escaped(part));
    for (const part of parts.host) patterns.set(part, anyCase(part));
  }
  for (const part of whole.keys()) patterns.set(part, escaped(part));
  const alternation = [...patterns.entries()].sort(([a], [b]) => b.length - a.length).map(([, pattern]) => pattern);
  const pattern = new RegExp(alternation.join('|'), 'g');
  return (text) => text.replace(pattern, (match) => whole.get(match) ?? REDACTED);
}

/** {@link textRedactor} for a single text. */
export function redactText(text: string, addresses: readonly (string | undefined)[]): string {
  return textRedactor(addresses)(text);
}

/** An error's text (its message, or the value as a string) with `addresses` removed: what may be logged or shown. */
export function redactError(error: unknown, addresses: readonly (string | undefined)[]): string {
  const text =
    error instanceof Error
      ? error.message || error.constructor.name
      : typeof error === 'string'
        ? error
        : safeString(error);
  return redactText(text, addresses);
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * An error to throw on in place of `error` when its message holds a part of `addresses`: a plain Error
 * with the redacted message and the same `name` and `code` (what callers test), and no `cause` or stack
 * of the original (either could repeat the address). `error` itself when there is nothing to remove.
 */
export function redactedError(error: unknown, addresses: readonly (string | undefined)[]): unknown {
  const text = error instanceof Error ? error.message : undefined;
  if (text === undefined) return error;
  const shown = redactText(text, addresses);
  if (shown === text) return error;
  const replaced = new Error(shown);
  replaced.name = (error as Error).name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(replaced, { code });
  replaced.stack = `${replaced.name}: ${shown}`;
  return replaced;
}
