import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isTradeEvent, streamLineSchema, STREAM_ERRORS } from '../../src/shared/api/stream';
import type { Pool } from '../../src/service/market/model';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { openStream } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let aggregates: Pool[];

beforeAll(async () => {
  service = await createTestService({ days: 1 });
  aggregates = await aggregatesByActivity(service.runtime);
});
afterAll(async () => service.close());
afterEach(async () => {
  vi.useRealTimers();
});

describe('one stream connection per key', () => {
  it('refuses a second concurrent connection with "Connection limit exceeded" and ends it, while the first keeps receiving events', async () => {
    const pool = ensureDefined(aggregates[0]);
    const first = await openStream(service, [pool.poolId]);
    expect(await first.next()).toEqual({ s: 'ok' });
    const second = await openStream(service, [pool.poolId]);
    expect(await second.readToEnd()).toEqual([JSON.stringify({ s: 'error', errmsg: STREAM_ERRORS.connectionLimit })]);
    expect(second.ended).toBe(true);

    await forceTradesOn(service.runtime, [pool], service.clock.seconds());
    const event = await first.next();
    expect(isTradeEvent(event) && event.pool_id).toBe(pool.poolId);
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(1);
    await first.cancel();
  });

  it('lets two keys stream at once', async () => {
    const pool = ensureDefined(aggregates[0]);
    const a = await openStream(service, [pool.poolId]);
    const b = await openStream(service, [pool.poolId], { key: service.keys.pro });
    expect(await a.next()).toEqual({ s: 'ok' });
    expect(await b.next()).toEqual({ s: 'ok' });
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(2);
    await forceTradesOn(service.runtime, [pool], service.clock.seconds());
    const [ea, eb] = [await a.next(), await b.next()];
    expect(ea).toEqual(eb);
    await a.cancel();
    await b.cancel();
  });

  it('frees the key slot as soon as the client cancels its reader', async () => {
    const pool = ensureDefined(aggregates[1]);
    const first = await openStream(service, [pool.poolId]);
    expect(await first.next()).toEqual({ s: 'ok' });
    await first.cancel();
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
    const again = await openStream(service, [pool.poolId]);
    expect(await again.next()).toEqual({ s: 'ok' });
    // The cancelled connection no longer receives anything; the new one does.
    await forceTradesOn(service.runtime, [pool], service.clock.seconds());
    expect(isTradeEvent(await again.next())).toBe(true);
    await again.cancel();
  });

  it('frees the key slot when the request is aborted', async () => {
    const controller = new AbortController();
    const pool = ensureDefined(aggregates[0]);
    const response = await service.request(`${API}/tokens/stream`, {
      method: 'POST',
      body: JSON.stringify([pool.poolId]),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(1);
    controller.abort();
    await vi.waitUntil(() => runtimeInternals(service.runtime).hub.connectionCount === 0, {
      timeout: 2000,
      interval: 1,
    });
  });
});

describe('shutdown', () => {
  it('ends every open stream when the runtime closes', async () => {
    const closing = await createTestService({ days: 0.1 });
    const [pool] = await aggregatesByActivity(closing.runtime);
    const stream = await openStream(closing, [ensureDefined(pool).poolId]);
    expect(await stream.next()).toEqual({ s: 'ok' });
    await closing.close();
    expect(await stream.readToEnd(500)).toEqual([]);
    expect(stream.ended).toBe(true);
    expect(runtimeInternals(closing.runtime).hub.connectionCount).toBe(0);
  });
});

describe('streams and the rate limit', () => {
  it('counts opening a stream as one request; pings and events count for nothing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const key = await service.newKey('free');
    const pool = ensureDefined(aggregates[0]);
    const stream = await openStream(service, [pool.poolId], { key });
    expect(stream.response.headers.get('RateLimit-Remaining')).toBe('59');
    expect(await stream.next()).toEqual({ s: 'ok' });
    vi.advanceTimersByTime(100_000);
    for (let i = 0; i < 5; i++) expect(await stream.next()).toEqual({ s: 'ok' });
    await forceTradesOn(service.runtime, [pool], service.clock.seconds());
    expect(isTradeEvent(await stream.next())).toBe(true);
    const after = await service.request(`${API}/groups`, { key });
    expect(after.headers.get('RateLimit-Remaining')).toBe('58');
    await stream.cancel();
  });
});

describe('a client that does not read', () => {
  it('is dropped once its unread bytes pass the bound, with an error event; memory stays bounded', async () => {
    const bound = 4096;
    const slow = await createTestService({ days: 0.5, config: { streamMaxBufferedBytes: bound } });
    try {
      const pools = (await aggregatesByActivity(slow.runtime)).slice(0, 100);
      const stream = await openStream(
        slow,
        pools.map((p) => p.poolId),
      );
      expect(runtimeInternals(slow.runtime).hub.connectionCount).toBe(1);
      // Two hours of trading while the client reads nothing.
      slow.clock.advanceSeconds(7200);
      await slow.runtime.simulator.runUntil(slow.clock.seconds(), undefined, 1);
      expect(runtimeInternals(slow.runtime).hub.connectionCount).toBe(0);

      const lines = await stream.readToEnd();
      const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
      const parsed = lines.map((line) => streamLineSchema.parse(JSON.parse(line)));
      expect(parsed.at(-1)).toEqual({ s: 'error', errmsg: STREAM_ERRORS.slowConsumer });
      expect(parsed.filter(isTradeEvent).length).toBeGreaterThan(5);
      const longest = Math.max(...lines.map((line) => Buffer.byteLength(line) + 1));
      expect(bytes).toBeLessThanOrEqual(bound + 2 * longest);

      // The key may connect again at once.
      const again = await openStream(slow, [ensureDefined(pools[0]).poolId]);
      expect(await again.next()).toEqual({ s: 'ok' });
      await again.cancel();
    } finally {
      await slow.close();
    }
  });
});
