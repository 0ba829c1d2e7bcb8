import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { expectDescribed } from '../support/openapi';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/** Sends raw bytes and resolves with everything the server answered before it closed. */
function raw(origin: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

/** The answer's parts, checked against the OpenAPI document for the path it was sent to. */
async function split(
  answer: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; type: string; body: unknown }> {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
  const type = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '';
  await expectDescribed(method, path, new Response(body, { status, headers: { 'Content-Type': type } }));
  return { status, type, body: JSON.parse(body) };
}

describe('requests Node refuses before routing (the soak fuzz found bare 431s)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ args: ['--pools', '40', '--days', '1'] });
  }, 90_000);
  afterAll(async () => server.stop());

  it('answers a request line over 16 KiB with a 431 in the price family’s shape', async () => {
    const answer = await split(
      await raw(server.origin, `GET /api/v1/history?symbol=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      '/api/v1/history',
    );
    expect(answer.status).toBe(431);
    expect(answer.type).toBe('application/json');
    expect(priceErrorSchema.parse(answer.body).errmsg).toMatch(/too large/);
  });

  it('answers it FastAPI-style for the token endpoints, through the gateway too', async () => {
    for (const path of ['/api/v1/tokens/current?pool=', '/gw/v1/tokens/current?pool=']) {
      const answer = await split(
        await raw(server.origin, `GET ${path}${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
        path,
      );
      expect(answer.status).toBe(431);
      expect(tokenErrorSchema.parse(answer.body).detail[0]?.msg).toMatch(/too large/);
    }
  });

  it('answers the stream (POST /api/v1/tokens/stream) FastAPI-style too, as its OpenAPI entry says', async () => {
    const path = '/api/v1/tokens/stream';
    const answer = await split(
      await raw(
        server.origin,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'k'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n[]`,
      ),
      path,
      'POST',
    );
    expect(answer.status).toBe(431);
    expect(tokenErrorSchema.parse(answer.body).detail[0]?.msg).toMatch(/too large/);
  });

  it('answers headers over the limit, and bytes that are not HTTP, in the price shape', async () => {
    const big = await split(
      await raw(server.origin, `GET /gw/v1/info HTTP/1.1\r\nHost: x\r\nX-Pad: ${'b'.repeat(20_000)}\r\n\r\n`),
      '/gw/v1/info',
    );
    expect(big.status).toBe(431);
    priceErrorSchema.parse(big.body);
    const garbage = await split(await raw(server.origin, 'NOT HTTP AT ALL\r\n\r\n'), '/');
    expect(garbage.status).toBe(400);
    expect(priceErrorSchema.parse(garbage.body).errmsg).toBe('Malformed HTTP request');
  });

  it('keeps serving afterwards', async () => {
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
  });
});
