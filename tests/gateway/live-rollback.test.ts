import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveHub, ROLLBACK_WINDOW_MS, type LiveClient } from '../../src/gateway/live/live-hub';
import { UpstreamStream } from '../../src/gateway/live/upstream-stream';
import type { Upstream } from '../../src/gateway/upstream';
import { slotTime } from '../../src/service/chain/block';
import {
  liveMetadataSchema,
  liveRollbackSchema,
  type LiveMetadata,
  type LiveRollback,
} from '../../src/shared/api/gateway';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { FakeOgmios } from '../support/fake-ogmios';
import { createTestPlatform, type TestPlatform } from '../support/platform';
import type { OgmiosWireBlock } from '../support/prise';
import { liveTrades, SseReader } from '../support/sse';
import { nextSyntheticBlock, syntheticBlocks, syntheticPools, type ChainCursor } from '../support/synthetic-chain';

/**
 * The browser's part of a chain rollback at the gateway: the service's rollback line (asked for with
 * `X-Stream-Extensions: rollback`) becomes one `rollback` event for every browser connection, whatever
 * its pools and however many upstream connections bring the line.
 */

/** An upstream whose stream connections the test writes to, recording each request's headers. */
function scriptedUpstream(streams: { headers: Headers; send: (line: unknown) => void }[]): Upstream {
  const encoder = new TextEncoder();
  return {
    kind: 'remote',
    decodesBodies: true,
    fetch: async (_path, init) => {
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      init?.signal?.addEventListener('abort', () => {
        try {
          controller?.error(new Error('aborted'));
        } catch {
          // already closed
        }
      });
      streams.push({
        headers: new Headers(init?.headers),
        send: (line) => controller?.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    },
  };
}

function recordingClient(pools: string[]): LiveClient & { readonly frames: string[] } {
  const frames: string[] = [];
  return {
    pools: new Set(pools),
    address: 'test',
    connected: false,
    missedEvents: false,
    frames,
    write: (frame) => frames.push(frame) > 0,
    close: () => {},
  };
}

const rollbacksOf = (client: { frames: string[] }): LiveRollback[] =>
  client.frames
    .filter((f) => f.includes('event: rollback\n'))
    .map((f) => liveRollbackSchema.parse(JSON.parse(/data: (.*)\n/.exec(f)?.[1] ?? 'null')));

const LINE = { s: 'rollback', slot: 140_000_020, id: 'ab'.repeat(32), block_time: 1_731_566_311 };
const trade = (pool: string, n: number) => ({
  block_time: 1_731_566_300 + n,
  pool_id: pool,
  current_price: n + 1,
  previous_price: n,
  current_tvl: 10,
  previous_tvl: 10,
  volume: 1,
});

describe('a rollback line at the gateway', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  async function setUp() {
    const streams: { headers: Headers; send: (line: unknown) => void }[] = [];
    const hub: LiveHub = new LiveHub((pools) => upstream.setPools(pools));
    const upstream = new UpstreamStream(
      {
        upstream: scriptedUpstream(streams),
        silenceMs: 90_000,
        debounceMs: 10,
        backoffInitialMs: 1000,
        backoffMaxMs: 1000,
        handoverMs: 500,
      },
      hub,
    );
    return { streams, hub, upstream };
  }

  it('is asked for, and reaches every browser once as a `rollback` event naming the point, whatever its pools', async () => {
    const { streams, hub, upstream } = await setUp();
    const a = recordingClient(['aa']);
    const b = recordingClient(['bb', 'cc']);
    hub.add(a);
    hub.add(b);
    await vi.advanceTimersByTimeAsync(10);
    expect(streams[0]?.headers.get('X-Stream-Extensions')).toBe('rollback, metadata');
    streams[0]?.send({ s: 'ok' });
    streams[0]?.send(trade('aa', 1));
    streams[0]?.send(LINE);
    await vi.advanceTimersByTimeAsync(0);
    const expected = { slot: LINE.slot, id: LINE.id, time: LINE.block_time };
    expect(rollbacksOf(a)).toEqual([expected]);
    expect(rollbacksOf(b)).toEqual([expected]);
    // With an id after the trade's, like every event.
    const ids = a.frames
      .filter((f) => /event: (trade|rollback)\n/.test(f))
      .map((f) => Number(/id: \S+\.(\d+)\n/.exec(f)?.[1]));
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBeGreaterThan(ids[0] ?? Infinity);
    upstream.close();
  });

  it('is told once when both connections of a switch bring it, and again when the chain rolls back to the same block later', async () => {
    const { streams, hub, upstream } = await setUp();
    const a = recordingClient(['aa']);
    hub.add(a);
    await vi.advanceTimersByTimeAsync(10);
    streams[0]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    // A second browser makes the union grow: a second connection opens beside the first.
    const b = recordingClient(['bb']);
    hub.add(b);
    await vi.advanceTimersByTimeAsync(10);
    expect(streams).toHaveLength(2);
    streams[1]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    // Both are open (the first for its handover): the service sent the line to each.
    streams[0]?.send(LINE);
    streams[1]?.send(LINE);
    await vi.advanceTimersByTimeAsync(0);
    expect(rollbacksOf(a)).toHaveLength(1);
    expect(rollbacksOf(b)).toHaveLength(1);
    // Blocks after it were committed and undone again: the same block, a new rollback, through the live
    // connection — sent once the window of the first is over (ROLLBACK_WINDOW_MS).
    streams[1]?.send(trade('aa', 2));
    streams[1]?.send(LINE);
    await vi.advanceTimersByTimeAsync(0);
    expect(rollbacksOf(a)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(ROLLBACK_WINDOW_MS);
    expect(rollbacksOf(a)).toHaveLength(2);
    expect(rollbacksOf(b)).toHaveLength(2);
    upstream.close();
  });

  it('merges a storm (1,500 rollbacks in 3 s): each browser gets a handful of events, the last naming the deepest point, after the trades', async () => {
    const { streams, hub, upstream } = await setUp();
    const clients = [recordingClient(['aa']), recordingClient(['bb']), recordingClient(['aa', 'bb'])];
    for (const client of clients) hub.add(client);
    await vi.advanceTimersByTimeAsync(10);
    streams[0]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    // 1,500 rollbacks, 2 ms apart, each to another block; the deepest comes in the middle.
    const deepest = { ...LINE, slot: LINE.slot - 10_000, id: 'cd'.repeat(32), block_time: LINE.block_time - 10_000 };
    for (let n = 0; n < 1500; n++) {
      const line =
        n === 700
          ? deepest
          : {
              ...LINE,
              slot: LINE.slot + (n % 50),
              id: n.toString(16).padStart(64, '0'),
              block_time: LINE.block_time + (n % 50),
            };
      streams[0]?.send(line);
      if (n % 10 === 0) streams[0]?.send(trade('aa', n));
      await vi.advanceTimersByTimeAsync(2);
    }
    await vi.advanceTimersByTimeAsync(ROLLBACK_WINDOW_MS);
    expect(hub.rollbacksReceived).toBe(1500);
    for (const client of clients) {
      const events = rollbacksOf(client);
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events.length).toBeLessThanOrEqual(5);
      // The window holding the deepest one names it; the last one comes after every trade of the storm.
      expect(events).toContainEqual({ slot: deepest.slot, id: deepest.id, time: deepest.block_time });
      const last = client.frames.findLastIndex((f) => f.includes('event: rollback'));
      expect(client.frames.slice(last).some((f) => f.includes('event: trade'))).toBe(false);
    }
    expect(hub.rollbackEvents).toBe(rollbacksOf(clients[0] ?? recordingClient([])).length);
    upstream.close();
  });

  it('is replayed to a browser resuming with an id from before it', async () => {
    const { streams, hub, upstream } = await setUp();
    const a = recordingClient(['aa']);
    hub.add(a);
    await vi.advanceTimersByTimeAsync(10);
    streams[0]?.send({ s: 'ok' });
    streams[0]?.send(trade('aa', 1));
    await vi.advanceTimersByTimeAsync(0);
    const seen = /id: (\S+)\n/.exec(a.frames.find((f) => f.includes('event: trade')) ?? '')?.[1] ?? '';
    // Another browser keeps the subscription; A drops and the rollback comes meanwhile.
    const other = recordingClient(['bb']);
    hub.add(other);
    hub.remove(a);
    streams[0]?.send(LINE);
    await vi.advanceTimersByTimeAsync(0);
    const back = recordingClient(['aa']);
    hub.add(back, seen);
    expect(rollbacksOf(back)).toEqual([{ slot: LINE.slot, id: LINE.id, time: LINE.block_time }]);
    upstream.close();
  });
});

/**
 * The whole path in process: a chain-fed service following a fake Ogmios, its gateway in front (the
 * embedded mode), a browser's SSE connection: the fake node rolls back, the browser hears where to.
 */
describe('a metadata line at the gateway', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('reaches every browser once as a `metadata` event naming the tokens, even when two connections bring it, and drops what the gateway holds first', async () => {
    const streams: { headers: Headers; send: (line: unknown) => void }[] = [];
    const told: LiveMetadata[] = [];
    const hub: LiveHub = new LiveHub((pools) => upstream.setPools(pools), {
      onMetadataSent: (metadata) => told.push(metadata),
    });
    const upstream = new UpstreamStream(
      {
        upstream: scriptedUpstream(streams),
        silenceMs: 90_000,
        debounceMs: 10,
        backoffInitialMs: 1000,
        backoffMaxMs: 1000,
        handoverMs: 500,
      },
      hub,
    );
    const a = recordingClient(['aa']);
    hub.add(a);
    await vi.advanceTimersByTimeAsync(10);
    streams[0]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    const b = recordingClient(['bb']);
    hub.add(b);
    await vi.advanceTimersByTimeAsync(10);
    expect(streams).toHaveLength(2);
    streams[1]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    const line = { s: 'metadata', version: 3, units: ['cd'.repeat(28) + '4d494e'] };
    streams[0]?.send(line);
    streams[1]?.send(line);
    await vi.advanceTimersByTimeAsync(0);
    const metadataOf = (client: { frames: string[] }) =>
      client.frames
        .filter((f) => f.includes('event: metadata\n'))
        .map((f) => liveMetadataSchema.parse(JSON.parse(/data: (.*)\n/.exec(f)?.[1] ?? 'null')));
    expect(metadataOf(a)).toEqual([{ units: line.units }]);
    expect(metadataOf(b)).toEqual([{ units: line.units }]);
    expect(told).toEqual([{ units: line.units }]);
    // The next change is a new event.
    streams[1]?.send({ ...line, version: 4 });
    await vi.advanceTimersByTimeAsync(0);
    expect(metadataOf(a)).toHaveLength(2);
    upstream.close();
  });
});

describe('a chain rollback through the embedded gateway', () => {
  const ANCHOR: OgmiosWireBlock = {
    type: 'praos',
    era: 'babbage',
    id: 'ee'.repeat(32),
    height: 0,
    slot: 120_000_000,
    ancestor: 'genesis',
    transactions: [],
  };
  const pools = syntheticPools(2);
  const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: 0 };
  let fake: FakeOgmios;
  let t: TestPlatform;
  let chain: OgmiosWireBlock[];

  beforeAll(async () => {
    chain = [ANCHOR, ...syntheticBlocks(cursor, pools, 3, { updates: 2, sequential: true })];
    fake = await FakeOgmios.start(chain);
    t = await createTestPlatform({
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${ANCHOR.slot}.${ANCHOR.id}` },
    });
    t.platform.startLive();
    const tipSlot = async () =>
      ((await (await t.fetch('/healthz')).json()) as { chain: { tipSlot: number | null } }).chain.tipSlot;
    await vi.waitUntil(async () => (await tipSlot()) === chain.at(-1)?.slot, { timeout: 20_000, interval: 20 });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('sends every live connection the point, after the trades it undid', async () => {
    const symbols = symbolInfoResponseSchema.parse(await (await t.fetch('/gw/v1/symbol_info?group=Aggregate')).json());
    const [first, second] = symbols.ticker;
    const one = new SseReader(await t.fetch(`/gw/v1/live?pools=${first}`));
    const two = new SseReader(await t.fetch(`/gw/v1/live?pools=${second}`));
    await Promise.all(
      [one, two].map((r) =>
        r.until((f) => f.some((x) => x.event === 'status' && JSON.parse(x.data).state === 'connected'), 5000),
      ),
    );
    const point = chain.at(-1) as OgmiosWireBlock;
    fake.extend([nextSyntheticBlock(cursor, pools, { updates: 2, sequential: true })]);
    await one.until(() => liveTrades(one).length > 0, 5000);
    fake.rollBackTo(point.slot);
    const expected = { slot: point.slot, id: point.id, time: slotTime(point.slot) };
    for (const reader of [one, two]) {
      await reader.until((f) => f.some((x) => x.event === 'rollback'), 5000);
      expect(
        reader.frames.filter((x) => x.event === 'rollback').map((x) => liveRollbackSchema.parse(JSON.parse(x.data))),
      ).toEqual([expected]);
    }
    one.cancel();
    two.cancel();
  });
});
