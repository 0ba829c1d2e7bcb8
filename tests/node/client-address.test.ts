import { describe, expect, it } from 'vitest';
import { addressKey, clientAddressOf, clientKey, NO_PROXY_TRUST, parseProxyTrust } from '../../src/node/client-address';

describe('TRUST_PROXY', () => {
  it('takes addresses and CIDR blocks of both families, separated by commas or spaces', () => {
    const trust = parseProxyTrust('10.0.0.0/8, 192.0.2.7 2001:db8:aa::/48,::1');
    expect(trust.entries).toEqual(['10.0.0.0/8', '192.0.2.7', '2001:db8:aa::/48', '::1']);
    for (const inside of ['10.1.2.3', '::ffff:10.200.0.1', '192.0.2.7', '2001:db8:aa:ffff::9', '::1'])
      expect(trust.trusts(inside), inside).toBe(true);
    for (const outside of ['11.0.0.1', '192.0.2.8', '2001:db8:ab::1', '::2', 'local', 'garbage', ''])
      expect(trust.trusts(outside), outside).toBe(false);
  });

  it('refuses an entry that is no address or block, naming it', () => {
    for (const bad of [
      '10.0.0.0/33',
      '10.0.0.256',
      '2001:db8::/129',
      'proxy.example',
      '10.0.0.0/8/1',
      '10.0.0.0/-1',
      '10.0.0.0/',
    ]) {
      expect(() => parseProxyTrust(bad), bad).toThrow(
        new RegExp(`^TRUST_PROXY: "${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not an IP address or CIDR block`),
      );
    }
    expect(parseProxyTrust('').trusts('127.0.0.1')).toBe(false);
    expect(parseProxyTrust(undefined).entries).toEqual([]);
  });
});

describe('the client of a request', () => {
  const trust = parseProxyTrust('10.0.0.1,10.0.0.2');
  const forwarded = parseProxyTrust('10.0.0.1,10.0.0.2', 'forwarded');

  it('is the TCP peer unless the peer is trusted: a client writes the header as it likes', () => {
    expect(clientAddressOf('203.0.113.9', '198.51.100.1', trust)).toBe('203.0.113.9');
    expect(clientAddressOf('203.0.113.9', '198.51.100.1', NO_PROXY_TRUST)).toBe('203.0.113.9');
    expect(clientAddressOf('::ffff:203.0.113.9', undefined, trust)).toBe('203.0.113.9');
  });

  it('behind trusted proxies, is the nearest address that is not one of them (what they saw connect)', () => {
    // The client forged the first entry; the proxy appended what it saw.
    expect(clientAddressOf('10.0.0.1', '1.1.1.1, 198.51.100.7', trust)).toBe('198.51.100.7');
    // Two proxies in a row, both trusted.
    expect(clientAddressOf('10.0.0.1', '1.1.1.1, 198.51.100.7, 10.0.0.2', trust)).toBe('198.51.100.7');
    // A proxy we do not trust in the chain: what it says is not believed.
    expect(clientAddressOf('10.0.0.1', '198.51.100.7, 192.0.2.50', trust)).toBe('192.0.2.50');
    // Only trusted addresses: the farthest one.
    expect(clientAddressOf('10.0.0.1', '10.0.0.2', trust)).toBe('10.0.0.2');
    // Ports and brackets as proxies write them.
    expect(clientAddressOf('10.0.0.1', '198.51.100.7:4711', trust)).toBe('198.51.100.7');
    expect(clientAddressOf('10.0.0.1', '[2001:db8::5]:443', trust)).toBe('2001:db8::5');
    expect(clientAddressOf('10.0.0.1', '2001:db8::5', trust)).toBe('2001:db8::5');
  });

  it('is the trusted proxy itself when its header names no address (unknown, hidden, garbage, empty)', () => {
    for (const header of ['unknown', '_hidden', 'not an address', '', ' , ', '1.2.3.4, unknown'])
      expect(clientAddressOf('10.0.0.1', header, trust), header).toBe('10.0.0.1');
    expect(clientAddressOf('10.0.0.1', 'unknown, 10.0.0.2', trust)).toBe('10.0.0.2');
  });

  it('reads RFC 7239 Forwarded when that is the configured header, and then not X-Forwarded-For', () => {
    expect(clientAddressOf('10.0.0.1', 'for=1.1.1.1, for=198.51.100.7;proto=https;by=10.0.0.1', forwarded)).toBe(
      '198.51.100.7',
    );
    expect(clientAddressOf('10.0.0.1', 'for="[2001:db8:cafe::17]:4711"', forwarded)).toBe('2001:db8:cafe::17');
    expect(clientAddressOf('10.0.0.1', 'For="198.51.100.7:80";proto=http, for=10.0.0.2', forwarded)).toBe(
      '198.51.100.7',
    );
    expect(clientAddressOf('10.0.0.1', 'for=unknown', forwarded)).toBe('10.0.0.1');
    expect(clientAddressOf('10.0.0.1', 'for=_gazonk', forwarded)).toBe('10.0.0.1');
    expect(clientAddressOf('10.0.0.1', 'proto=https', forwarded)).toBe('10.0.0.1');
    // What a key reads: the configured header only.
    const headers = (values: Record<string, string>) => (name: string) => values[name];
    const env = { incoming: { socket: { remoteAddress: '10.0.0.1' } } };
    expect(
      clientKey(env, headers({ 'x-forwarded-for': '198.51.100.1', forwarded: 'for=198.51.100.2' }), forwarded),
    ).toBe('198.51.100.2');
    expect(clientKey(env, headers({ 'x-forwarded-for': '198.51.100.1', forwarded: 'for=198.51.100.2' }), trust)).toBe(
      '198.51.100.1',
    );
  });

  it('looks at no more than 32 hops', () => {
    const everyone = parseProxyTrust('0.0.0.0/0');
    const chain = Array.from({ length: 40 }, (_, i) => `10.1.0.${i}`).join(', ');
    expect(clientAddressOf('10.0.0.1', chain, everyone)).toBe('10.1.0.8');
  });
});

describe('the key per-client limits count under', () => {
  it('is an IPv4 address as it is, an IPv6 address by its /64 in one spelling', () => {
    expect(addressKey('198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    const sameNetwork = [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:abcd::',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:198.51.100.7',
    ];
    expect(new Set(sameNetwork.map(addressKey))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
    expect(addressKey('local')).toBe('local');
  });

  it('is the in-process `local` without a socket', () => {
    expect(clientKey(undefined, () => '198.51.100.1', parseProxyTrust('0.0.0.0/0'))).toBe('local');
  });
});
