import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { vi } from 'vitest';

// From the string (not a URL object): under jsdom (app tests) the global URL is jsdom's, which Node's fileURLToPath refuses.
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  readonly origin: string;
  /** The server's process id (the node process itself: /proc/<pid> tells its memory). */
  readonly pid: number;
  /** What the process printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Ends the process (its whole group, SIGKILL) and removes its data directory unless the caller gave it. */
  stop(): Promise<void>;
}

/**
 * `npm run serve` as a real child process (`node --import tsx src/server/cli/serve.ts`) on a free port
 * and a temp data directory, with extra flags and environment; resolves once `readyPath` answers 200.
 */
export async function startServerProcess(
  options: {
    args?: readonly string[];
    env?: Readonly<Record<string, string>>;
    readyPath?: string;
    /** Use (and keep) this data directory. */ dataDir?: string;
  } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'server-process-'));
  const origin = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', ...options.env };
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/server/cli/serve.ts',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      ...(options.args ?? []),
    ],
    {
      cwd: REPO,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await gone;
    }
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await vi.waitUntil(
      async () => {
        if (exited) throw new Error(`the server exited during start:\n${output}`);
        try {
          return (await fetch(`${origin}${options.readyPath ?? '/healthz'}`)).status === 200;
        } catch {
          return false;
        }
      },
      { timeout: 60_000, interval: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, pid: child.pid ?? 0, output: () => output, stop };
}
