import { spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../support/engines';

/** One RESP command over a raw socket: enough to prove a real Redis answers, without a client library. */
function redisPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      resolve(data.toString().trim());
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('test engines', () => {
  let pg: TestPostgres;
  let redis: TestRedis;
  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });

  it('starts a real PostgreSQL that answers queries, and brings it back after a stop', async () => {
    const psql = (url: string) => spawnSync('psql', [url, '-tAc', 'SELECT 41 + 1'], { encoding: 'utf8' });
    const url = await pg.createDatabase('engines_test');
    expect(psql(url).stdout.trim()).toBe('42');
    await pg.stop();
    expect(psql(url).status).not.toBe(0);
    await pg.start();
    expect(psql(url).stdout.trim()).toBe('42');
  });

  it('starts a real Redis that answers, and brings it back after a stop', async () => {
    expect(await redisPing(redis.port)).toBe('+PONG');
    await redis.stop();
    await expect(redisPing(redis.port)).rejects.toThrow();
    await redis.start();
    expect(await redisPing(redis.port)).toBe('+PONG');
  });
});
