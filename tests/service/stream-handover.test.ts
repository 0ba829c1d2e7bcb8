import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isTradeEvent, STREAM_ERRORS } from '../../src/shared/api/stream';
import type { Pool } from '../../src/service/market/model';
import { STREAM_HANDOVER_MS } from '../../src/service/config';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';
import { openStream, readStream } from '../support/stream';
import { streamInit } from '../support/builders';
import { runtimeInternals } from '../../src/service/runtime-internals';

/**
 * A stream whose key has every slot held waits a moment for one (docs/decisions.md "Stream"): a
 * client replacing its stream reaches the server before its old stream's close does. In-process here
 * (the real app, no socket); over real sockets: stream-switch.test.ts, the cluster test, and
 * e2e/18-official-client.spec.ts in Chromium.
 */
const WAIT_MS = 600;
let service: TestService;
let pools: Pool[];

beforeAll(async () => {
  service = await createTestService({ days: 0.5, config: { streamHandoverMs: WAIT_MS } });
  pools = await aggregatesByActivity(service.runtime);
});
afterAll(async () => service.close());

const refusal = [JSON.stringify({ s: 'error', errmsg: STREAM_ERRORS.connectionLimit })];
const waiting = (n: number) =>
  vi.waitUntil(() => runtimeInternals(service.runtime).hub.waitingCount === n, { timeout: 2_000, interval: 1 });
const pool = () => ensureDefined(pools[0]).poolId;

describe('a stream waiting for its key’s slot', () => {
  it('waits two seconds by default', () => {
    expect(STREAM_HANDOVER_MS).toBe(2_000);
  });

  it('gets the slot as soon as the holder closes, and streams', async () => {
    const holder = await openStream(service, [pool()]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    const opening = openStream(service, [pool()]);
    await waiting(1);
    const closedAt = Date.now();
    await holder.cancel();
    const next = await opening;
    expect(await next.next()).toEqual({ s: 'ok' });
    expect(Date.now() - closedAt).toBeLessThan(WAIT_MS / 2);
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(1);
    await forceTradesOn(service.runtime, [ensureDefined(pools[0])], service.clock.seconds());
    expect(isTradeEvent(await next.next())).toBe(true);
    await next.cancel();
  });

  it('refuses a truly concurrent second stream once the wait runs out, not before, while the first keeps streaming', async () => {
    const holder = await openStream(service, [pool()]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    const started = Date.now();
    const second = await openStream(service, [pool()]);
    const waited = Date.now() - started;
    expect(await second.readToEnd()).toEqual(refusal);
    expect(waited).toBeGreaterThanOrEqual(WAIT_MS - 5);
    expect(waited).toBeLessThan(WAIT_MS + 500);
    expect(runtimeInternals(service.runtime).hub.waitingCount).toBe(0);
    await forceTradesOn(service.runtime, [ensureDefined(pools[0])], service.clock.seconds());
    expect(isTradeEvent(await holder.next())).toBe(true);
    await holder.cancel();
  });

  it('hands a freed slot to the first stream waiting, never to a newcomer; the next waits its turn', async () => {
    const holder = await openStream(service, [pool()]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    const first = openStream(service, [pool()]);
    await waiting(1);
    const second = openStream(service, [pool()]);
    await waiting(2);
    await holder.cancel();
    const served = await first;
    expect(await served.next()).toEqual({ s: 'ok' });
    // A newcomer finds the slot taken: it waits behind the second.
    const newcomer = openStream(service, [pool()]);
    await waiting(2);
    await served.cancel();
    const next = await second;
    expect(await next.next()).toEqual({ s: 'ok' });
    expect(await (await newcomer).readToEnd()).toEqual(refusal);
    await next.cancel();
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
  });

  it('forgets a waiting stream whose client leaves: the slot goes back to the key', async () => {
    const holder = await openStream(service, [pool()]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    const controller = new AbortController();
    const gone = service
      .request(`${API}/tokens/stream`, { ...streamInit([pool()]), signal: controller.signal })
      .catch(() => undefined);
    await waiting(1);
    controller.abort();
    await waiting(0);
    await gone;
    await holder.cancel();
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
    const again = await openStream(service, [pool()]);
    expect(await again.next()).toEqual({ s: 'ok' });
    await again.cancel();
  });

  it('ends a waiting stream without a line when the service shuts down', async () => {
    const closing = await createTestService({ days: 0.1, config: { streamHandoverMs: 10_000 } });
    const [first] = await aggregatesByActivity(closing.runtime);
    const holder = await openStream(closing, [ensureDefined(first).poolId]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    const opening = closing.request(`${API}/tokens/stream`, streamInit([ensureDefined(first).poolId]));
    await vi.waitUntil(() => runtimeInternals(closing.runtime).hub.waitingCount === 1, { timeout: 2_000, interval: 1 });
    const started = Date.now();
    await closing.close();
    const response = await opening;
    expect(await readStream(response).readToEnd()).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('a client that asks not to wait (Prefer: wait=0, RFC 7240)', () => {
  it('is refused at once, as a second stream on purpose (the gateway’s make before break) should be; a longer wait than ours is ours', async () => {
    const holder = await openStream(service, [pool()]);
    expect(await holder.next()).toEqual({ s: 'ok' });
    for (const prefer of ['wait=0', 'respond-async, wait=0', 'Wait=0; x=y']) {
      const started = Date.now();
      const second = await openStream(service, [pool()], { headers: { Prefer: prefer } });
      expect(await second.readToEnd(), prefer).toEqual(refusal);
      expect(Date.now() - started, prefer).toBeLessThan(WAIT_MS / 2);
    }
    const started = Date.now();
    const patient = await openStream(service, [pool()], { headers: { Prefer: 'wait=10' } });
    expect(await patient.readToEnd()).toEqual(refusal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 5);
    expect(Date.now() - started).toBeLessThan(WAIT_MS + 500);
    await holder.cancel();
  });
});

describe('STREAM_HANDOVER_MS=0', () => {
  it('refuses a second stream at once', async () => {
    const strict = await createTestService({ days: 0.1, config: { streamHandoverMs: 0 } });
    try {
      const [first] = await aggregatesByActivity(strict.runtime);
      const holder = await openStream(strict, [ensureDefined(first).poolId]);
      expect(await holder.next()).toEqual({ s: 'ok' });
      const started = Date.now();
      const second = await openStream(strict, [ensureDefined(first).poolId]);
      expect(await second.readToEnd()).toEqual(refusal);
      expect(Date.now() - started).toBeLessThan(200);
      await holder.cancel();
    } finally {
      await strict.close();
    }
  });
});
