import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyResponseSchema } from '../../../src/shared/api/history';
import { tokenStatsSchema } from '../../../src/shared/api/tokens';
import { startPostgres, type TestPostgres } from '../../support/engines';
import { allBarRows, busiestPools, storedTrades } from '../../support/market';
import { API, createTestService, type TestService } from '../../support/service';
import { runtimeInternals } from '../../../src/service/runtime-internals';

/**
 * The service on PostgreSQL (`DATABASE_URL`): the same market, answers, restart and single-writer
 * rule as on SQLite, on a real PostgreSQL 15.
 */
let server: TestPostgres;
let url: string;
let service: TestService;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase('runtime');
  service = await createTestService({ pools: 80, days: 1, env: { DATABASE_URL: url } });
}, 180_000);
afterAll(async () => {
  await service?.close();
  await server?.destroy();
});

describe('the service on PostgreSQL', () => {
  it('creates and backfills the market there, and serves /history and /tokens/current from it', async () => {
    const trades = await storedTrades(service.runtime);
    expect(trades.length).toBeGreaterThan(500);
    const { aggregate } = await busiestPools(service.runtime);
    const to = service.clock.seconds();
    const body = historyResponseSchema.parse(
      await service.getJson(
        `${API}/history?symbol=${aggregate.poolId}&resolution=60min&from=${to - 86_400}&to=${to + 1}`,
      ),
    );
    expect(body.t.length).toBeGreaterThan(5);
    tokenStatsSchema.parse(await service.getJson(`${API}/tokens/current?pool=${aggregate.poolId}`));
  });

  it('keeps bars equal to a rebuild after live blocks', async () => {
    for (let i = 0; i < 5; i++) {
      service.clock.advanceSeconds(30);
      await service.trade();
    }
    const bars = await allBarRows(service.runtime);
    await runtimeInternals(service.runtime).store.bars.rebuild();
    expect(await allBarRows(service.runtime)).toEqual(bars);
  });

  it('refuses a second writer on the same database, and restarts where it left off', async () => {
    await expect(createTestService({ pools: 80, days: 1, env: { DATABASE_URL: url } })).rejects.toThrow(
      /is in use by another writer/,
    );
    const count = (await storedTrades(service.runtime)).length;
    service = await service.restart();
    expect(service.runtime.startupTrades).toBe(0);
    expect((await storedTrades(service.runtime)).length).toBe(count);
  });
});
