import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `npm run serve` as the user runs it (a child process through tsx). */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
let root: string;
let holder: Server;
let port: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-cli-'));
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('npm run serve', () => {
  it('stops at once with one clear line when the port is taken, before any backfill', async () => {
    const dataDir = join(root, 'data');
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/server/cli/serve.ts', '--port', String(port), '--data-dir', dataDir, '--pools', '100', '--days', '1'],
        { cwd: REPO, timeout: 20_000 },
        (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    // (Before it, a fresh clone without a build also warns that there is no built app.)
    expect(result.stderr.trim().split('\n').at(-1)).toBe(`Port ${port} on 127.0.0.1 is in use (another server?): stop it or choose another --port.`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
  });
});
