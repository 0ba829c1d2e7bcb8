import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../tests/support/free-port';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The soak's own keys: one with a budget no fuzz or load run can spend, one on the spec's free plan. */
export const SOAK_KEY = 'soak-key-0123456789abcdef';
export const FREE_KEY = 'free-key-0123456789abcdef';
const PLANS = JSON.stringify({
  soak: { requestsPerMinute: 100_000_000, poolsPerStream: 10_000, streamsPerKey: 1_000 },
});

export interface SoakServerOptions {
  readonly dataDir: string;
  readonly pools?: number;
  readonly days?: number;
  readonly extraArgs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * One server process (`src/server/cli/serve.ts`, the code `npm run serve` runs) on a free port over a
 * data directory that outlives it: the soak kills, stops and restarts it on the same directory.
 */
export class SoakServer {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private log = '';
  origin = '';
  port = 0;

  constructor(private readonly options: SoakServerOptions) {}

  /** Everything the current process printed. */
  output(): string {
    return this.log;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and resolves once /healthz answers 200 (rejects if it exits first or takes > `timeoutMs`). */
  async start(timeoutMs = 120_000, env: Readonly<Record<string, string>> = {}): Promise<void> {
    this.port = this.port || (await freePort());
    this.origin = `http://127.0.0.1:${this.port}`;
    this.log = '';
    const args = [
      '--import',
      'tsx',
      'src/server/cli/serve.ts',
      '--port',
      String(this.port),
      '--data-dir',
      this.options.dataDir,
      '--pools',
      String(this.options.pools ?? 200),
      '--days',
      String(this.options.days ?? 2),
      '--test-controls',
      ...(this.options.extraArgs ?? []),
    ];
    const child = spawn(process.execPath, args, {
      cwd: REPO,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TOKEN_API_PLANS: PLANS,
        TOKEN_API_KEYS: `${SOAK_KEY}:soak,${FREE_KEY}:free`,
        ...this.options.env,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    let gone = false;
    this.exited = new Promise((resolve) => child.once('exit', (code) => ((gone = true), resolve(code))));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (gone) throw new Error(`the server exited during start:\n${this.log}`);
      if (Date.now() > deadline)
        throw new Error(`the server did not answer /healthz within ${timeoutMs} ms:\n${this.log}`);
      try {
        if ((await fetch(`${this.origin}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends `signal` and waits for the exit; returns the exit code (null when killed by a signal). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Makes the embedded market trade now (test controls). */
  async block(): Promise<number> {
    const response = await fetch(`${this.origin}/__test__/block`, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { trades?: number };
    return body.trades ?? 0;
  }

  /** Headers of the soak key. */
  auth(key = SOAK_KEY): Record<string, string> {
    return { Authorization: `Bearer ${key}` };
  }
}
