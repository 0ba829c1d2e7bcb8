import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../src/gateway/config';

describe('gateway configuration', () => {
  it('takes an upstream origin with an optional path, without trailing slashes', () => {
    const config = parseGatewayConfig({ UPSTREAM_URL: 'https://api.example.com/base/', UPSTREAM_API_KEY: 'k-0000001' });
    expect(config.upstreamUrl).toBe('https://api.example.com/base');
  });

  it('refuses an upstream URL with credentials, a query or a fragment, naming the variable', () => {
    for (const url of ['https://user:pw@api.example.com', 'https://api.example.com/?key=abc', 'https://api.example.com/#x']) {
      expect(() => parseGatewayConfig({ UPSTREAM_URL: url, UPSTREAM_API_KEY: 'k-0000001' }), url).toThrow(/^UPSTREAM_URL .*UPSTREAM_API_KEY/);
    }
  });
});
