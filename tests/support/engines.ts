import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * Real PostgreSQL and Redis servers for tests (Debian's packages; `.ci/run` installs them): each on a
 * random port in a temp directory, started and stopped by the test. Nothing here fakes an engine.
 */

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

/** Resolves once something accepts TCP connections on the port (or rejects after `timeoutMs`). */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}) before accepting connections:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until)
      throw new Error(`nothing accepted connections on port ${port} within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function collect(child: ChildProcess): () => string {
  let text = '';
  const add = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => text;
}

/** Synchronous stops of the engines still running, so a test process that ends early leaves none behind. */
const running = new Set<() => void>();
process.once('exit', () => {
  for (const stop of running) stop();
});

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb and postgres refuse root). */
function pgCommand(binary: string, args: readonly string[]): [string, string[]] {
  const path = join(PG_BIN, binary);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]];
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** A fresh, empty database of this server, for one test file or one test. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown); `start` brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL 15: initdb in a temp directory (owned by `postgres` when running as
 * root), then the server in the foreground on a random port, with fsync off (a test server: the
 * crash tests kill our processes, never PostgreSQL).
 */
export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim());
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = pgCommand('initdb', [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale',
    'C',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const [cmd, args] = pgCommand('postgres', [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ]);
    const started = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    const output = collect(started);
    await waitForPort(port, started, 30_000, output);
    // The port opens before the server takes queries ("the database system is starting up").
    const until = Date.now() + 30_000;
    while (spawnSync(join(PG_BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']).status !== 0) {
      if (started.exitCode !== null || Date.now() > until)
        throw new Error(`PostgreSQL did not become ready:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // pg_ctl's fast shutdown signals the postmaster itself (runuser, our child, passes no signals on):
  // clients are disconnected, the data stays consistent.
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    const [cmd, args] = pgCommand('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    const stopped = spawnSync(cmd, args, { encoding: 'utf8' });
    if (stopped.status !== 0) await stopChild(running, 'SIGKILL');
    await exited;
  };
  const stopAtExit = () => {
    const [cmd, args] = pgCommand('pg_ctl', ['stop', '-D', data, '-m', 'immediate']);
    spawnSync(cmd, args);
  };
  running.add(stopAtExit);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase: async (name) => {
      const [cmd, args] = pgCommand('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      const made = spawnSync(cmd, args, { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`createdb ${name} failed: ${made.stderr}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    destroy: async () => {
      await stop();
      running.delete(stopAtExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (its data is not kept); `start` brings an empty one back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** Starts a throwaway Redis 7 in the foreground on a random port, persisting nothing. */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = started;
    await waitForPort(port, started, 15_000, collect(started));
  };
  const stop = async () => {
    if (child) await stopChild(child, 'SIGTERM');
  };
  const stopAtExit = () => child?.kill('SIGKILL');
  running.add(stopAtExit);
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    destroy: async () => {
      await stop();
      running.delete(stopAtExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
