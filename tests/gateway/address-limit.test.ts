import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * /gw/v1 limits each client address (the gateway spends its own key upstream for everyone): over a
 * real server, from two loopback addresses, with a budget of 5 requests a minute.
 */
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  server = await startServerProcess({
    args: ['--pools', '60', '--days', '0.2'],
    env: { GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '5' },
  });
  port = Number(new URL(server.origin).port);
}, 60_000);
afterAll(async () => server.stop());

function get(
  path: string,
  from: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as unknown }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer's headers only; the connection is then closed (for the live stream). */
function head(path: string, from: string): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from }, (res) => {
      resolve(res.headers);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

describe('per-address rate limit of /gw/v1', () => {
  it('answers the budget, then 429 in the family shape with the service’s headers; another address is unaffected', async () => {
    for (let i = 0; i < 5; i++) {
      const ok = await get('/gw/v1/groups', '127.0.0.2');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('5');
      expect(ok.headers['ratelimit-remaining']).toBe(String(4 - i));
    }
    const refused = await get('/gw/v1/symbol_info?group=Minswap', '127.0.0.2');
    expect(refused.status).toBe(429);
    expect(priceErrorSchema.parse(refused.body).errmsg).toMatch(
      /^Rate limit exceeded: 5 requests per minute per client address; retry in \d+ s$/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const tokens = await get('/gw/v1/tokens/current?pool=00', '127.0.0.2');
    expect(tokens.status).toBe(429);
    expect(tokenErrorSchema.parse(tokens.body).detail[0]?.type).toBe('rate_limit_exceeded');

    const other = await get('/gw/v1/groups', '127.0.0.3');
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('4');
  });

  it('leaves out the live stream only (limited by connections): another path that ends in /live counts', async () => {
    // The live route (its headers are enough: the stream is hung up at once), never counted.
    for (let i = 0; i < 8; i++)
      expect((await head('/gw/v1/live?pools=ab', '127.0.0.4'))['ratelimit-remaining']).toBeUndefined();
    for (let i = 0; i < 5; i++)
      expect((await get('/gw/v1/tokens/logo/live', '127.0.0.4')).headers['ratelimit-remaining']).toBe(String(4 - i));
    expect((await get('/gw/v1/groups', '127.0.0.4')).status).toBe(429);
  });

  it('does not count the API’s own routes (they have the key’s plan)', async () => {
    const api = await get('/api/v1/groups', '127.0.0.2');
    expect(api.status).toBe(401);
  });
});
