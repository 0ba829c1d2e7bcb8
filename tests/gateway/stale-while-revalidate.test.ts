import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Forwarder } from '../../src/gateway/forward';
import { embeddedUpstream } from '../../src/gateway/upstream';
import { EXTENSION_PREFIX, EXTENSION_ROUTES } from '../../src/shared/api/extensions';
import { createTestService, type TestService } from '../support/service';

/**
 * The gateway's held answers past their time (CacheRule.staleMs, HTTP's stale-while-revalidate): the
 * real service in-process behind a Forwarder whose clock the test moves; the upstream's fetch counts
 * its calls and can be made to fail, as a network would.
 */

let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 60, days: 0.5, seed: 3 });
});
afterAll(async () => service.close());

const LIST = `${EXTENSION_PREFIX}/${EXTENSION_ROUTES.groupStats}?group=Aggregate`;
const TTL = 5_000;
const STALE = 55_000;

function forwarder() {
  let clock = 0;
  let calls = 0;
  let failing = false;
  const upstream = embeddedUpstream(async (request: Request) => {
    calls++;
    if (failing) throw new TypeError('fetch failed');
    return service.app.fetch(request);
  }, service.key);
  const f = new Forwarder({ upstream, timeoutMs: 5_000, now: () => clock });
  return {
    f,
    ask: () => f.buffered(LIST, TTL, STALE),
    advance: (ms: number) => (clock += ms),
    calls: () => calls,
    fail: (on: boolean) => (failing = on),
  };
}

/** The held answer once it is no longer `old`: asked until the refresh behind it has come (it starts no other meanwhile). */
const refreshedFrom = (t: ReturnType<typeof forwarder>, old: unknown) =>
  vi.waitFor(async () => {
    const held = await t.ask();
    expect(held.answer).not.toBe(old);
    return held;
  });

describe('a held answer past its time', () => {
  it('is sent at once while one refresh runs behind it, and the next asker gets the refreshed one', async () => {
    const t = forwarder();
    const first = await t.ask();
    expect(first.fromCache).toBe(false);
    expect(first.answer.status).toBe(200);
    t.advance(TTL - 1);
    expect((await t.ask()).answer).toBe(first.answer);
    expect(t.calls()).toBe(1);

    t.advance(2);
    // Three browsers at once: the held answer for each, one refresh between them.
    const stale = await Promise.all([t.ask(), t.ask(), t.ask()]);
    for (const answer of stale) expect(answer).toEqual({ answer: first.answer, fromCache: true });
    expect(t.calls()).toBe(2);
    const refreshed = await refreshedFrom(t, first.answer);
    expect(refreshed.fromCache).toBe(true);
    expect(refreshed.answer).not.toBe(first.answer);
    expect(refreshed.answer.status).toBe(200);
    expect(t.calls()).toBe(2);
  });

  it('is fetched again before anyone gets it once older than its time and the stale time', async () => {
    const t = forwarder();
    const first = await t.ask();
    t.advance(TTL + STALE);
    const again = await t.ask();
    expect(again.fromCache).toBe(false);
    expect(again.answer).not.toBe(first.answer);
    expect(t.calls()).toBe(2);
  });

  it('stays while a refresh fails, and a later asker starts another', async () => {
    const t = forwarder();
    const first = await t.ask();
    t.fail(true);
    t.advance(TTL + 1);
    expect((await t.ask()).answer).toBe(first.answer);
    expect(t.calls()).toBe(2);
    // Once that refresh has failed, the next asker gets the held answer and starts another.
    await vi.waitFor(async () => {
      expect((await t.ask()).answer).toBe(first.answer);
      expect(t.calls()).toBe(3);
    });
    t.fail(false);
    const refreshed = await refreshedFrom(t, first.answer);
    expect(refreshed.answer).not.toBe(first.answer);
    // Past the stale time with the upstream failing: the failure, not the old answer.
    t.fail(true);
    t.advance(TTL + STALE);
    await expect(t.ask()).rejects.toThrow('fetch failed');
  });

  it('is held by a caller that joined the fetch of one that does not hold it', async () => {
    const t = forwarder();
    const [plain, held] = await Promise.all([t.f.buffered(LIST), t.ask()]);
    expect(held.answer).toBe(plain.answer);
    expect(t.calls()).toBe(1);
    t.advance(TTL - 1);
    expect(await t.ask()).toEqual({ answer: plain.answer, fromCache: true });
    expect(t.calls()).toBe(1);
  });

  it('without a stale time, is fetched again as soon as it is old', async () => {
    const t = forwarder();
    const first = await t.f.buffered(LIST, TTL);
    t.advance(TTL);
    const again = await t.f.buffered(LIST, TTL);
    expect(again.fromCache).toBe(false);
    expect(again.answer).not.toBe(first.answer);
  });
});
