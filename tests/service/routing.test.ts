import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { logoPath, streamInit, STREAM_PATH, symbolInfoPath, tokensCurrentPath } from '../support/builders';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { readStream } from '../support/stream';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

describe('unknown paths', () => {
  it.each([
    `${API}/nope`,
    `${API}/history/extra`,
    `${API}/v2/groups`,
    '/api/v2/groups',
    `${API}/`,
    `${API}/symbol_info/Minswap`,
  ])('answer 404 {"s":"error"} outside /tokens (%s)', async (path) => {
    const response = await service.request(path);
    expect(response.status).toBe(404);
    priceErrorSchema.parse(await response.json());
  });

  it.each([
    `${API}/tokens`,
    `${API}/tokens/`,
    `${API}/tokens/price`,
    `${API}/tokens/logo`,
    `${API}/tokens/logo/`,
    `${API}/tokens/logo/ab/cd`,
  ])('answer 404 {"detail":[...]} under /tokens (%s)', async (path) => {
    const response = await service.request(path);
    expect(response.status).toBe(404);
    tokenErrorSchema.parse(await response.json());
  });
});

describe('wrong methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answer 405 with Allow to %s on the price endpoints', async (method) => {
    for (const path of [`${API}/groups`, symbolInfoPath('Aggregate'), `${API}/history`]) {
      const response = await service.request(path, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('Allow')).toContain('GET');
      priceErrorSchema.parse(await response.json());
    }
  });

  it.each(['POST', 'PUT', 'DELETE'])('answer 405 {"detail":[...]} to %s on the token endpoints', async (method) => {
    for (const path of [tokensCurrentPath({ pool: 'ab' }), logoPath('ab'.repeat(28))]) {
      const response = await service.request(path, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      const body = tokenErrorSchema.parse(await response.json());
      expect(body.detail[0]?.type).toBe('method_not_allowed');
    }
  });

  it('answers GET on the stream with 405, Allow: POST and an error event', async () => {
    const response = await service.request(STREAM_PATH);
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toContain('POST');
    const lines = await readStream(response).readToEnd();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ s: 'error' });
  });

  it('answer 404, not 405, to a known path with an extra slash, whatever the method', async () => {
    for (const method of ['GET', 'POST']) {
      const price = await service.request(`${API}/groups//`, { method });
      expect(price.status, method).toBe(404);
      priceErrorSchema.parse(await price.json());
      const tokens = await service.request(`${API}/tokens/current//`, { method });
      expect(tokens.status, method).toBe(404);
      tokenErrorSchema.parse(await tokens.json());
      const stream = await service.request(`${STREAM_PATH}//`, { method });
      expect(stream.status, method).toBe(404);
      tokenErrorSchema.parse(await stream.json());
    }
  });

  it('names POST in Allow for the stream path with a trailing slash', async () => {
    const response = await service.request(`${STREAM_PATH}/`);
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('POST, OPTIONS');
    await response.text();
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await service.request(`${API}/groups`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });
});

describe('CORS', () => {
  it('answers a preflight without a key, allowing Authorization', async () => {
    const response = await service.request(`${API}/groups`, {
      method: 'OPTIONS',
      key: null,
      headers: {
        Origin: 'https://example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Headers')).toMatch(/Authorization/i);
  });

  it('exposes the rate-limit headers to browsers', async () => {
    const response = await service.request(`${API}/groups`, { headers: { Origin: 'https://example.com' } });
    expect(response.headers.get('Access-Control-Expose-Headers')).toContain('RateLimit-Remaining');
    expect(response.headers.get('Access-Control-Expose-Headers')).toContain('Retry-After');
  });

  it('keeps CORS headers on a stream response', async () => {
    const { aggregate } = await busiestPools(service.runtime);
    const response = await service.request(STREAM_PATH, {
      ...streamInit([aggregate.poolId], { Origin: 'https://example.com' }),
    });
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const stream = readStream(response);
    expect(await stream.next()).toEqual({ s: 'ok' });
    await stream.cancel();
  });
});
