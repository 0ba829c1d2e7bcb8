import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { afterAll, describe, expect, it } from 'vitest';
import { openStream, type StreamSink } from '../../src/node/response-sink';
import { ensureDefined } from '../support/ensure';

/**
 * Served the default way (node-server replaces the global Response), a stream cannot hand the socket
 * over directly: it must fall back to the web-stream path and still work. In a file of its own, as
 * the override is process-wide.
 */
let server: ServerType | undefined;
afterAll(async () => {
  if (server && 'closeAllConnections' in server) server.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe("streams under node-server's global Response override", () => {
  it('fall back to the web-stream path and still stream with the middleware headers', async () => {
    const app = new Hono();
    app.use('*', cors({ origin: '*' }));
    let closed = false;
    let opened: StreamSink | undefined;
    app.get('/stream', (c) => {
      const { response, sink } = openStream(c, {
        headers: { 'Content-Type': 'text/event-stream' },
        maxUnreadBytes: 1 << 20,
        slowConsumerLine: 'too slow\n',
        onClose: () => {
          closed = true;
        },
      });
      sink.write('one\n');
      opened = sink;
      return response;
    });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const reader = ensureDefined(response.body).pipeThrough(new TextDecoderStream()).getReader();
    // The first line streams on its own, before the rest is written.
    expect((await reader.read()).value).toBe('one\n');
    const sink = ensureDefined(opened);
    sink.write('two\n');
    sink.end();
    let rest = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += read.value;
    expect(rest).toBe('two\n');
    expect(closed).toBe(true);
  });
});
