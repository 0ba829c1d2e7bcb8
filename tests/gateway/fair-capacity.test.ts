import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GatewayConfig } from '../../src/gateway/config';
import { parseProxyTrust } from '../../src/node/client-address';
import { liveErrorSchema, type LiveError } from '../../src/shared/api/gateway';
import { aggregatesByActivity } from '../support/market';
import { openLiveFrom } from '../support/live-client';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import { liveStatuses, tradeUntilSeen, type SseReader } from '../support/sse';
import { serveLoopback, type Loopback } from './support/loopback';

/**
 * The gateway's live capacity shared fairly (issue 29): with the default limits (1,000 pools upstream,
 * 50 per connection, 20 connections and a quarter of the pools per address), over real sockets from
 * several loopback addresses, on a market with more than 1,050 Aggregate pools (3,000 pools), so
 * that one client's every connection of 50 distinct pools would cover the whole upstream budget.
 */

/** The loopback address that plays a reverse proxy (TRUST_PROXY) in these tests. */
const PROXY = '127.0.0.9';

interface Served {
  readonly t: TestPlatform;
  readonly loopback: Loopback;
  readonly aggregates: readonly string[];
}

async function serve(gateway: Partial<GatewayConfig>): Promise<Served> {
  const t = await createTestPlatform({
    pools: 3000,
    days: 1,
    seed: 1,
    gateway: { trustProxy: parseProxyTrust(PROXY), ...gateway },
  });
  const loopback = await serveLoopback(t.platform.app.fetch);
  const aggregates = (await aggregatesByActivity(t.runtime)).map((p) => p.poolId);
  return { t, loopback, aggregates };
}

const errors = (reader: SseReader): LiveError[] => reader.events('error').map((e) => liveErrorSchema.parse(e));
const connected = (reader: SseReader) =>
  reader.until(() => liveStatuses(reader).some((s) => s.state === 'connected'), 10_000);
/** The outcome of one connection: connected, or the error it was refused with (after which it ends). */
const outcome = (reader: SseReader) =>
  reader
    .until(
      (frames) =>
        frames.some(
          (f) =>
            f.event === 'error' ||
            (f.event === 'status' && (JSON.parse(f.data) as { state: string }).state === 'connected'),
        ),
      10_000,
    )
    .then(() => errors(reader)[0] ?? 'connected');

/** `count` connections of 50 distinct pools each (`pools` from `offset`), opened at once. */
async function flood(
  s: Served,
  count: number,
  offset: number,
  from: (i: number) => { localAddress?: string; forwardedFor?: string },
) {
  const opened = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      openLiveFrom(s.loopback.origin, s.aggregates.slice(offset + i * 50, offset + (i + 1) * 50), from(i)),
    ),
  );
  const outcomes = await Promise.all(opened.map((o) => outcome(o.reader)));
  return { opened, outcomes, close: () => opened.forEach((o) => o.close()) };
}

describe('one client cannot take the live capacity of the others', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({});
    expect(s.aggregates.length).toBeGreaterThan(1050);
  }, 60_000);
  afterAll(async () => {
    await s.loopback.close();
    await s.t.close();
  });

  it('a client with every connection it may open gets a quarter of the pools; a second client still follows 50', async () => {
    const hub = s.t.platform.gateway.hub;
    expect(hub.addressMaxPools).toBe(250);
    // 20 connections (the most an address may hold) of 50 distinct pools: 1,000, the whole budget.
    const hostile = await flood(s, 20, 0, () => ({ localAddress: '127.0.0.2' }));
    const second = await openLiveFrom(s.loopback.origin, s.aggregates.slice(1000, 1050), { localAddress: '127.0.0.3' });
    try {
      expect(hostile.outcomes.filter((o) => o === 'connected')).toHaveLength(5);
      const refused = hostile.outcomes.filter((o): o is LiveError => o !== 'connected');
      expect(refused).toHaveLength(15);
      for (const error of refused) {
        expect(error).toEqual({
          errmsg:
            "Too many pools from 127.0.0.2: its live connections follow 250, and each client address may follow at most 250 of the gateway's 1000 pools; close another or try again later",
          retry: true,
        });
      }
      // It comes back for more at once (EventSource would, in 3 s): refused again, and the 21st connection too.
      const again = await flood(s, 1, 300, () => ({ localAddress: '127.0.0.2' }));
      again.close();
      expect(again.outcomes[0]).toMatchObject({
        errmsg: expect.stringMatching(/^Too many pools from 127\.0\.0\.2/),
        retry: true,
      });
      expect(hub.poolsOf('127.0.0.2')).toBe(250);

      await connected(second.reader);
      expect(hub.union.size).toBe(300);
      // The second client's pools are live upstream, and their trades reach it.
      await vi.waitUntil(
        () => s.aggregates.slice(1000, 1050).every((p) => s.t.platform.gateway.upstreamStream.livePools?.has(p)),
        { timeout: 10_000, interval: 20 },
      );
      await tradeUntilSeen(second.reader, s.t.runtime, s.t.nowSeconds(), s.aggregates.slice(1000, 1050));
    } finally {
      hostile.close();
      second.close();
    }
    await vi.waitUntil(() => hub.size === 0, { timeout: 5000, interval: 20 });
  });

  it('counts a pool once per address however many of its connections follow it', async () => {
    const hub = s.t.platform.gateway.hub;
    // Twenty connections of the same 50 pools: 50 of the address's 250.
    const same = await Promise.all(
      Array.from({ length: 20 }, () =>
        openLiveFrom(s.loopback.origin, s.aggregates.slice(0, 50), { localAddress: '127.0.0.4' }),
      ),
    );
    try {
      expect(await Promise.all(same.map((o) => outcome(o.reader)))).toEqual(
        Array.from({ length: 20 }, () => 'connected'),
      );
      expect(hub.poolsOf('127.0.0.4')).toBe(50);
      const tooMany = await openLiveFrom(s.loopback.origin, s.aggregates.slice(0, 1), { localAddress: '127.0.0.4' });
      same.push(tooMany);
      expect(await outcome(tooMany.reader)).toEqual({
        errmsg: 'Too many live connections from 127.0.0.4 (at most 20)',
        retry: false,
      });
    } finally {
      same.forEach((o) => o.close());
    }
    await vi.waitUntil(() => hub.size === 0, { timeout: 5000, interval: 20 });
  });

  it('limits an IPv6 network by its /64 (through a trusted proxy): one subscriber, however many addresses', async () => {
    const hub = s.t.platform.gateway.hub;
    const hostile = await flood(s, 20, 0, (i) => ({
      localAddress: PROXY,
      forwardedFor: `2001:db8:1:2::${(i + 1).toString(16)}`,
    }));
    const neighbour = await flood(s, 1, 1000, () => ({ localAddress: PROXY, forwardedFor: '2001:db8:1:3::1' }));
    try {
      expect(hostile.outcomes.filter((o) => o === 'connected')).toHaveLength(5);
      const refused = hostile.outcomes.filter((o): o is LiveError => o !== 'connected');
      expect(refused).toHaveLength(15);
      expect(
        refused.every((o) =>
          o.errmsg.startsWith('Too many pools from 2001:db8:1:2::/64: its live connections follow 250'),
        ),
      ).toBe(true);
      expect(hub.poolsOf('2001:db8:1:2::/64')).toBe(250);
      // The next /64 is another subscriber.
      expect(neighbour.outcomes).toEqual(['connected']);
      // Fifteen more addresses of the /64 on pools it follows already: its 20 connections. A 21st is refused.
      const more = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          openLiveFrom(s.loopback.origin, s.aggregates.slice(0, 50), {
            localAddress: PROXY,
            forwardedFor: `2001:db8:1:2:ffff::${(i + 1).toString(16)}`,
          }),
        ),
      );
      hostile.opened.push(...more);
      const outcomes = await Promise.all(more.map((o) => outcome(o.reader)));
      expect(outcomes.slice(0, 15)).toEqual(Array.from({ length: 15 }, () => 'connected'));
      expect(outcomes[15]).toEqual({
        errmsg: 'Too many live connections from 2001:db8:1:2::/64 (at most 20)',
        retry: false,
      });
    } finally {
      hostile.close();
      neighbour.close();
    }
    await vi.waitUntil(() => hub.size === 0, { timeout: 5000, interval: 20 });
  });

  it('believes X-Forwarded-For only from a trusted proxy, and then only what the proxy appended', async () => {
    const hub = s.t.platform.gateway.hub;
    // Not a trusted peer: every "client" it names is the peer itself, 127.0.0.5.
    const forged = await flood(s, 6, 0, (i) => ({ localAddress: '127.0.0.5', forwardedFor: `198.51.100.${i + 1}` }));
    // Through the proxy, with a forged first entry: the client is what the proxy appended.
    const proxied = await flood(s, 6, 300, (i) => ({
      localAddress: PROXY,
      forwardedFor: `198.51.100.${i + 1}, 203.0.113.7`,
    }));
    try {
      expect(forged.outcomes.filter((o) => o === 'connected')).toHaveLength(5);
      expect(hub.poolsOf('127.0.0.5')).toBe(250);
      expect(hub.poolsOf('198.51.100.1')).toBe(0);
      expect(proxied.outcomes.filter((o) => o === 'connected')).toHaveLength(5);
      expect(hub.poolsOf('203.0.113.7')).toBe(250);
      expect(hub.poolsOf(PROXY)).toBe(0);
    } finally {
      forged.close();
      proxied.close();
    }
    await vi.waitUntil(() => hub.size === 0, { timeout: 5000, interval: 20 });
  });

  it('counts the REST budget per client too: by the proxy’s client, by /64', async () => {
    const url = new URL('/gw/v1/groups', s.loopback.origin);
    const get = (forwardedFor: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            localAddress: PROXY,
            agent: false,
            headers: { 'X-Forwarded-For': forwardedFor },
          },
          (res) => {
            res.resume();
            res.once('end', () => resolve(Number(res.headers['ratelimit-remaining'])));
          },
        );
        req.once('error', reject);
        req.end();
      });
    const first = await get('2001:db8:9:9::1');
    expect(await get('2001:db8:9:9::2')).toBe(first - 1);
    expect(await get('2001:db8:9:8::1')).toBe(first);
  });
});

describe('without a share per address (GATEWAY_ADDRESS_SHARE_PERCENT=100): what issue 29 found', () => {
  it('one client with every connection takes the whole budget and the next is told the gateway is at its limit', async () => {
    const s = await serve({ addressSharePercent: 100 });
    try {
      const hostile = await flood(s, 20, 0, () => ({ localAddress: '127.0.0.2' }));
      const second = await flood(s, 1, 1000, () => ({ localAddress: '127.0.0.3' }));
      expect(hostile.outcomes.every((o) => o === 'connected')).toBe(true);
      expect(second.outcomes[0]).toMatchObject({
        errmsg: expect.stringMatching(/^The gateway is at its limit: the gateway follows at most 1000 pools/),
        retry: true,
      });
      hostile.close();
      second.close();
    } finally {
      await s.loopback.close();
      await s.t.close();
    }
  }, 60_000);
});
