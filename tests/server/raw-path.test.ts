import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { expectDescribed } from '../support/openapi';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * Paths with `\` or dot segments are refused as sent, before URL parsing would resolve them into
 * another route (fetch() normalises paths, so these go over a raw socket to a real server process).
 */
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  server = await startServerProcess({ args: ['--pools', '40', '--days', '0.1'] });
  port = Number(new URL(server.origin).port);
}, 60_000);
afterAll(async () => server.stop());

async function raw(path: string): Promise<{ status: number; body: unknown }> {
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
  const type = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '';
  await expectDescribed('GET', path, new Response(body, { status, headers: { 'Content-Type': type } }));
  return { status, body: JSON.parse(body) as unknown };
}

describe('raw paths with a backslash or dot segments', () => {
  it.each([
    ['/gw/v1/%2e%2e/healthz', 'dot segments'],
    ['/gw/v1/%2E%2E/api/v1/groups', 'dot segments'],
    ['/gw/v1/./groups', 'dot segments'],
    ['/api/v1/../healthz', 'dot segments'],
    ['/gw/v1/groups\\', "'\\' is not accepted"],
    ['/api/v1/a\\..\\groups', "'\\' is not accepted"],
  ])('refuses %s with a 400 Invalid path in the price shape', async (path, reason) => {
    const answer = await raw(path);
    expect(answer.status).toBe(400);
    const { errmsg } = priceErrorSchema.parse(answer.body);
    expect(errmsg).toContain('Invalid path');
    expect(errmsg).toContain(reason);
  });

  it('answers the token endpoints in their own shape', async () => {
    const answer = await raw('/gw/v1/tokens/%2e/current?pool=00');
    expect(answer.status).toBe(400);
    expect(tokenErrorSchema.parse(answer.body).detail[0]?.msg).toContain('Invalid path');
  });

  it('leaves dots inside names and query strings alone', async () => {
    expect((await raw('/gw/v1/history?symbol=ADA.SNEK_Aggregate_Pool1&resolution=1d&from=0&to=1')).status).not.toBe(
      400,
    );
    expect((await raw('/gw/v1/groups')).status).toBe(200);
  });
});
