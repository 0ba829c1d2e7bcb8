import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { openMarket } from '../../src/service/open-market';
import { freePort } from '../support/free-port';

/**
 * Stopping the server the way a process manager does: a signal to npm's PID (`npm run serve`, the
 * built server; `npm start`, which builds first; `npm run serve:dev`, from source) must reach node and
 * stop it cleanly — streams ended, the data directory's lock released, the port free, no process left.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'shutdown-test-key-01';
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'shutdown-'));
  // The built server is what `npm run serve` runs.
  await new Promise<void>((resolve, reject) =>
    execFile('npm', ['run', 'build:server'], { cwd: REPO, timeout: 120_000 }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}, 130_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Opens a stream connection and resolves once its first line came; `ended` resolves when the server ends it. */
function openStream(port: number, pool: string): Promise<{ ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify([pool]);
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        `POST /api/v1/tokens/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
    );
    let text = '';
    const ended = new Promise<string>((done) => socket.on('end', () => done(text)));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('{"s":"ok"}')) resolve({ ended });
    });
    socket.on('error', reject);
  });
}

describe.each([
  ['serve', 'SIGTERM'],
  ['serve', 'SIGINT'],
  // From source with tsx (npm → tsx → node), and `npm start` (npm → npm → node, after building the app).
  ['serve:dev', 'SIGTERM'],
  ['start', 'SIGTERM'],
] as const)('npm run %s stopped with %s to npm’s PID', (script, signal) => {
  it('stops node cleanly: the stream ends, the lock and the port are free, no process is left', async () => {
    const port = await freePort();
    const dataDir = join(root, `${script}-${signal}`);
    const npm = spawn(
      'npm',
      ['run', script, '--', '--port', String(port), '--data-dir', dataDir, '--pools', '40', '--days', '0.1'],
      {
        cwd: REPO,
        env: { ...process.env, TOKEN_API_KEYS: `${KEY}:pro` },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    try {
      // `npm start` builds the app first.
      await vi.waitUntil(
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
        { timeout: 150_000, interval: 200 },
      );
      const info = symbolInfoResponseSchema.parse(
        await (
          await fetch(`http://127.0.0.1:${port}/api/v1/symbol_info?group=Aggregate`, {
            headers: { Authorization: `Bearer ${KEY}` },
          })
        ).json(),
      );
      const stream = await openStream(port, info.ticker[0] ?? '');

      npm.kill(signal);
      const late = new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`npm run ${script} did not exit within 15 s of ${signal}:\n${output}`)),
          15_000,
        ).unref(),
      );
      await Promise.race([exited, late]);
      // The stream was ended by the server (chunked body closed), not cut.
      expect(await stream.ended).toMatch(/0\r\n\r\n$/);
      expect(output).toContain('Shutting down...');
      // No process of this server is left, the port is free, the lock is released.
      expect(spawnSync('pgrep', ['-f', dataDir]).status).toBe(1);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      const reopened = await openMarket(dataDir, 'test', { existing: true });
      expect(reopened.market.pools.size).toBeGreaterThan(0);
      await reopened.close();
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      spawnSync('pkill', ['-KILL', '-f', dataDir]);
    }
  }, 200_000);
});
