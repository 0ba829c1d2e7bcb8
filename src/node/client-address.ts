import { BlockList, isIP } from 'node:net';

/**
 * Who a request comes from, for per-client limits (the gateway's REST budget, live connections and
 * share of the upstream pools): the TCP peer, or behind a reverse proxy we were told to trust
 * (`TRUST_PROXY`), the address that proxy reports in `X-Forwarded-For` or `Forwarded` (RFC 7239).
 * A client elsewhere can write those headers too, so they are read only from a trusted peer, and only
 * the entries trusted proxies appended: the chain is walked from the nearest hop back to the first
 * address that is not one of the trusted proxies (what they saw connect to them).
 */

/** The header a trusted proxy reports the client in: the one the proxy sets (see docs/gateway.md). */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

export interface ProxyTrust {
  /** The entries as configured (for messages). */
  readonly entries: readonly string[];
  readonly header: ForwardedHeader;
  /** Whether `address` (an IP address, any spelling Node gives) is one of the trusted proxies. */
  trusts(address: string): boolean;
}

/** Trusts nobody: every request is its TCP peer's. */
export const NO_PROXY_TRUST: ProxyTrust = { entries: [], header: 'x-forwarded-for', trusts: () => false };

/** Most hops of a forwarding chain looked at (the rest, further from us, cannot be trusted anyway). */
const MAX_HOPS = 32;

/**
 * Reads `TRUST_PROXY`: addresses and CIDR blocks separated by commas or spaces (`10.0.0.0/8,
 * 2001:db8::/32, 127.0.0.1`). Throws an Error naming `name` and the entry that is neither.
 */
export function parseProxyTrust(
  value: string | undefined,
  header: ForwardedHeader = 'x-forwarded-for',
  name = 'TRUST_PROXY',
): ProxyTrust {
  const entries = (value ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) return { ...NO_PROXY_TRUST, header };
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const plain = unmapped(address);
    const family = isIP(plain);
    const bits = family === 4 ? 32 : 128;
    const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (family === 0 || extra !== undefined || !(length >= 0 && length <= bits)) {
      throw new Error(
        `${name}: "${entry.slice(0, 100)}" is not an IP address or CIDR block (e.g. 10.0.0.0/8, 2001:db8::/32, 127.0.0.1)`,
      );
    }
    list.addSubnet(plain, length, family === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    entries,
    header,
    trusts: (address) => {
      const plain = unmapped(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket reports) as IPv4; a zone (`%eth0`) dropped. */
function unmapped(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  return mapped?.[1] ?? bare;
}

/** One node of a forwarding header as an address, or undefined (`unknown`, an obfuscated `_id`, garbage). */
function nodeAddress(raw: string): string | undefined {
  let node = raw.trim();
  if (node.startsWith('"') && node.endsWith('"') && node.length >= 2) node = node.slice(1, -1).replace(/\\(.)/g, '$1');
  // [v6] or [v6]:port
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(node);
  if (bracketed?.[1] !== undefined) node = bracketed[1];
  // v4:port (a bare v6 has more than one colon)
  else if (/^[\d.]+:\d+$/.test(node)) node = node.slice(0, node.lastIndexOf(':'));
  node = unmapped(node);
  return isIP(node) === 0 ? undefined : node;
}

/** The `for=` nodes of a `Forwarded` header, nearest last; undefined for an element without one. */
function forwardedChain(header: string): (string | undefined)[] {
  return header.split(',').map((element) => {
    const pair = element.split(';').find((p) => /^\s*for\s*=/i.test(p));
    return pair === undefined ? undefined : nodeAddress(pair.slice(pair.indexOf('=') + 1));
  });
}

/**
 * The client of a request whose TCP peer is `peer`, given its forwarding header's value: the peer
 * itself unless the peer is trusted; then the nearest address of the chain that is not a trusted proxy.
 * An entry that is no address (`unknown`, an obfuscated identifier, garbage) ends the walk: the client
 * is then the trusted hop that wrote it, since nothing further can be told apart.
 */
export function clientAddressOf(peer: string, forwarded: string | undefined, trust: ProxyTrust): string {
  const self = unmapped(peer);
  if (forwarded === undefined || !trust.trusts(self)) return self;
  const chain = trust.header === 'forwarded' ? forwardedChain(forwarded) : forwarded.split(',').map(nodeAddress);
  let client = self;
  for (let hop = chain.length - 1, seen = 0; hop >= 0 && seen < MAX_HOPS; hop--, seen++) {
    const address = chain[hop];
    if (address === undefined) return client;
    client = address;
    if (!trust.trusts(address)) return address;
  }
  return client;
}

/**
 * The key per-client limits count under: an IPv4 address as it is, an IPv6 address by its /64 (one
 * subscriber's network: a host picks any of its 2^64 addresses at will, so limits per address would
 * mean nothing), e.g. `2001:db8:1:2::/64`. Anything else (the in-process `local`) as it is.
 */
export function addressKey(address: string): string {
  const plain = unmapped(address);
  if (isIP(plain) !== 6) return plain;
  const groups = expandIpv6(plain)
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''));
  return `${groups.join(':')}::/64`;
}

/** The eight groups of an IPv6 address (four hex digits each), `::` and a trailing dotted IPv4 expanded. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((group) => group.padStart(4, '0'));
}

/** The TCP peer of a request served by @hono/node-server (`local` in-process, where there is none). */
export function peerAddress(env: unknown): string {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/**
 * The per-client limits' key of a request: its client (`clientAddressOf` over the configured header)
 * by `addressKey`. `header(name)` reads a request header (Hono's `c.req.header`).
 */
export function clientKey(env: unknown, header: (name: string) => string | undefined, trust: ProxyTrust): string {
  const peer = peerAddress(env);
  if (peer === 'local') return peer;
  return addressKey(clientAddressOf(peer, header(trust.header), trust));
}
