import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

  it('stops at once with one clear line when the VyFi pool list cannot be used, before any backfill', async () => {
    const dataDir = join(root, 'data-vyfi');
    const list = join(root, 'vyfi-pools.json');
    writeFileSync(list, '{"pools": [{"validator": "not hex", "assetA": "", "assetB": ""}]}');
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/server/cli/serve.ts', '--port', '0', '--data-dir', dataDir, '--source', 'chain', '--ogmios', 'ws://127.0.0.1:1', '--vyfi-pools', list],
        { cwd: REPO, timeout: 20_000 },
        (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(`--vyfi-pools / VYFI_POOLS: ${list}: pools[0].validator: must be a script hash (56 hex digits)`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
  });
});
