/**
 * The stream benchmark's clients, in their own process (started by bench/stream.ts with
 * `node --import tsx bench/stream-clients.ts` and an IPC channel), so that parsing what 1,000
 * connections receive never runs on the server's event loop.
 *
 * Each client is a raw TCP socket speaking HTTP/1.1 (bench/stream-http.ts decodes the response), read
 * with `onread` into one static buffer (no Buffer and no 'data' event per read). While recording, a
 * received chunk's only cost is a timestamp and a copy into an arena allocated beforehand (no http
 * parser, no stream objects, no Buffer per read): decoding waits for `collect`, so one
 * connection's parsing does not delay the next connection's receive time, and the event loop never
 * sleeps, so no receive waits for this process's CPU to wake up. An event gets the receive time of
 * the chunk that completed it.
 */
import { connect, type Socket } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { HttpResponseDecoder } from './stream-http';
import {
  eventKey,
  sharedNow,
  type ClientSpec,
  type FromClients,
  type StreamMode,
  type ToClients,
} from './stream-protocol';

type Message =
  { kind: 'ready' } | { kind: 'event'; key: string } | { kind: 'problem'; text: string } | { kind: 'ignored' };

interface TradeLike {
  pool_id: string;
  block_time: number;
  previous_price: number;
  current_price: number;
}

function tradeKey(json: string): string {
  const e = JSON.parse(json) as TradeLike;
  return eventKey(e.pool_id, e.block_time, e.previous_price, e.current_price);
}

/** Turns a connection's bytes into messages: JSON lines (direct) or SSE events (gateway). */
class Decoder {
  private readonly text = new TextDecoder();
  private buffer = '';
  private readonly parser: EventSourceParser | undefined;
  private out: Message[] = [];

  constructor(mode: StreamMode) {
    if (mode === 'gateway') {
      this.parser = createParser({
        onEvent: (e) => {
          if (e.event === 'trade') this.out.push({ kind: 'event', key: tradeKey(e.data) });
          else if (e.event === 'status') {
            const status = JSON.parse(e.data) as { state: string };
            this.out.push(
              status.state === 'connected' ? { kind: 'ready' } : { kind: 'problem', text: `status ${e.data}` },
            );
          } else if (e.event === 'error') this.out.push({ kind: 'problem', text: `error event ${e.data}` });
          else this.out.push({ kind: 'ignored' });
        },
      });
    }
  }

  feed(chunk: Buffer): Message[] {
    this.out = [];
    const text = this.text.decode(chunk, { stream: true });
    if (this.parser) {
      this.parser.feed(text);
      return this.out;
    }
    this.buffer += text;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
      if (line.startsWith('{"s":"ok"')) this.out.push({ kind: 'ready' });
      else if (line.startsWith('{"s":"error"')) this.out.push({ kind: 'problem', text: line });
      else if (line.includes('"pool_id"')) this.out.push({ kind: 'event', key: tradeKey(line) });
      else if (line.trim() !== '') this.out.push({ kind: 'problem', text: `unexpected line ${line.slice(0, 200)}` });
    }
    return this.out;
  }
}

interface Connection {
  readonly index: number;
  readonly http: HttpResponseDecoder;
  readonly decoder: Decoder;
  readonly socket: Socket;
  ready: boolean;
  /** Closed on purpose (no problem to report). */
  closing: boolean;
}

/** The messages a received chunk completes. */
function decode(connection: Connection, chunk: Buffer): Message[] {
  const messages: Message[] = [];
  const hadHead = connection.http.status !== undefined;
  for (const body of connection.http.feed(chunk)) messages.push(...connection.decoder.feed(body));
  const status = connection.http.status;
  if (!hadHead && status !== undefined && status !== 200) messages.unshift({ kind: 'problem', text: `HTTP ${status}` });
  return messages;
}

/**
 * Received chunks, in arrival order: bytes copied into arena segments, and per chunk its connection and
 * time. Everything is allocated and its pages touched (filled) in the constructor, before recording
 * starts, so that what a read costs while recording is a timestamp and a copy: no allocation and no
 * page fault (growing past the reservation still works, at that cost).
 */
class Recording {
  private static readonly SEGMENT = 32 * 1024 * 1024;
  private segments: Buffer[] = [];
  private current = 0;
  private used = 0;
  private count = 0;
  private connection: Int32Array;
  private segment: Int32Array;
  private offset: Int32Array;
  private length: Int32Array;
  private time: Float64Array;

  constructor(bytes: number, chunks: number) {
    // Filled, not just allocated: fresh pages are only mapped when first written.
    for (let reserved = 0; reserved < bytes; reserved += Recording.SEGMENT)
      this.segments.push(Buffer.allocUnsafeSlow(Recording.SEGMENT).fill(0));
    this.connection = new Int32Array(chunks).fill(-1);
    this.segment = new Int32Array(chunks).fill(-1);
    this.offset = new Int32Array(chunks).fill(-1);
    this.length = new Int32Array(chunks).fill(-1);
    this.time = new Float64Array(chunks).fill(-1);
  }

  /** Keeps `source[0, length)` (at most a segment), received by `connection` at `time`. */
  add(connection: number, source: Buffer, length: number, time: number): void {
    let segment = this.segments[this.current];
    if (!segment || this.used + length > segment.length) {
      if (segment) this.current++;
      this.used = 0;
      segment = this.segments[this.current];
      if (!segment) this.segments.push((segment = Buffer.allocUnsafeSlow(Recording.SEGMENT)));
    }
    if (this.count === this.time.length) this.grow();
    const i = this.count++;
    source.copy(segment, this.used, 0, length);
    this.connection[i] = connection;
    this.segment[i] = this.current;
    this.offset[i] = this.used;
    this.length[i] = length;
    this.time[i] = time;
    this.used += length;
  }

  /** Chunks received while recording, and their bytes. */
  get received(): { chunks: number; bytes: number } {
    let bytes = 0;
    for (let i = 0; i < this.count; i++) bytes += this.length[i] ?? 0;
    return { chunks: this.count, bytes };
  }

  *entries(): Generator<{ connection: number; chunk: Buffer; time: number }> {
    for (let i = 0; i < this.count; i++) {
      const segment = this.segments[this.segment[i] ?? 0];
      const offset = this.offset[i] ?? 0;
      if (!segment) continue;
      yield {
        connection: this.connection[i] ?? -1,
        chunk: segment.subarray(offset, offset + (this.length[i] ?? 0)),
        time: this.time[i] ?? 0,
      };
    }
  }

  private grow(): void {
    const n = this.time.length * 2;
    const grown = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.connection = grown(this.connection, (k) => new Int32Array(k));
    this.segment = grown(this.segment, (k) => new Int32Array(k));
    this.offset = grown(this.offset, (k) => new Int32Array(k));
    this.length = grown(this.length, (k) => new Int32Array(k));
    this.time = grown(this.time, (k) => new Float64Array(k));
  }
}

/** Where every socket's reads land (the `onread` callback runs synchronously, and copies out). */
const READ_BUFFER = Buffer.allocUnsafeSlow(256 * 1024);

/** Open connections by client index (a hole where one failed to open). */
let connections: (Connection | undefined)[] = [];
let recording: Recording | undefined;
let lastChunkAt = sharedNow();
const problems: string[] = [];

function send(message: FromClients): void {
  process.send?.(message);
}

/** Notes readiness and problems; a problem before the first line refuses the connection. */
function handle(
  connection: Connection,
  messages: readonly Message[],
  onReady?: () => void,
  onRefused?: (why: string) => void,
): void {
  for (const m of messages) {
    if (m.kind === 'ready' && !connection.ready) {
      connection.ready = true;
      onReady?.();
    } else if (m.kind === 'problem') {
      if (!connection.ready && onRefused) onRefused(m.text);
      else if (problems.length < 50) problems.push(`client ${connection.index}: ${m.text}`);
    }
  }
}

function requestText(mode: StreamMode, port: number, spec: ClientSpec): string {
  const host = `Host: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n`;
  if (mode === 'gateway') return `GET /gw/v1/live?pools=${spec.pools.join(',')} HTTP/1.1\r\n${host}\r\n`;
  // direct, and the floor server, which takes the same request.
  const body = JSON.stringify(spec.pools);
  return (
    `POST /api/v1/tokens/stream HTTP/1.1\r\n${host}Authorization: Bearer ${spec.key ?? ''}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function openOne(mode: StreamMode, port: number, spec: ClientSpec, index: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    // onread: the kernel's bytes land in one static buffer and reach `received` directly (no Buffer
    // allocated and no 'data' event emitted per read); `received` copies what it keeps.
    const socket = connect({
      host: '127.0.0.1',
      port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n) => {
          received(n);
          return true;
        },
      },
    });
    const connection: Connection = {
      index,
      http: new HttpResponseDecoder(),
      decoder: new Decoder(mode),
      socket,
      ready: false,
      closing: false,
    };
    let settled = false;
    const fail = (why: string) => {
      if (connection.closing) return;
      if (settled) {
        if (problems.length < 50) problems.push(`client ${index}: ${why}`);
        return;
      }
      settled = true;
      socket.destroy();
      reject(new Error(`client ${index}: ${why}`));
    };
    socket.on('connect', () => socket.write(requestText(mode, port, spec)));
    const received = (length: number): void => {
      const t = sharedNow();
      lastChunkAt = t;
      if (recording) {
        recording.add(index, READ_BUFFER, length, t);
        return;
      }
      // The decoders keep views of what they are fed: give them their own copy of the static buffer's bytes.
      const chunk = Buffer.from(READ_BUFFER.subarray(0, length));
      let messages: Message[];
      try {
        messages = decode(connection, chunk);
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
        return;
      }
      handle(
        connection,
        messages,
        () => {
          settled = true;
          resolve(connection);
        },
        fail,
      );
    };
    socket.on('error', (error) => fail(error.message));
    socket.on('close', () => fail('connection closed'));
  });
}

async function openAll(
  mode: StreamMode,
  port: number,
  clients: readonly ClientSpec[],
  concurrency: number,
): Promise<void> {
  const opened: (Connection | undefined)[] = new Array<Connection | undefined>(clients.length);
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < clients.length && failure === undefined) {
      const index = next++;
      const spec = clients[index];
      if (!spec) continue;
      try {
        opened[index] = await openOne(mode, port, spec, index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, clients.length) }, worker));
  connections = opened;
  if (failure !== undefined) throw failure;
}

function collect(): FromClients {
  const recorded = recording;
  recording = undefined;
  const keys: string[] = [];
  const keyIndexOf = new Map<string, number>();
  const client: number[] = [];
  const keyIndex: number[] = [];
  const time: number[] = [];
  for (const entry of recorded?.entries() ?? []) {
    const connection = connections[entry.connection];
    if (!connection) continue;
    let messages: Message[];
    try {
      messages = decode(connection, entry.chunk);
    } catch (error) {
      if (problems.length < 50)
        problems.push(`client ${connection.index}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    handle(connection, messages);
    for (const m of messages) {
      if (m.kind !== 'event') continue;
      let k = keyIndexOf.get(m.key);
      if (k === undefined) {
        k = keys.length;
        keys.push(m.key);
        keyIndexOf.set(m.key, k);
      }
      client.push(connection.index);
      keyIndex.push(k);
      time.push(entry.time);
    }
  }
  return {
    type: 'collected',
    keys,
    client: Int32Array.from(client),
    keyIndex: Int32Array.from(keyIndex),
    time: Float64Array.from(time),
    problems: problems.splice(0),
    gc: { ...gc },
    received: recorded?.received ?? { chunks: 0, bytes: 0 },
  };
}

async function closeAll(): Promise<void> {
  const all = connections;
  connections = [];
  for (const c of all) {
    if (!c) continue;
    c.closing = true;
    c.socket.destroy();
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * While recording, the event loop never sleeps: each turn polls the sockets without waiting. Each turn
 * allocates an Immediate, so the young generation is large (--max-semi-space-size, set by the
 * benchmark) and the collector's pauses are counted and reported: they delay receive times, so they
 * count against the measure, never for it.
 */
function spin(): void {
  if (recording) setImmediate(spin);
}

const gc = { count: 0, ms: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  if (!recording) return;
  for (const entry of list.getEntries()) {
    gc.count++;
    gc.ms += entry.duration;
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', (raw) => {
  const message = raw as ToClients;
  switch (message.type) {
    case 'open': {
      const started = sharedNow();
      problems.length = 0;
      openAll(message.mode, message.port, message.clients, message.concurrency).then(
        () => send({ type: 'opened', ms: sharedNow() - started }),
        (error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
      );
      break;
    }
    case 'clock':
      send({ type: 'clock', time: sharedNow() });
      break;
    case 'record':
      recording = new Recording(message.bytes, message.chunks);
      // What opening 1,000 connections and the steady blocks left (decoders' strings, promises, the
      // sockets' setup) is collected now, in full, rather than by a mark-compact in the middle of the
      // window (one of 56 ms was seen there in a gateway leg): the same for every mode and the floor.
      (globalThis as { gc?: (options?: { type: 'major'; execution: 'sync' }) => void }).gc?.();
      Object.assign(gc, { count: 0, ms: 0, maxMs: 0 });
      spin();
      send({ type: 'recording' });
      break;
    case 'quiet':
      send({ type: 'quiet', ms: sharedNow() - lastChunkAt });
      break;
    case 'collect':
      send(collect());
      break;
    case 'close':
      void closeAll().then(() => send({ type: 'closed' }));
      break;
  }
});

// The benchmark went away (finished or crashed): never outlive it.
process.on('disconnect', () => {
  for (const c of connections) c?.socket.destroy();
  process.exit(0);
});
