import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { remoteUpstream } from '../../src/gateway/upstream';
import { spreadsSchema } from '../../src/shared/api/extensions';
import { priceErrorSchema } from '../../src/shared/api/errors';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { createTestService, type TestService } from '../support/service';
import { serveLoopback, type Loopback } from './support/loopback';

/** /gw/v1/spreads forwards our /api/x/spreads, in embedded mode and before a remote service. */
describe('GET /gw/v1/spreads, embedded', () => {
  let tp: TestPlatform;
  beforeAll(async () => {
    tp = await createTestPlatform({ pools: 80, days: 0.3 });
  });
  afterAll(async () => tp.close());

  it('answers the service’s spreads at the asked TVL, and refuses bad input', async () => {
    const body = spreadsSchema.parse(await (await tp.fetch('/gw/v1/spreads?min_tvl=5000')).json());
    expect(body.min_tvl).toBe(5000);
    expect(body.base).toHaveLength(tp.runtime.market.pairs.size);
    const bad = await tp.fetch('/gw/v1/spreads?min_tvl=nope');
    expect(bad.status).toBe(400);
    expect(priceErrorSchema.parse(await bad.json()).errmsg).toMatch(/min_tvl/);
  });
});

describe('GET /gw/v1/spreads, before a remote service', () => {
  let service: TestService;
  let loopback: Loopback;
  let gateway: Gateway;
  beforeAll(async () => {
    service = await createTestService({ pools: 80, days: 0.3 });
    loopback = await serveLoopback(service.app.fetch);
    gateway = createGateway({ config: DEFAULT_GATEWAY_CONFIG, upstream: remoteUpstream(loopback.origin, service.key) });
  });
  afterAll(async () => {
    gateway.close();
    await loopback.close();
    await service.close();
  });

  it('gives the remote service’s answer, with the key the gateway holds', async () => {
    const direct = spreadsSchema.parse(await service.getJson('/api/x/spreads'));
    const response = await gateway.app.request('/gw/v1/spreads');
    expect(response.status).toBe(200);
    expect(spreadsSchema.parse(await response.json())).toEqual(direct);
  });
});
