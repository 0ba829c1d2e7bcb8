import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupsResponseSchema } from '../../src/shared/api/groups';
import { ALL_GROUPS } from '../../src/shared/groups';
import { API, createTestService, type TestService } from '../support/service';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

describe('GET /groups', () => {
  it('lists every DEX group and Aggregate, in the documented names', async () => {
    const response = await service.request(`${API}/groups`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = groupsResponseSchema.parse(await response.json());
    expect(body.d.groups.map((g) => g.id)).toEqual([...ALL_GROUPS]);
    expect(body.d.groups.map((g) => g.id)).toContain('Aggregate');
  });

  it('accepts a trailing slash', async () => {
    const response = await service.request(`${API}/groups/`);
    expect(response.status).toBe(200);
    groupsResponseSchema.parse(await response.json());
  });

  it('carries the RateLimit headers on a success', async () => {
    const response = await service.request(`${API}/groups`);
    expect(Number(response.headers.get('RateLimit-Limit'))).toBe(6000);
    expect(Number(response.headers.get('RateLimit-Remaining'))).toBeGreaterThan(0);
    expect(response.headers.get('RateLimit-Reset')).toMatch(/^\d+$/);
  });
});

describe('GET /healthz', () => {
  it('answers without a key with the market size', async () => {
    const response = await service.request('/healthz', { key: null });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 'ok',
      pools: service.runtime.market.pools.size,
      tokens: service.runtime.market.tokens.size,
      streams: 0,
    });
    expect(body.blockHeight).toBe(service.runtime.simulator.blockHeight);
  });

  it('reports the block height as the market trades', async () => {
    const before = ((await (await service.request('/healthz', { key: null })).json()) as { blockHeight: number })
      .blockHeight;
    expect(await service.trade()).toBeGreaterThan(0);
    const after = ((await (await service.request('/healthz', { key: null })).json()) as { blockHeight: number })
      .blockHeight;
    expect(after).toBe(before + 1);
  });

  it('reports when the last block was made', async () => {
    service.clock.advanceSeconds(5);
    await service.trade();
    const body = (await (await service.request('/healthz', { key: null })).json()) as { lastBlockTime: number };
    expect(body.lastBlockTime).toBe(service.clock.seconds());
  });
});
