import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { STREAM_ERRORS } from '../../src/shared/api/stream';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * Charli3's official client switches pairs by aborting its stream and opening the next one about a
 * millisecond later, with the same key. Over a real socket, the old stream's slot must be free by then
 * (decisions: the slot is free once the client's side is gone), while a truly concurrent second
 * stream of the key is still refused.
 */

const KEY = 'switch-test-key-0001';
let server: ServerProcess;
let port: number;
let body: string;

beforeAll(async () => {
  // A server process of its own: in one process with the client, the event loop's order hides the race.
  server = await startServerProcess({
    args: ['--pools', '60', '--days', '0.2'],
    env: { TOKEN_API_KEYS: `${KEY}:pro` },
  });
  port = Number(new URL(server.origin).port);
  const info = symbolInfoResponseSchema.parse(
    await (
      await fetch(`${server.origin}/api/v1/symbol_info?group=Aggregate`, {
        headers: { Authorization: `Bearer ${KEY}` },
      })
    ).json(),
  );
  body = JSON.stringify([info.ticker[0]]);
}, 60_000);
afterAll(async () => server.stop());

/** Opens a stream with the key (a plain Node client, as the official one is) and resolves with its first line. */
function openStream(): Promise<{ first: string; req: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/tokens/stream',
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const newline = text.indexOf('\n');
          if (newline !== -1) resolve({ first: text.slice(0, newline), req });
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(body);
  });
}

describe('a client switching pairs (abort, then reconnect at once with the same key)', () => {
  it('is never refused: 100 aborts and immediate reconnects', async () => {
    let refused = 0;
    let current = await openStream();
    expect(current.first).toBe('{"s":"ok"}');
    for (let i = 0; i < 100; i++) {
      current.req.destroy();
      current = await openStream();
      if (current.first.includes(STREAM_ERRORS.connectionLimit)) refused++;
    }
    current.req.destroy();
    expect(refused).toBe(0);
  });

  it('still refuses a second stream while the first is open', async () => {
    const first = await openStream();
    expect(first.first).toBe('{"s":"ok"}');
    const second = await openStream();
    expect(second.first).toContain(STREAM_ERRORS.connectionLimit);
    second.req.destroy();
    first.req.destroy();
  });
});
