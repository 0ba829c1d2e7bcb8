import { describe, expect, it } from 'vitest';
import { createAddressPolicy, parseCidrs } from '../../src/node/address-policy';

describe('address policy', () => {
  const policy = createAddressPolicy();

  it('lets public unicast addresses through, IPv4 and IPv6', () => {
    for (const address of ['1.1.1.1', '93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e'])
      expect(policy.refusal(address), address).toBeNull();
  });

  it('refuses loopback, private, CGNAT, link-local, multicast, unspecified, broadcast and reserved addresses', () => {
    const cases: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.45.6.7', /loopback/],
      ['::1', /loopback/],
      ['10.0.0.1', /private/],
      ['172.16.5.4', /private/],
      ['172.31.255.255', /private/],
      ['192.168.1.1', /private/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['100.127.255.254', /carrier-grade NAT/],
      ['169.254.169.254', /link-local/],
      ['fe80::1', /link-local/],
      ['fc00::1', /unique local/],
      ['fd12:3456::1', /unique local/],
      ['224.0.0.1', /multicast/],
      ['239.255.255.250', /multicast/],
      ['ff02::1', /multicast/],
      ['0.0.0.0', /unspecified/],
      ['::', /unspecified/],
      ['255.255.255.255', /broadcast/],
      ['240.0.0.1', /reserved/],
      ['192.0.2.10', /reserved/],
      ['198.18.0.1', /benchmarking|reserved/],
      ['2001:db8::1', /reserved/],
    ];
    for (const [address, reason] of cases) expect(policy.refusal(address), address).toMatch(reason);
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it carries, and IPv4 in IPv6 tunnels as refused', () => {
    expect(policy.refusal('::ffff:127.0.0.1')).toMatch(/loopback/);
    expect(policy.refusal('::ffff:10.1.2.3')).toMatch(/private/);
    expect(policy.refusal('::ffff:1.1.1.1')).toBeNull();
    expect(policy.refusal('64:ff9b::a00:1')).toMatch(/NAT64/);
    expect(policy.refusal('2002:7f00:1::1')).toMatch(/6to4/);
    expect(policy.refusal('[::1]')).toMatch(/loopback/);
  });

  it('lets an operator allow given ranges, and only those', () => {
    const allowing = createAddressPolicy(['10.1.0.0/16', 'fd00:1::/32', '127.0.0.1/32', '::ffff:192.168.7.0/120']);
    expect(allowing.refusal('10.1.2.3')).toBeNull();
    expect(allowing.refusal('10.2.0.1')).toMatch(/private/);
    expect(allowing.refusal('fd00:1::5')).toBeNull();
    expect(allowing.refusal('fd00:2::5')).toMatch(/unique local/);
    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(allowing.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(allowing.refusal('192.168.7.9')).toBeNull();
  });

  it('refuses what is not an IP address, and names a bad range', () => {
    expect(policy.refusal('example.com')).toBe('not an IP address');
    expect(() => parseCidrs(['10.0.0.0/33'])).toThrow(/"10.0.0.0\/33" is not a CIDR range/);
    expect(() => createAddressPolicy(['localhost'])).toThrow(/"localhost" is not a CIDR range/);
  });
});
