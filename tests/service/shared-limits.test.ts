import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryBudgets, type RateDecision } from '../../src/node/rate-limits';
import { SharedLimits } from '../../src/service/cluster/shared-limits';
import { startRedis, type TestRedis } from '../support/engines';

/**
 * Stream leases of a cluster on a real Redis 7 (two SharedLimits stand for two nodes): what happens to
 * a lease when Redis loses it, or when another connection holds its slot.
 */
let redis: TestRedis;
let probe: Redis;
const nodes: SharedLimits[] = [];
const node = () => {
  const limits = SharedLimits.create(redis.url, { leaseMs: 600 });
  nodes.push(limits);
  return limits;
};

/** Takes a free slot, once the node's connection to Redis is up (before, it refuses). */
async function take(limits: SharedLimits, key: string, max: number, lost: () => void): Promise<() => void> {
  let release: (() => void) | undefined;
  await vi.waitUntil(async () => (release = await limits.acquireStream(key, max, lost)) !== undefined, {
    timeout: 5_000,
    interval: 50,
  });
  if (!release) throw new Error('no lease');
  return release;
}

beforeAll(async () => {
  redis = await startRedis();
  probe = new Redis(redis.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  for (const limits of nodes) await limits.close();
  probe?.disconnect();
  await redis?.destroy();
});

describe('request budgets shared through Redis', () => {
  it('answer as one process does: the same window, the same remaining, reset and Retry-After', async () => {
    const shared = node();
    await vi.waitUntil(async () => (await probe.ping().catch(() => '')) === 'PONG', { timeout: 5_000, interval: 50 });
    // Warm: the node's connection is up (a refused command would fall back to its own buckets).
    await vi.waitUntil(async () => (await shared.acquireStream('warm', 1, () => undefined)) !== undefined, {
      timeout: 5_000,
      interval: 50,
    });
    const local = memoryBudgets('test');
    const remote: RateDecision[] = [];
    const memory: RateDecision[] = [];
    for (let i = 0; i < 62; i++) {
      remote.push(await shared.take('budget-key', 60));
      memory.push(await local.take('budget-key', 60));
    }
    // The same answers, the 61st and 62nd refused until the window closes (a second may tick between the two).
    const counts = ({ allowed, limit, remaining }: RateDecision) => ({ allowed, limit, remaining });
    expect(remote.map(counts)).toEqual(memory.map(counts));
    remote.forEach((decision, i) => {
      expect(Math.abs(decision.resetSeconds - (memory[i]?.resetSeconds ?? 0)), `request ${i + 1}`).toBeLessThanOrEqual(
        1,
      );
      expect(
        Math.abs(decision.retryAfterSeconds - (memory[i]?.retryAfterSeconds ?? 0)),
        `request ${i + 1}`,
      ).toBeLessThanOrEqual(1);
    });
    expect(memory[59]).toMatchObject({ allowed: true, limit: 60, remaining: 0, retryAfterSeconds: 0 });
    expect(memory[60]).toMatchObject({ allowed: false, limit: 60, remaining: 0 });
    expect(memory[60]?.retryAfterSeconds).toBeGreaterThan(55);
    expect(memory[60]?.resetSeconds).toBe(memory[60]?.retryAfterSeconds);
    expect(await probe.exists('tps:budget:60:budget-key')).toBe(1);
  });

  it('is one budget for every node', async () => {
    const [a, b] = [node(), node()];
    for (const limits of [a, b])
      await vi.waitUntil(
        async () => (await limits.acquireStream(`warm-${limits.node}`, 1, () => undefined)) !== undefined,
        { timeout: 5_000, interval: 50 },
      );
    let allowed = 0;
    for (let i = 0; i < 20; i++) if ((await (i % 2 === 0 ? a : b).take('two-nodes', 10)).allowed) allowed++;
    expect(allowed).toBe(10);
    // A budget counted in other units (the gateway's bytes of held lists): each take spends its points, on any node.
    expect(await a.take('two-nodes-bytes', 1_000, 600)).toMatchObject({ allowed: true, remaining: 400 });
    expect(await b.take('two-nodes-bytes', 1_000, 300)).toMatchObject({ allowed: true, remaining: 100 });
    expect((await a.take('two-nodes-bytes', 1_000, 300)).allowed).toBe(false);
  });
});

describe('stream leases', () => {
  it('takes a lease back after Redis restarts empty, so a second stream of the key is still refused', async () => {
    const [a, b] = [node(), node()];
    const lost = vi.fn();
    await take(a, 'key-restart', 1, lost);
    // b is connected (it takes another key's slot), and refused this key's.
    await take(b, 'key-restart-b1', 1, () => undefined);
    expect(await b.acquireStream('key-restart', 1, () => undefined)).toBeUndefined();
    await redis.stop();
    await redis.start();
    // Waiting on state: the lease is there again (the holder's refresh took it back).
    await vi.waitUntil(async () => (await probe.get('tps:lease:key-restart:0').catch(() => null)) !== null, {
      timeout: 10_000,
      interval: 50,
    });
    await take(b, 'key-restart-b2', 1, () => undefined);
    expect(await b.acquireStream('key-restart', 1, () => undefined)).toBeUndefined();
    expect(lost).not.toHaveBeenCalled();
  });

  it("gives the connection up when another holds its slot by then, and never deletes another's lease", async () => {
    const a = node();
    const lost = vi.fn();
    const release = await take(a, 'key-taken', 1, lost);
    // As if the lease had expired and another node's connection had taken the slot.
    await probe.set('tps:lease:key-taken:0', 'another-connection', 'PX', 60_000);
    await vi.waitUntil(() => lost.mock.calls.length > 0, { timeout: 5_000, interval: 20 });
    release();
    // The release compares before it deletes: the other connection's lease stays.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await probe.get('tps:lease:key-taken:0')).toBe('another-connection');
  });

  it('moves to a free slot when its own was taken and the key has another', async () => {
    const a = node();
    const lost = vi.fn();
    const release = await take(a, 'key-two', 2, lost);
    await probe.set('tps:lease:key-two:0', 'another-connection', 'PX', 60_000);
    await vi.waitUntil(async () => (await probe.get('tps:lease:key-two:1')) !== null, { timeout: 5_000, interval: 20 });
    expect(lost).not.toHaveBeenCalled();
    release();
    await vi.waitUntil(async () => (await probe.get('tps:lease:key-two:1')) === null, { timeout: 5_000, interval: 20 });
    expect(await probe.get('tps:lease:key-two:0')).toBe('another-connection');
  });
});

describe('waiting for a slot (a handover across nodes)', () => {
  const wait = (ms: number, signal?: AbortSignal) => ({ deadline: Date.now() + ms, ...(signal ? { signal } : {}) });

  it('takes the slot another node releases within the wait, a poll later at most', async () => {
    const [a, b] = [node(), node()];
    await take(b, 'handover-b-warm', 1, () => undefined);
    const release = await take(a, 'handover-across', 1, () => undefined);
    const waiting = b.acquireStream('handover-across', 1, () => undefined, wait(2_000));
    // The holder goes while b waits (b polls Redis: the release is on another node).
    await vi.waitUntil(async () => (await probe.get('tps:lease:handover-across:0')) !== null, {
      timeout: 1_000,
      interval: 10,
    });
    const releasedAt = Date.now();
    release();
    const next = await waiting;
    expect(next).toBeTypeOf('function');
    expect(Date.now() - releasedAt).toBeLessThan(500);
    expect(await probe.get('tps:lease:handover-across:0')).toMatch(new RegExp(`^${b.node}:`));
    next?.();
  });

  it('takes a slot released on its own node at once', async () => {
    const a = node();
    const release = await take(a, 'handover-local', 1, () => undefined);
    const waiting = a.acquireStream('handover-local', 1, () => undefined, wait(5_000));
    release();
    const next = await waiting;
    expect(next).toBeTypeOf('function');
    next?.();
  });

  it('gives up at the deadline while the holder stays, and at once when its client leaves', async () => {
    const [a, b] = [node(), node()];
    await take(b, 'handover-b-warm-2', 1, () => undefined);
    const release = await take(a, 'handover-held', 1, () => undefined);
    let started = Date.now();
    expect(await b.acquireStream('handover-held', 1, () => undefined, wait(400))).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(395);
    expect(Date.now() - started).toBeLessThan(1_000);
    const controller = new AbortController();
    started = Date.now();
    const waiting = b.acquireStream('handover-held', 1, () => undefined, wait(5_000, controller.signal));
    setTimeout(() => controller.abort(), 100);
    expect(await waiting).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
    // The one who left took nothing: the holder's lease is the only one.
    expect(await probe.get('tps:lease:handover-held:0')).toMatch(new RegExp(`^${a.node}:`));
    release();
  });
});
