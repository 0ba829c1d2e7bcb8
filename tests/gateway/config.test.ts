import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../src/gateway/config';

describe('gateway configuration', () => {
  it('takes an upstream origin with an optional path, without trailing slashes', () => {
    const config = parseGatewayConfig({ UPSTREAM_URL: 'https://api.example.com/base/', UPSTREAM_API_KEY: 'k-0000001' });
    expect(config.upstreamUrl).toBe('https://api.example.com/base');
  });

  it('refuses an upstream URL with credentials, a query or a fragment, naming the variable', () => {
    for (const url of [
      'https://user:pw@api.example.com',
      'https://api.example.com/?key=abc',
      'https://api.example.com/#x',
    ]) {
      expect(() => parseGatewayConfig({ UPSTREAM_URL: url, UPSTREAM_API_KEY: 'k-0000001' }), url).toThrow(
        /^UPSTREAM_URL .*UPSTREAM_API_KEY/,
      );
    }
  });

  it('gives each client address a quarter of the upstream pools and trusts no proxy by default', () => {
    const config = parseGatewayConfig({});
    expect(config.addressSharePercent).toBe(25);
    expect(config.trustProxy.entries).toEqual([]);
    expect(config.trustProxy.trusts('127.0.0.1')).toBe(false);
  });

  it('reads the share, the trusted proxies and their header', () => {
    const config = parseGatewayConfig({
      GATEWAY_ADDRESS_SHARE_PERCENT: '100',
      TRUST_PROXY: '10.0.0.0/8 ::1',
      TRUST_PROXY_HEADER: 'Forwarded',
    });
    expect(config.addressSharePercent).toBe(100);
    expect(config.trustProxy.header).toBe('forwarded');
    expect(config.trustProxy.trusts('10.9.9.9') && config.trustProxy.trusts('::1')).toBe(true);
    expect(parseGatewayConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy.header).toBe('x-forwarded-for');
  });

  it('refuses a bad share, proxy or header, naming the variable', () => {
    expect(() => parseGatewayConfig({ GATEWAY_ADDRESS_SHARE_PERCENT: '0' })).toThrow(
      /^GATEWAY_ADDRESS_SHARE_PERCENT: .*positive/,
    );
    expect(() => parseGatewayConfig({ GATEWAY_ADDRESS_SHARE_PERCENT: '101' })).toThrow(
      /^GATEWAY_ADDRESS_SHARE_PERCENT must be a percentage, 1-100/,
    );
    expect(() => parseGatewayConfig({ GATEWAY_ADDRESS_SHARE_PERCENT: '12.5' })).toThrow(
      /^GATEWAY_ADDRESS_SHARE_PERCENT: .*whole number/,
    );
    expect(() => parseGatewayConfig({ TRUST_PROXY: 'lb.internal' })).toThrow(
      /^TRUST_PROXY: "lb.internal" is not an IP address or CIDR block/,
    );
    expect(() => parseGatewayConfig({ TRUST_PROXY: '10.0.0.1', TRUST_PROXY_HEADER: 'x-real-ip' })).toThrow(
      /^TRUST_PROXY_HEADER must be x-forwarded-for or forwarded/,
    );
  });

  it('merges rollbacks to browsers over 1 s by default; 0 sends each at once; a bad value is named', () => {
    expect(parseGatewayConfig({}).rollbackWindowMs).toBe(1000);
    expect(parseGatewayConfig({ GATEWAY_ROLLBACK_WINDOW_MS: '0' }).rollbackWindowMs).toBe(0);
    expect(parseGatewayConfig({ GATEWAY_ROLLBACK_WINDOW_MS: '250' }).rollbackWindowMs).toBe(250);
    expect(() => parseGatewayConfig({ GATEWAY_ROLLBACK_WINDOW_MS: 'soon' })).toThrow(/^GATEWAY_ROLLBACK_WINDOW_MS/);
  });
});
