import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { STREAM_ERRORS } from '../../src/shared/api/stream';
import { DEFAULT_PLANS } from '../../src/service/auth/plans';
import { logoPath, streamInit, STREAM_PATH, tokensCurrentPath } from '../support/builders';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { readStream } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

const FREE_PER_MINUTE = DEFAULT_PLANS.free?.requestsPerMinute ?? 0;

/** Spends a key's whole minute with successful requests, checking RateLimit-Remaining counts down. */
async function spend(key: string, path: string): Promise<void> {
  for (let i = 1; i <= FREE_PER_MINUTE; i++) {
    const response = await service.request(path, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get('RateLimit-Limit')).toBe(String(FREE_PER_MINUTE));
    expect(response.headers.get('RateLimit-Remaining')).toBe(String(FREE_PER_MINUTE - i));
    await response.arrayBuffer();
  }
}

/** A 429's headers: the budget is spent until the one-minute window that began with the key's first request closes. */
function expectLimitHeaders(response: Response): void {
  expect(response.status).toBe(429);
  const retry = Number(response.headers.get('Retry-After'));
  // The whole budget was spent within the test's few seconds: the window closes in nearly a minute.
  expect(retry).toBeGreaterThan(40);
  expect(retry).toBeLessThanOrEqual(60);
  expect(response.headers.get('RateLimit-Limit')).toBe(String(FREE_PER_MINUTE));
  expect(response.headers.get('RateLimit-Remaining')).toBe('0');
  expect(response.headers.get('RateLimit-Reset')).toBe(String(retry));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('rate limit of a free-plan key', () => {
  it('refuses the 61st request in a minute on a price endpoint with 429 {"s":"error"} and the limit headers', async () => {
    const key = await service.newKey('free');
    await spend(key, `${API}/groups`);
    const refused = await service.request(`${API}/groups`, { key });
    expectLimitHeaders(refused);
    expect(priceErrorSchema.parse(await refused.json()).errmsg).toMatch(/rate limit/i);
  });

  it('refuses the 61st request on a token endpoint with 429 {"detail":[...]} and the limit headers', async () => {
    const key = await service.newKey('free');
    const { aggregate } = await busiestPools(service.runtime, { adaPairsOnly: true });
    await spend(key, tokensCurrentPath({ pool: aggregate.poolId }));
    const refused = await service.request(logoPath(aggregate.pair.quote.unit), { key });
    expectLimitHeaders(refused);
    const body = tokenErrorSchema.parse(await refused.json());
    expect(body.detail[0]?.type).toBe('rate_limit_exceeded');
  });

  it('refuses to open a stream past the limit with an error event and the limit headers', async () => {
    const key = await service.newKey('free');
    await spend(key, `${API}/groups`);
    const { aggregate } = await busiestPools(service.runtime);
    const refused = await service.request(STREAM_PATH, { ...streamInit([aggregate.poolId]), key });
    expectLimitHeaders(refused);
    expect(refused.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    expect(await readStream(refused).readToEnd()).toEqual([
      JSON.stringify({ s: 'error', errmsg: STREAM_ERRORS.rateLimit }),
    ]);
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
  });

  it('counts every route of a key against one budget', async () => {
    const key = await service.newKey('free');
    const { aggregate } = await busiestPools(service.runtime, { adaPairsOnly: true });
    const paths = [`${API}/groups`, tokensCurrentPath({ pool: aggregate.poolId }), logoPath(aggregate.pair.quote.unit)];
    for (let i = 0; i < FREE_PER_MINUTE; i++)
      expect((await service.request(paths[i % 3] ?? '', { key })).status).toBe(200);
    expect((await service.request(paths[0] ?? '', { key })).status).toBe(429);
  });

  it('counts refused requests that were authenticated (bad parameters) too, and keeps keys apart', async () => {
    const key = await service.newKey('free');
    for (let i = 0; i < FREE_PER_MINUTE; i++)
      expect((await service.request(`${API}/history`, { key })).status).toBe(400);
    expect((await service.request(`${API}/groups`, { key })).status).toBe(429);
    expect((await service.request(`${API}/groups`, { key: await service.newKey('free') })).status).toBe(200);
  });

  it('gives the whole budget back when the window closes, and not a moment before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const key = await service.newKey('free');
    await spend(key, `${API}/groups`);
    const refused = await service.request(`${API}/groups`, { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toBe('60');
    vi.setSystemTime(Date.now() + 59_000);
    const early = await service.request(`${API}/groups`, { key });
    expect(early.status).toBe(429);
    expect(early.headers.get('Retry-After')).toBe('1');
    expect(early.headers.get('RateLimit-Reset')).toBe('1');
    vi.setSystemTime(Date.now() + 1_000);
    await spend(key, `${API}/groups`);
    expect((await service.request(`${API}/groups`, { key })).status).toBe(429);
  });
});

describe('plan limits', () => {
  it('gives each plan its documented requests per minute', async () => {
    for (const plan of ['free', 'pro', 'enterprise'] as const) {
      const response = await service.request(`${API}/groups`, { key: await service.newKey(plan) });
      expect(response.headers.get('RateLimit-Limit')).toBe(String(DEFAULT_PLANS[plan]?.requestsPerMinute));
    }
  });

  it('reads plan overrides from TOKEN_API_PLANS', async () => {
    const custom = await createTestService({
      days: 0.1,
      env: { TOKEN_API_PLANS: '{"free":{"requestsPerMinute":2,"poolsPerStream":1}}' },
    });
    try {
      const key = custom.keys.free;
      expect((await custom.request(`${API}/groups`, { key })).status).toBe(200);
      expect((await custom.request(`${API}/groups`, { key })).status).toBe(200);
      const refused = await custom.request(`${API}/groups`, { key });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(50);
    } finally {
      await custom.close();
    }
  });
});
