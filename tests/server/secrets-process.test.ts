import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/free-port';
import { startServerProcess } from '../support/server-process';

/**
 * `npm run serve` as a process, with keys in the addresses it is given: what it prints (stdout and
 * stderr), `/healthz` and `/gw/v1/info` never show them, on a normal start, with `--help`, and when
 * the start fails (a bad setting, a database that refuses).
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SECRETS = [
  'dmtrSECRET',
  'SECRET2',
  'upHostSECRET',
  'upPathSECRET',
  'dbUserSECRET',
  'dbPassSECRET',
  'dbNameSECRET',
  'rdPassSECRET',
  'cfgSECRET',
];
const root = mkdtempSync(join(tmpdir(), 'secrets-process-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function expectNoSecret(what: string, text: string): void {
  for (const secret of SECRETS)
    expect(text.toLowerCase(), `${what} shows ${secret}`).not.toContain(secret.toLowerCase());
}

/**
 * How long a server process may take to start and answer, or to refuse and exit: tsx compiles the
 * server from source in each child (2-5 s on two idle cores), and on a loaded machine several times
 * that (one run in ten failed with 20 s while other work ran beside the suite).
 */
const PROCESS_MS = 90_000;

/** `serve` with these arguments and environment until it exits (within PROCESS_MS). */
function serveOnce(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/server/cli/serve.ts',
        '--data-dir',
        join(root, `data-${Math.random().toString(36).slice(2)}`),
        ...args,
      ],
      { cwd: REPO, timeout: PROCESS_MS, env: { ...process.env, NODE_ENV: 'test', ...env } },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          output: `${stdout}\n${stderr}`,
        }),
    );
  });
}

describe('serve, with keys in its addresses', { timeout: PROCESS_MS + 30_000 }, () => {
  it("following an Ogmios whose address carries keys in path and query (issue 29's case): /healthz and the log show neither", async () => {
    const server = await startServerProcess({
      args: ['--source', 'chain', '--ogmios', 'ws://127.0.0.1:1/dmtrSECRET?dmtr-api-key=SECRET2'],
      readyPath: '/healthz',
    });
    try {
      const health = async () => (await fetch(`${server.origin}/healthz`)).text();
      await vi.waitUntil(
        async () => (JSON.parse(await health()) as { chain: { reconnects: number } }).chain.reconnects >= 2,
        { timeout: PROCESS_MS, interval: 50 },
      );
      const body = await health();
      expect(JSON.parse(body).chain.lastError).toMatch(
        /^request to http:\/\/<redacted>:1\/<redacted>\/health failed, reason: connect ECONNREFUSED <redacted>:1$/,
      );
      expectNoSecret('/healthz', body);
      expect(server.output()).toMatch(/chain: connection to ws:\/\/<redacted>:1 lost \(/);
      expectNoSecret('the output', server.output());
    } finally {
      await server.stop();
    }
  });

  it('in front of an upstream whose host and path carry keys: /gw/v1/info, error answers and the log show neither', async () => {
    const server = await startServerProcess({
      env: {
        UPSTREAM_URL: 'http://upHostSECRET.nowhere.invalid/upPathSECRET',
        UPSTREAM_API_KEY: 'upstream-key-000001',
        GATEWAY_UPSTREAM_TIMEOUT_MS: '2000',
      },
      readyPath: '/gw/v1/info',
    });
    try {
      const info = await (await fetch(`${server.origin}/gw/v1/info`)).text();
      expect(JSON.parse(info).upstream).toBe('http://<redacted>');
      const groups = await fetch(`${server.origin}/gw/v1/groups`);
      expect(groups.status).toBe(502);
      const answer = await groups.text();
      expect(answer).toContain('Upstream unavailable: getaddrinfo ENOTFOUND <redacted>');
      for (const text of [info, answer, server.output()]) expectNoSecret('an answer or the output', text);
    } finally {
      await server.stop();
    }
  });

  it('prints --help without any configured address', async () => {
    const { code, output } = await serveOnce(['--help'], {
      OGMIOS_URL: 'ws://127.0.0.1:1/dmtrSECRET',
      UPSTREAM_URL: 'https://upHostSECRET.example.com',
      DATABASE_URL: 'postgres://dbUserSECRET:dbPassSECRET@127.0.0.1:1/dbNameSECRET',
      REDIS_URL: 'redis://:rdPassSECRET@127.0.0.1:1',
    });
    expect(code).toBe(0);
    expect(output).toContain('Usage: npm run serve');
    expectNoSecret('--help', output);
  });

  it.each([
    [
      'a node address that is no WebSocket',
      ['--source', 'chain', '--ogmios', 'http://cfgSECRET.example.com/dmtrSECRET'],
      {},
      1,
      /ogmios must be a WebSocket address .*\(got "http:\/\/<redacted>"\)/,
    ],
    [
      'a node address with a password',
      ['--source', 'chain', '--ogmios=ws://:cfgSECRET@host:1337/dmtrSECRET'],
      {},
      1,
      /got "ws:\/\/<redacted>:1337"/,
    ],
    [
      'an unknown flag beside a keyed address',
      ['--ogmios', 'ws://host/dmtrSECRET', '--bogus'],
      {},
      2,
      /Unknown option '--bogus'/,
    ],
    [
      'an upstream that is no URL',
      [],
      { UPSTREAM_URL: 'cfgSECRET upPathSECRET', UPSTREAM_API_KEY: 'upstream-key-000001' },
      1,
      /UPSTREAM_URL must be an http\(s\) URL .*\(got "<redacted>"\)/,
    ],
    [
      'a database of another kind',
      [],
      { DATABASE_URL: 'mysql://dbUserSECRET:dbPassSECRET@host/dbNameSECRET' },
      1,
      /DATABASE_URL must be a postgres:\/\/ URL \(got <redacted>\)/,
    ],
    [
      'a Redis address of another scheme',
      [],
      { REDIS_URL: 'http://:rdPassSECRET@cache:6379' },
      1,
      /REDIS_URL must be a redis:\/\/ URL/,
    ],
  ])('refuses %s, and its message repeats no key', async (_what, args, env, exitCode, message) => {
    const { code, output } = await serveOnce(args, env);
    expect(code).toBe(exitCode);
    expect(output).toMatch(message);
    expectNoSecret('the refusal', output);
  });

  it('stops when the database refuses, saying so without a part of its address', async () => {
    const port = await freePort();
    const { code, output } = await serveOnce(['--pools', '40', '--days', '0.2'], {
      DATABASE_URL: `postgres://dbUserSECRET:dbPassSECRET@127.0.0.1:${port}/dbNameSECRET`,
    });
    expect(code).toBe(1);
    expect(output).toContain(`connect ECONNREFUSED <redacted>:${port}`);
    expectNoSecret('the output', output);
  });
});
