import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NODE_SERVER_OPTIONS, openStream, type StreamSink } from '../../src/node/response-sink';

/** A server with one streaming route behind CORS (which touches the response before the handler). */
async function streamingServer(maxUnreadBytes: number) {
  const opened: { sink: StreamSink; closed: boolean; socket: Socket | null }[] = [];
  const app = new Hono();
  app.use('*', cors({ origin: '*' }));
  app.get('/stream', (c) => {
    c.header('X-Limit', '42');
    const socket = (c.env as { outgoing?: ServerResponse }).outgoing?.socket ?? null;
    const entry = { sink: undefined as unknown as StreamSink, closed: false, socket };
    const { response, sink } = openStream(c, {
      headers: { 'Content-Type': 'text/event-stream' },
      maxUnreadBytes,
      slowConsumerLine: 'too slow\n',
      onClose: () => {
        entry.closed = true;
      },
    });
    entry.sink = sink;
    opened.push(entry);
    sink.write('hello\n');
    return response;
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return { server, port, opened };
}

/** A response body read as it arrives: the text so far, and how it ended. */
function collect(response: Response): { text: string; ended: boolean; failed: boolean } {
  const body = response.body;
  if (!body) throw new Error('no body');
  const state = { text: '', ended: false, failed: false };
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) state.text += read.value;
    } catch {
      state.failed = true;
    }
    state.ended = true;
  })();
  return state;
}

let server: ServerType | undefined;
afterEach(async () => {
  if (server && 'closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('streaming responses written to the Node response', () => {
  it('keeps the headers set before the handler, streams coalesced writes, and ends cleanly', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const response = await fetch(`http://127.0.0.1:${s.port}/stream`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-limit')).toBe('42');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const entry = s.opened[0];
    if (!entry) throw new Error('no stream');
    for (let i = 0; i < 100; i++) entry.sink.write(`line ${i}\n`);
    entry.sink.end();
    const text = await response.text();
    expect(text.split('\n').filter(Boolean)).toEqual(['hello', ...Array.from({ length: 100 }, (_, i) => `line ${i}`)]);
    expect(entry.closed).toBe(true);
    expect(entry.sink.write('late\n')).toBe(false);
  });

  it('frames chunks by bytes, not characters: text beyond ASCII arrives intact', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const response = await fetch(`http://127.0.0.1:${s.port}/stream`);
    const entry = s.opened[0];
    if (!entry) throw new Error('no stream');
    const body = collect(response);
    const lines = ['prix: 0,0037 ₳', 'naïve café', 'emoji 😀 and 漢字'];
    for (const line of lines) entry.sink.write(`${line}\n`);
    // Those went out as one chunk; the next write is another.
    await vi.waitUntil(() => body.text.endsWith('漢字\n'), { timeout: 5000 });
    entry.sink.write('last\n');
    entry.sink.end();
    await vi.waitUntil(() => body.ended, { timeout: 5000 });
    expect(body.text.split('\n').filter(Boolean)).toEqual(['hello', ...lines, 'last']);
  });

  it('gives each stream one socket write per run, all flushed, even when one connection fails to take its text', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const bodies = (await Promise.all([0, 1, 2].map(() => fetch(`http://127.0.0.1:${s.port}/stream`)))).map(collect);
    await vi.waitUntil(() => s.opened.length === 3, { timeout: 5000, interval: 10 });
    // The first line's flush has gone out (each client has it) before counting.
    await vi.waitUntil(() => bodies.every((b) => b.text === 'hello\n'), { timeout: 5000, interval: 5 });
    const [first, broken, third] = s.opened;
    if (!first || !broken || !third) throw new Error('streams missing');
    const writes = new Map<Socket, number>();
    const write = Socket.prototype.write;
    const spy = vi.spyOn(Socket.prototype, 'write').mockImplementation(function (
      this: Socket,
      ...args: Parameters<Socket['write']>
    ) {
      writes.set(this, (writes.get(this) ?? 0) + 1);
      if (this === broken.socket) throw new Error('the socket broke');
      return write.apply(this, args);
    });
    try {
      // One synchronous run, as a commit's fan-out: interleaved lines, multi-byte text with its byte count given.
      for (let i = 0; i < 5; i++) {
        for (const entry of [first, broken, third]) {
          const line = `ligne ${i} ₳\n`;
          expect(entry.sink.write(line, Buffer.byteLength(line))).toBe(true);
        }
      }
      await vi.waitUntil(() => writes.size === 3, { timeout: 5000, interval: 5 });
    } finally {
      spy.mockRestore();
    }
    expect([...writes.values()]).toEqual([1, 1, 1]);
    expect(broken.closed).toBe(true);
    expect(broken.sink.open).toBe(false);
    first.sink.end();
    third.sink.end();
    const expected = ['hello', ...Array.from({ length: 5 }, (_, i) => `ligne ${i} ₳`)];
    await vi.waitUntil(() => bodies.every((b) => b.ended), { timeout: 5000, interval: 5 });
    expect(bodies.map((b) => b.failed)).toEqual([false, true, false]);
    expect(bodies[0]?.text.split('\n').filter(Boolean)).toEqual(expected);
    expect(bodies[2]?.text.split('\n').filter(Boolean)).toEqual(expected);
  });

  it('writes at once with writeNow, after what was queued, in one socket write; streams given the same text get it intact', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const bodies = (await Promise.all([0, 1, 2].map(() => fetch(`http://127.0.0.1:${s.port}/stream`)))).map(collect);
    await vi.waitUntil(() => s.opened.length === 3, { timeout: 5000, interval: 10 });
    await vi.waitUntil(() => bodies.every((b) => b.text === 'hello\n'), { timeout: 5000, interval: 5 });
    const [first, second, third] = s.opened;
    if (!first || !second || !third) throw new Error('streams missing');
    const writes = new Map<Socket, number>();
    const write = Socket.prototype.write;
    const spy = vi.spyOn(Socket.prototype, 'write').mockImplementation(function (
      this: Socket,
      ...args: Parameters<Socket['write']>
    ) {
      writes.set(this, (writes.get(this) ?? 0) + 1);
      return write.apply(this, args);
    });
    const shared = 'prix ₳ 1\nprix ₳ 2\n';
    try {
      first.sink.write('queued\n');
      for (const entry of [first, second]) expect(entry.sink.writeNow(shared, Buffer.byteLength(shared))).toBe(true);
      // A different text of the same length, then the shared one again: each stream gets its own.
      expect(third.sink.writeNow('prix ₳ 3\nprix ₳ 4\n')).toBe(true);
      // Written before any await: at once, one write per stream.
      expect(writes.size).toBe(3);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      spy.mockRestore();
    }
    expect([...writes.values()]).toEqual([1, 1, 1]);
    for (const entry of s.opened) entry.sink.end();
    await vi.waitUntil(() => bodies.every((b) => b.ended), { timeout: 5000, interval: 5 });
    expect(bodies.map((b) => b.text)).toEqual([
      `hello\nqueued\n${shared}`,
      `hello\n${shared}`,
      'hello\nprix ₳ 3\nprix ₳ 4\n',
    ]);
  });

  it('sends an HTTP/1.0 client a body delimited by the connection close, without chunk framing', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const socket = connect(s.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /stream HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('utf8')));
    await vi.waitUntil(() => s.opened.length === 1, { timeout: 5000, interval: 10 });
    const entry = s.opened[0];
    if (!entry) throw new Error('no stream');
    entry.sink.write('one\n');
    entry.sink.write('two\n');
    await vi.waitUntil(() => received.endsWith('two\n'), { timeout: 5000, interval: 5 });
    entry.sink.end();
    await once(socket, 'close');
    const [head = '', body] = received.split('\r\n\r\n');
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body).toBe('hello\none\ntwo\n');
  });

  it('tells the route at once when the client goes away', async () => {
    const s = await streamingServer(1 << 20);
    server = s.server;
    const abort = new AbortController();
    const response = await fetch(`http://127.0.0.1:${s.port}/stream`, { signal: abort.signal });
    expect(response.status).toBe(200);
    abort.abort();
    await vi.waitUntil(() => s.opened[0]?.closed === true, { timeout: 5000, interval: 10 });
    expect(s.opened[0]?.sink.open).toBe(false);
  });

  it('drops a client that never reads once the unread bytes pass the bound, without growing further', async () => {
    const s = await streamingServer(64 * 1024);
    server = s.server;
    const socket = connect(s.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause(); // never read: the kernel buffers fill, then Node's
    await vi.waitUntil(() => s.opened.length === 1, { timeout: 5000, interval: 10 });
    const entry = s.opened[0];
    if (!entry) throw new Error('no stream');
    const chunk = 'x'.repeat(1023) + '\n';
    let written = 0;
    while (entry.sink.write(chunk)) {
      written += chunk.length;
      if (written > 256 * 1024 * 1024) throw new Error('never dropped');
      if (written % (256 * 1024) === 0) await new Promise((r) => setImmediate(r));
    }
    expect(entry.closed).toBe(true);
    expect(entry.sink.open).toBe(false);
    expect(entry.sink.writeNow(chunk)).toBe(false);
    socket.destroy();
  });

  it('drops a client that never reads under writeNow too', async () => {
    const s = await streamingServer(64 * 1024);
    server = s.server;
    const socket = connect(s.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    await vi.waitUntil(() => s.opened.length === 1, { timeout: 5000, interval: 10 });
    const entry = s.opened[0];
    if (!entry) throw new Error('no stream');
    const chunk = 'y'.repeat(1023) + '\n';
    let written = 0;
    while (entry.sink.writeNow(chunk)) {
      written += chunk.length;
      if (written > 256 * 1024 * 1024) throw new Error('never dropped');
      if (written % (256 * 1024) === 0) await new Promise((r) => setImmediate(r));
    }
    expect(entry.closed).toBe(true);
    socket.destroy();
  });
});
