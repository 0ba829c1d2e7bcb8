import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses an outbound request may reach: public unicast addresses only, unless the operator
 * lists a range as allowed. Classification is ipaddr.js's (its special ranges of IANA's registries);
 * IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
 */
export interface AddressPolicy {
  /** Why `address` may not be reached (e.g. "a loopback address"), or null when it may. */
  refusal(address: string): string | null;
}

/** How each special range is named in a refusal. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique local address (fc00::/7)',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  as112v6: 'an AS112 address',
  rfc6145: 'an IPv4-translated address (RFC 6145)',
  rfc6052: 'a NAT64 address (RFC 6052)',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a DRIP entity tag',
};

/** Parses CIDR ranges such as `10.1.0.0/16` or `fd00::/8`; throws an Error naming the bad one. */
export function parseCidrs(cidrs: readonly string[]): readonly [ipaddr.IPv4 | ipaddr.IPv6, number][] {
  return cidrs.map((cidr): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
    const text = cidr.trim();
    if (!ipaddr.isValidCIDR(text)) throw new Error(`${JSON.stringify(cidr)} is not a CIDR range such as 10.0.0.0/8`);
    const [address, bits] = ipaddr.parseCIDR(text);
    // A range of IPv4-mapped addresses (::ffff:a.b.c.d/96 and longer) is the IPv4 range it maps.
    const mapped = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96;
    return mapped ? [unmapped(address), bits - 96] : [address, bits];
  });
}

/** An IPv4-mapped IPv6 address as its IPv4 address; anything else unchanged. */
function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/** The policy: public unicast addresses, plus those inside `allowCidrs` (throws on a bad range). */
export function createAddressPolicy(allowCidrs: readonly string[] = []): AddressPolicy {
  const allowed = parseCidrs(allowCidrs);
  return {
    refusal(text) {
      const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
      if (!ipaddr.isValid(bare)) return 'not an IP address';
      const address = unmapped(ipaddr.parse(bare));
      if (allowed.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))) return null;
      const range = address.range();
      return range === 'unicast' ? null : (RANGE_NAMES[range] ?? `a special-purpose address (${range})`);
    },
  };
}
