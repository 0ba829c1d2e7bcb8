import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { hashKey } from '../../src/service/auth/keys';
import { STREAM_ERRORS } from '../../src/shared/api/stream';
import { historyPath, logoPath, streamInit, STREAM_PATH, symbolInfoPath, tokensCurrentPath } from '../support/builders';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { readStream } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let priceRoutes: string[];
let tokenRoutes: string[];
let aggregateId: string;

beforeAll(async () => {
  service = await createTestService();
  const { aggregate } = await busiestPools(service.runtime, { adaPairsOnly: true });
  aggregateId = aggregate.poolId;
  const to = service.clock.seconds();
  priceRoutes = [
    `${API}/groups`,
    symbolInfoPath('Aggregate'),
    symbolInfoPath(),
    historyPath({ symbol: aggregate.poolId, resolution: '60min', from: to - 86_400, to }),
  ];
  tokenRoutes = [
    tokensCurrentPath({ policy: aggregate.pair.quote.unit }),
    tokensCurrentPath({ pool: aggregate.poolId }),
    logoPath(aggregate.pair.quote.unit),
  ];
});
afterAll(async () => service.close());

/** Ways of not presenting a valid key: [case, Authorization header or null for none]. */
const BAD_CREDENTIALS: readonly [string, string | null][] = [
  ['no Authorization header', null],
  ['an unknown key', 'Bearer not-a-key-of-this-service'],
  ['an empty bearer token', 'Bearer '],
  ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
  ['a bare key without scheme', 'test-enterprise-key-000001'],
];

function init(header: string | null): { key: null; headers?: Record<string, string> } {
  return header === null ? { key: null } : { key: null, headers: { Authorization: header } };
}

describe('authentication on the price endpoints', () => {
  it.each(BAD_CREDENTIALS)('answers 401 {"s":"error"} to %s on every route', async (_case, header) => {
    for (const path of priceRoutes) {
      const response = await service.request(path, init(header));
      expect(response.status, path).toBe(401);
      expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
      priceErrorSchema.parse(await response.json());
    }
  });

  it('checks the key before the parameters', async () => {
    const response = await service.request(historyPath({ symbol: 'nope', resolution: 'bad' }), { key: null });
    expect(response.status).toBe(401);
    priceErrorSchema.parse(await response.json());
  });
});

describe('authentication on the token endpoints', () => {
  it.each(BAD_CREDENTIALS)('answers 401 {"detail":[...]} to %s on every route', async (_case, header) => {
    for (const path of tokenRoutes) {
      const response = await service.request(path, init(header));
      expect(response.status, path).toBe(401);
      const body = tokenErrorSchema.parse(await response.json());
      expect(body.detail[0]?.loc).toEqual(['header', 'Authorization']);
    }
  });

  it('checks the key before the parameters', async () => {
    const both = await service.request(tokensCurrentPath({ policy: 'zz', pool: 'zz' }), { key: null });
    expect(both.status).toBe(401);
    const malformed = await service.request(logoPath('not-hex'), { key: null });
    expect(malformed.status).toBe(401);
    tokenErrorSchema.parse(await malformed.json());
  });
});

describe('authentication on the stream', () => {
  it.each(BAD_CREDENTIALS)('sends the error event "Invalid authentication" to %s, then ends', async (_case, header) => {
    const response = await service.request(STREAM_PATH, { ...streamInit([aggregateId]), ...init(header) });
    expect(response.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    const lines = await readStream(response).readToEnd();
    expect(lines).toEqual([JSON.stringify({ s: 'error', errmsg: STREAM_ERRORS.invalidAuth })]);
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
  });
});

describe('keys from the key store', () => {
  it('accepts a stored key and refuses it once revoked', async () => {
    const key = await service.newKey('pro');
    expect((await service.request(`${API}/groups`, { key })).status).toBe(200);
    expect(Number((await service.request(`${API}/groups`, { key })).headers.get('RateLimit-Limit'))).toBe(600);
    await runtimeInternals(service.runtime).keyStore.revoke(key.slice(0, 12));
    expect((await service.request(`${API}/groups`, { key })).status).toBe(401);
    expect((await service.request(tokenRoutes[0] ?? '', { key })).status).toBe(401);
  });

  it('tells apart stored keys that share their clear prefix, and refuses a guess with that prefix', async () => {
    const prefix = 'cdx_SharedPf';
    const first = `${prefix}${'a'.repeat(31)}`;
    const second = `${prefix}${'b'.repeat(31)}`;
    // Two stored keys sharing a clear prefix (a 1 in 2^72 chance with generated keys): stored as they would be.
    await runtimeInternals(service.runtime).store.keys.create(hashKey(first), prefix, 'free', 'first', 0);
    await runtimeInternals(service.runtime).store.keys.create(hashKey(second), prefix, 'pro', 'second', 0);
    expect((await service.request(`${API}/groups`, { key: first })).headers.get('RateLimit-Limit')).toBe('60');
    expect((await service.request(`${API}/groups`, { key: second })).headers.get('RateLimit-Limit')).toBe('600');
    expect((await service.request(`${API}/groups`, { key: `${prefix}${'c'.repeat(31)}` })).status).toBe(401);
  });
});
