import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveHub, type LiveClient } from '../../src/gateway/live/live-hub';
import { UpstreamStream, type UpstreamListener } from '../../src/gateway/live/upstream-stream';
import type { Upstream } from '../../src/gateway/upstream';
import { liveStatusSchema, type LiveStatus } from '../../src/shared/api/gateway';

/**
 * The reconnect policy on its own, with fake timers: an upstream that refuses every connection
 * (a unit test of timing; the real service is exercised in live.test.ts and remote.test.ts).
 */
function refusingUpstream(log: { at: number; body: string }[]): Upstream {
  return {
    kind: 'remote',
    decodesBodies: true,
    fetch: async (_path, init) => {
      log.push({ at: Date.now(), body: String(init?.body) });
      return new Response('{"s":"error","errmsg":"Connection limit exceeded"}\n', {
        headers: { 'Content-Type': 'text/event-stream' },
      });
    },
  };
}

function listener(): UpstreamListener & { down: number; live: number; idle: number } {
  return {
    down: 0,
    live: 0,
    idle: 0,
    onDown() {
      this.down++;
    },
    onIdle() {
      this.idle++;
    },
    onLive() {
      this.live++;
    },
    onInterrupted() {},
    onPoolLimit() {},
    onSwitchFailed() {},
    onEvent() {},
    onRollback() {},
    onMetadata() {},
  };
}

describe('upstream reconnect policy', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('backs off exponentially with jitter, capped, and never gives up', async () => {
    const attempts: { at: number; body: string }[] = [];
    const events = listener();
    const stream = new UpstreamStream(
      {
        upstream: refusingUpstream(attempts),
        silenceMs: 90_000,
        debounceMs: 10,
        backoffInitialMs: 1000,
        backoffMaxMs: 8000,
        random: () => 1 - 1e-9,
      },
      events,
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(10 + 200_000);
    const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i]?.at ?? 0));
    // random() ~ 1 gives the top of each jitter band: 1 s, 2 s, 4 s, then the 8 s cap forever.
    expect(gaps.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(attempts.length).toBeGreaterThan(20);
    expect(events.down).toBe(1);
    stream.close();
  });

  it('jitters between half and all of the step', async () => {
    const attempts: { at: number; body: string }[] = [];
    const stream = new UpstreamStream(
      {
        upstream: refusingUpstream(attempts),
        silenceMs: 90_000,
        debounceMs: 0,
        backoffInitialMs: 1000,
        backoffMaxMs: 1000,
        random: () => 0,
      },
      listener(),
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(3000);
    const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i]?.at ?? 0));
    expect(gaps.length).toBeGreaterThanOrEqual(5);
    expect(new Set(gaps)).toEqual(new Set([500]));
    stream.close();
  });

  it('debounces changes of the union into one re-subscription with the latest set', async () => {
    const attempts: { at: number; body: string }[] = [];
    const stream = new UpstreamStream(
      {
        upstream: refusingUpstream(attempts),
        silenceMs: 90_000,
        debounceMs: 200,
        backoffInitialMs: 60_000,
        backoffMaxMs: 60_000,
        random: () => 0,
      },
      listener(),
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(50);
    stream.setPools(['aa', 'bb']);
    await vi.advanceTimersByTimeAsync(50);
    stream.setPools(['bb', 'cc', 'aa']);
    await vi.advanceTimersByTimeAsync(250);
    expect(attempts.map((a) => a.body)).toEqual(['["aa","bb","cc"]']);
    stream.close();
  });

  it('stops and does not reconnect when no pool is wanted any more', async () => {
    const attempts: { at: number; body: string }[] = [];
    const events = listener();
    const quiet = new UpstreamStream(
      {
        upstream: refusingUpstream(attempts),
        silenceMs: 90_000,
        debounceMs: 0,
        backoffInitialMs: 100,
        backoffMaxMs: 100,
        random: () => 0,
      },
      events,
    );
    quiet.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(10);
    quiet.setPools([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(attempts.length).toBe(1);
    expect(events.idle).toBe(1);
    quiet.close();
  });
});

/** One upstream stream connection the test writes to (what the service would send). */
interface ScriptedStream {
  readonly body: string;
  send(line: unknown): void;
  /** Sends text as it is (no JSON, no line end). */
  raw(text: string): void;
  /** The upstream closes the stream (a drop). */
  drop(): void;
}

/** An upstream whose stream connections the test drives line by line, to drop one mid-switch. */
function scriptedUpstream(streams: ScriptedStream[]): Upstream {
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
        body: String(init?.body),
        send: (line) => controller?.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
        raw: (text) => controller?.enqueue(encoder.encode(text)),
        drop: () => controller?.close(),
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

const statusesOf = (client: { frames: string[] }): LiveStatus[] =>
  client.frames
    .filter((f) => f.includes('event: status\n'))
    .map((f) => liveStatusSchema.parse(JSON.parse(/data: (.*)\n/.exec(f)?.[1] ?? 'null')));

const trade = (pool: string, n: number) => ({
  block_time: 1_700_000_000 + n,
  pool_id: pool,
  current_price: n + 1,
  previous_price: n,
  current_tvl: 10,
  previous_tvl: 10,
  volume: 1,
});

describe('the current upstream connection dropping while a switch is under way', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('marks a gap: a browser resuming from before the drop is told to resync, and nobody is told "connected" in between', async () => {
    const streams: ScriptedStream[] = [];
    const hub: LiveHub = new LiveHub((pools) => stream.setPools(pools));
    const stream = new UpstreamStream(
      {
        upstream: scriptedUpstream(streams),
        silenceMs: 90_000,
        debounceMs: 10,
        backoffInitialMs: 1000,
        backoffMaxMs: 1000,
        handoverMs: 50,
        idleLingerMs: 5000,
      },
      hub,
    );
    const z = recordingClient(['aa']);
    hub.add(z);
    await vi.advanceTimersByTimeAsync(10);
    streams[0]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    expect(statusesOf(z)).toEqual([{ state: 'connected', resync: false }]);

    // X watches aa, sees an event, and leaves (Z keeps aa in the union).
    const x = recordingClient(['aa']);
    hub.add(x);
    streams[0]?.send(trade('aa', 1));
    await vi.advanceTimersByTimeAsync(0);
    const seen = /id: (\S+)\n/.exec(x.frames.find((f) => f.includes('event: trade')) ?? '')?.[1] ?? '';
    expect(seen).not.toBe('');
    hub.remove(x);

    // Y joins bb: a switch opens a second connection; the first drops before the second is live.
    const y = recordingClient(['bb']);
    hub.add(y);
    await vi.advanceTimersByTimeAsync(10);
    expect(streams.map((s) => s.body)).toEqual(['["aa"]', '["aa","bb"]']);
    streams[0]?.drop();
    await vi.advanceTimersByTimeAsync(0);
    const meanwhile = recordingClient(['aa']);
    hub.add(meanwhile);
    expect(statusesOf(meanwhile)).toEqual([]);

    streams[1]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    expect(statusesOf(y)).toEqual([{ state: 'connected', resync: false }]);
    expect(statusesOf(z).at(-1)).toEqual({ state: 'connected', resync: true });
    expect(statusesOf(meanwhile)).toEqual([{ state: 'connected', resync: false }]);

    const back = recordingClient(['aa']);
    hub.add(back, seen);
    expect(statusesOf(back)).toEqual([{ state: 'connected', resync: true }]);
    stream.close();
  });
});

describe('an upstream that sends a line without end', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('fails that connection past 1 MiB instead of buffering without bound, and reconnects', async () => {
    const streams: ScriptedStream[] = [];
    const events = listener();
    const lines: string[] = [];
    const stream = new UpstreamStream(
      {
        upstream: scriptedUpstream(streams),
        silenceMs: 90_000,
        debounceMs: 0,
        backoffInitialMs: 100,
        backoffMaxMs: 100,
        random: () => 0,
        log: (line) => lines.push(line),
      },
      events,
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(0);
    streams[0]?.send({ s: 'ok' });
    await vi.advanceTimersByTimeAsync(0);
    expect(events.live).toBe(1);
    // Just under the bound, the connection waits for the rest of the line.
    streams[0]?.raw('x'.repeat(1024 * 1024 - 10));
    await vi.advanceTimersByTimeAsync(0);
    expect(events.down).toBe(0);
    streams[0]?.raw('y'.repeat(64 * 1024));
    await vi.advanceTimersByTimeAsync(0);
    expect(events.down).toBe(1);
    expect(lines.join('\n')).toMatch(/without a line end/);
    await vi.advanceTimersByTimeAsync(100);
    expect(streams.length).toBe(2);
    stream.close();
  });
});

/**
 * An upstream whose key allows one stream, as the hosted API's: a request while another stream is
 * open is refused; an accepted one sends its ping at once. Records each request's body and `Prefer`.
 */
function oneStreamUpstream(requests: { body: string; prefer: string | null; refused: boolean }[]): Upstream {
  const encoder = new TextEncoder();
  let open = 0;
  return {
    kind: 'remote',
    decodesBodies: true,
    fetch: async (_path, init) => {
      const prefer = new Headers(init?.headers).get('Prefer');
      if (open > 0) {
        requests.push({ body: String(init?.body), prefer, refused: true });
        return new Response('{"s":"error","errmsg":"Connection limit exceeded"}\n', {
          headers: { 'Content-Type': 'text/event-stream' },
        });
      }
      open++;
      requests.push({ body: String(init?.body), prefer, refused: false });
      let closed = false;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          c.enqueue(encoder.encode('{"s":"ok"}\n'));
          init?.signal?.addEventListener('abort', () => {
            if (!closed) open--;
            closed = true;
            c.error(new Error('aborted'));
          });
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    },
  };
}

describe('a switch on a key that allows one stream', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('asks beside the live connection with Prefer: wait=0 (refused at once), then breaks first and asks without it (it may wait for the slot)', async () => {
    const requests: { body: string; prefer: string | null; refused: boolean }[] = [];
    const events = listener();
    const stream = new UpstreamStream(
      {
        upstream: oneStreamUpstream(requests),
        silenceMs: 90_000,
        debounceMs: 10,
        backoffInitialMs: 1000,
        backoffMaxMs: 1000,
        handoverMs: 50,
      },
      events,
    );
    stream.setPools(['aa']);
    await vi.advanceTimersByTimeAsync(10);
    stream.setPools(['aa', 'bb']);
    await vi.advanceTimersByTimeAsync(10);
    expect(requests).toEqual([
      { body: '["aa"]', prefer: null, refused: false },
      { body: '["aa","bb"]', prefer: 'wait=0', refused: true },
      { body: '["aa","bb"]', prefer: null, refused: false },
    ]);
    expect([...(stream.livePools ?? [])]).toEqual(['aa', 'bb']);
    expect(events.down).toBe(0);
    stream.close();
  });
});
