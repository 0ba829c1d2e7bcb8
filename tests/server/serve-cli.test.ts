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

/** Runs the server CLI to its end (it must stop by itself), with its output and exit code. */
function runServe(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/server/cli/serve.ts', ...args],
      { cwd: REPO, timeout: 20_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run serve', () => {
  it('stops at once with one clear line when the port is taken, before any backfill', async () => {
    const dataDir = join(root, 'data');
    const result = await runServe(['--port', String(port), '--data-dir', dataDir, '--pools', '100', '--days', '1']);
    expect(result.code).toBe(1);
    const line = `Port ${port} on 127.0.0.1 is in use (another server?): stop it or choose another --port.`;
    expect(result.stderr.trim().split('\n').at(-1)).toBe(line);
    // Not a terminal: the log is JSON lines, and says it too, as a fatal one. (Before it, a fresh clone
    // without a build also warns that there is no built app.)
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { level: number; msg: string };
    expect(last).toMatchObject({ level: 60, msg: line });
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('says it once with LOG_FORMAT=pretty (a terminal shows both streams)', async () => {
    const result = await runServe(
      ['--port', String(port), '--data-dir', join(root, 'pretty'), '--pools', '100', '--days', '1'],
      { LOG_FORMAT: 'pretty' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Port ${port} on 127.0.0.1 is in use (another server?): stop it or choose another --port.`,
    );
    expect(result.stdout).not.toContain('is in use');
  });

  it('refuses a bad LOG_LEVEL, LOG_FORMAT, --metrics-port or --drain-seconds with a line naming it', async () => {
    const base = ['--port', '0', '--data-dir', join(root, 'refused')];
    for (const [args, env, named] of [
      [
        [],
        { LOG_LEVEL: 'loud' },
        /^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent \(got "loud"\)$/,
      ],
      [[], { LOG_FORMAT: 'xml' }, /^LOG_FORMAT must be json or pretty \(got "xml"\)$/],
      [
        ['--metrics-port', '70000'],
        {},
        /^--metrics-port \/ METRICS_PORT must be a port number 0-65535 \(got "70000"\)$/,
      ],
      [
        ['--drain-seconds=-1'],
        {},
        /^--drain-seconds \/ DRAIN_SECONDS must be a number of seconds 0-3600 \(got "-1"\)$/,
      ],
    ] as const) {
      const result = await runServe([...base, ...args], env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toMatch(named);
    }
    expect(existsSync(join(root, 'refused'))).toBe(false);
  });

  it('stops at once with one clear line when the VyFi pool list cannot be used, before any backfill', async () => {
    const dataDir = join(root, 'data-vyfi');
    const list = join(root, 'vyfi-pools.json');
    writeFileSync(list, '{"pools": [{"validator": "not hex", "assetA": "", "assetB": ""}]}');
    const result = await runServe([
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--source',
      'chain',
      '--ogmios',
      'ws://127.0.0.1:1',
      '--vyfi-pools',
      list,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `--vyfi-pools / VYFI_POOLS: ${list}: pools[0].validator: must be a script hash (56 hex digits)`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('serves /metrics on a public port only on loopback or when told (issue 45): says how to move it', async () => {
    const base = ['--port', String(port), '--data-dir', join(root, 'metrics'), '--pools', '100', '--days', '1'];
    // Every interface (the port is taken, so it stops before any backfill, after saying it).
    const open = await runServe([...base, '--host', '0.0.0.0']);
    expect(open.code).toBe(1);
    const lines = open.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: '/metrics is not served: --host 0.0.0.0 is not loopback, so the public port does not answer it. Add --metrics-port 9464 (METRICS_PORT) to serve it on a port of its own, or --metrics-public (METRICS_PUBLIC=1) to serve it on --port.',
      }),
    );
    // Told (the flag; METRICS_PUBLIC=1 is the same setting), and on loopback: no such line.
    for (const told of [
      await runServe([...base, '--host', '0.0.0.0'], { METRICS_PUBLIC: '1' }),
      await runServe(base),
    ]) {
      expect(told.code).toBe(1);
      expect(told.stdout).toContain('is in use');
      expect(told.stdout).not.toContain('/metrics is not served');
    }
    const both = await runServe([...base, '--metrics-public', '--metrics-port', '9464']);
    expect(both.stderr.trim()).toBe(
      '--metrics-public / METRICS_PUBLIC=1 and --metrics-port / METRICS_PORT: choose one place for /metrics',
    );
    const bad = await runServe(base, { METRICS_PUBLIC: 'yes' });
    expect(bad.stderr.trim()).toBe('METRICS_PUBLIC must be 1 or 0 (got "yes")');
  }, 120_000);
});
