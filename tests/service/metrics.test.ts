import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTradeEvent, streamLineSchema, STREAM_ERRORS } from '../../src/shared/api/stream';
import { DATABASE_FILE } from '../../src/service/store/open';
import { aggregatesByActivity } from '../support/market';
import { registryValue } from '../support/metrics';
import { API, createTestService, TEST_KEYS, type TestService } from '../support/service';
import { openStream } from '../support/stream';

/**
 * The service's Prometheus metrics against what the service really did, on a real runtime (SQLite,
 * simulator) in-process: commits, the /history cache, streams and a slow consumer, refusals by plan,
 * the store's size, the simulator; and its readiness checks.
 */
let service: TestService;
const registry = new Registry();
const value = (name: string, labels: Record<string, string> = {}) => registryValue(registry, name, labels);

beforeAll(async () => {
  service = await createTestService({ days: 0.5, metrics: registry, config: { streamMaxBufferedBytes: 4096 } });
});
afterAll(async () => {
  await service?.close();
});

describe('service metrics', () => {
  it('counts every commit of the start, and the trades they wrote are the trades produced', async () => {
    const commits = await value('cdx_store_commit_duration_seconds_count', { result: 'ok' });
    expect(commits).toBeGreaterThan(1);
    expect(await value('cdx_store_commit_trades_count')).toBe(commits);
    expect(await value('cdx_store_commit_trades_sum')).toBe(service.runtime.startupTrades);
    const trades = await service.trade();
    expect(await value('cdx_store_commit_trades_sum')).toBe(service.runtime.startupTrades + trades);
    expect(await value('cdx_store_commit_duration_seconds_count', { result: 'ok' })).toBe((commits ?? 0) + 1);
    expect(await value('cdx_simulator_block_height')).toBe(service.runtime.simulator.blockHeight);
  });

  it("gives the SQLite store's size on disk, write-ahead log included", async () => {
    const file = join(service.dataDir, DATABASE_FILE);
    const size = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    expect(await value('cdx_store_bytes')).toBe(size(file) + size(`${file}-wal`));
    expect(size(file)).toBeGreaterThan(0);
  });

  it('counts /history chunk lookups: misses on the first read, hits on the same read again', async () => {
    const [pool] = await aggregatesByActivity(service.runtime);
    const now = service.clock.seconds();
    const path = `${API}/history?symbol=${pool?.poolId}&resolution=1min&from=${now - 86_400}&to=${now}`;
    const before = {
      hit: (await value('cdx_history_cache_lookups_total', { result: 'hit' })) ?? 0,
      miss: (await value('cdx_history_cache_lookups_total', { result: 'miss' })) ?? 0,
    };
    expect((await service.request(path)).status).toBe(200);
    const missed = ((await value('cdx_history_cache_lookups_total', { result: 'miss' })) ?? 0) - before.miss;
    // A day of 1min bars spans one or two chunks, none cached yet.
    expect(missed).toBeGreaterThanOrEqual(1);
    expect(missed).toBeLessThanOrEqual(2);
    expect(await value('cdx_history_cache_lookups_total', { result: 'hit' })).toBe(before.hit);
    expect((await service.request(path)).status).toBe(200);
    expect(await value('cdx_history_cache_lookups_total', { result: 'hit' })).toBe(before.hit + missed);
    expect(await value('cdx_history_cache_bytes')).toBeGreaterThan(0);
  });

  it('counts refusals by the plan of the key refused', async () => {
    const key = await service.newKey('free');
    for (let i = 0; i < 60; i++) expect((await service.request(`${API}/groups`, { key })).status).toBe(200);
    expect(await value('cdx_rate_limit_refusals_total', { plan: 'free' })).toBeUndefined();
    expect((await service.request(`${API}/groups`, { key })).status).toBe(429);
    expect((await service.request(`${API}/groups`, { key })).status).toBe(429);
    expect(await value('cdx_rate_limit_refusals_total', { plan: 'free' })).toBe(2);
    expect(await value('cdx_rate_limit_refusals_total', { plan: 'enterprise' })).toBeUndefined();
  });

  it("counts a stream's connection, the events it took, and its drop as a slow consumer", async () => {
    const pools = (await aggregatesByActivity(service.runtime)).slice(0, 100);
    const stream = await openStream(
      service,
      pools.map((p) => p.poolId),
      { key: TEST_KEYS.pro },
    );
    expect(await stream.next()).toEqual({ s: 'ok' });
    expect(await value('cdx_stream_connections')).toBe(1);
    // Hours of trading while the client reads nothing: past 4 KiB unread it is dropped.
    service.clock.advanceSeconds(7200);
    await service.runtime.simulator.runUntil(service.clock.seconds(), undefined, 1);
    expect(await value('cdx_stream_connections')).toBe(0);
    const lines = (await stream.readToEnd()).map((line) => streamLineSchema.parse(JSON.parse(line)));
    expect(lines.at(-1)).toEqual({ s: 'error', errmsg: STREAM_ERRORS.slowConsumer });
    expect(await value('cdx_stream_slow_consumers_dropped_total')).toBe(1);
    // The event that found it too slow is the one dropped; every event it was sent before came.
    expect(await value('cdx_stream_events_dropped_total')).toBe(1);
    expect(await value('cdx_stream_events_delivered_total')).toBe(lines.filter(isTradeEvent).length);
  });

  it('is ready while its store answers, and says so no more once closed', async () => {
    expect(await service.runtime.readiness()).toEqual({ store: 'ok' });
    const other = await createTestService({ days: 0.1 });
    await other.runtime.close();
    expect(await other.runtime.readiness()).toEqual({ store: 'closed' });
    await other.close();
  });
});
