import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../tests/support/free-port';
import { expect } from '@playwright/test';

/** The repository (the server runs from here: dist/, node_modules). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Process groups started here and still running: ended if the test worker exits without cleaning up. */
const running = new Set<number>();
process.once('exit', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

export interface ServerProcessOptions {
  /** Extra CLI flags after the market ones. */
  readonly args?: readonly string[];
  /** Extra environment (e.g. GATEWAY_RETRY_MS). */
  readonly env?: Readonly<Record<string, string>>;
  /** Market flags of a new data directory. */
  readonly market?: readonly string[];
  /** Server output goes here (attach it to the test on failure). */
  readonly logFile: string;
  /** `--test-controls` (default on; a gateway in front of UPSTREAM_URL has no market to control). */
  readonly testControls?: boolean;
  /** Answers 200 once the server is ready (default /healthz; a gateway alone: /gw/v1/info). */
  readonly readyPath?: string;
}

/**
 * A server the test controls, as `npm run serve` runs it (`node --import tsx src/server/cli/serve.ts`)
 * on its own port and data directory, in its own process group: `stop()` ends the group (the server
 * and anything it started), `start()` brings it back on the same port and data directory.
 */
export class ServerProcess {
  readonly dataDir: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private log: WriteStream;
  starts = 0;

  private constructor(
    readonly port: number,
    private readonly options: ServerProcessOptions,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'cdx-e2e-'));
    this.log = createWriteStream(options.logFile, { flags: 'a' });
  }

  static async create(options: ServerProcessOptions): Promise<ServerProcess> {
    return new ServerProcess(await freePort(), options);
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the server and waits until it is ready (/healthz). */
  async start(): Promise<void> {
    if (this.child) throw new Error('already running');
    const market = this.options.market ?? ['--pools', '300', '--days', '2', '--seed', '7'];
    const args = [
      '--import',
      'tsx',
      'src/server/cli/serve.ts',
      '--port',
      String(this.port),
      '--data-dir',
      this.dataDir,
      ...market,
      ...(this.options.testControls === false ? [] : ['--test-controls']),
      ...(this.options.args ?? []),
    ];
    this.starts++;
    this.log.write(`\n--- start #${this.starts}: node ${args.join(' ')}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.options.env };
    // Test controls are refused in production: this server is never one.
    if (env.NODE_ENV === 'production') delete env.NODE_ENV;
    const child = spawn(process.execPath, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        this.log.write(`--- exited (${signal ?? code})\n`);
        if (pid !== undefined) running.delete(pid);
        if (this.child === child) this.child = undefined;
        done();
      }),
    );
    await expect
      .poll(
        async () => {
          if (this.child !== child) throw new Error(`the server exited during start (see ${this.options.logFile})`);
          try {
            return (await fetch(`${this.origin}${this.options.readyPath ?? '/healthz'}`)).status;
          } catch {
            return 0;
          }
        },
        { message: `server on ${this.origin} is healthy`, timeout: 60_000, intervals: [100, 100, 200] },
      )
      .toBe(200);
  }

  /** Ends the server's process group (`SIGKILL`: a crash; `SIGTERM`: a clean stop) and waits for it. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
    await this.exited;
  }

  async restart(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  /** Stops the server and removes its data directory. */
  async dispose(): Promise<void> {
    await this.stop();
    await new Promise<void>((done) => this.log.end(done));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
