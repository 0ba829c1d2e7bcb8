import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { faultyEndpoint, FAULTS, type Fault } from '../../tests/support/faulty-endpoints';
import { freePort } from '../../tests/support/free-port';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The soak's secrets part (issue 29): server processes given addresses with keys in every part (host,
 * path, query, user info) of Ogmios, the gateway's upstream and PostgreSQL, each endpoint refusing,
 * never answering or answering garbage (and a host that does not resolve), watched for a while: every
 * line printed and every answer of `/healthz`, `/gw/v1/info` and the gateway's routes is searched for
 * the keys. Configuration errors and `--help` too.
 */
export interface SecretsResult {
  readonly scenarios: number;
  readonly seconds: number;
  /** Answers fetched and searched, and what the processes printed (lines, bytes). */
  readonly answers: number;
  readonly lines: number;
  readonly bytes: number;
  /** Error texts seen (a scenario where the client failed shows it was exercised, not idle). */
  readonly errorTexts: number;
  /** Each key shown anywhere, with where: what must stay empty. */
  readonly leaks: readonly string[];
  /** Scenarios that did not behave as expected (did not start, exited with the wrong code, showed no error). */
  readonly problems: readonly string[];
}

const KEYS: string[] = [];
const key = (name: string) => {
  const value = `${name}Key${KEYS.length}Zq8`;
  KEYS.push(value);
  return value;
};

interface Run {
  readonly origin: string;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

/** `serve` as a process with these arguments and environment, on a fresh data directory and a free port. */
async function serve(args: readonly string[], env: Readonly<Record<string, string>>, dataDir: string): Promise<Run> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/cli/serve.ts', '--port', String(port), '--data-dir', dataDir, ...args],
    {
      cwd: REPO,
      env: { ...process.env, NODE_ENV: 'test', TOKEN_API_KEYS: 'soak-secrets-key-0001:free', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    origin: `http://127.0.0.1:${port}`,
    exited,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Waits until `path` answers 200 or the process exits; true when it answered. */
async function ready(run: Run, path: string, timeoutMs = 120_000): Promise<boolean> {
  let gone = false;
  void run.exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!gone && Date.now() < deadline) {
    try {
      if ((await fetch(`${run.origin}${path}`, { signal: AbortSignal.timeout(2_000) })).status === 200) return true;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  return false;
}

/** An answer's text (a stream: what arrives within `ms`), or the fetch's failure. */
async function answer(url: string, ms = 3_000): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(ms) });
    const reader = response.body?.getReader();
    let text = `${response.status} `;
    const until = Date.now() + ms;
    while (reader && Date.now() < until) {
      const next = await Promise.race([reader.read(), sleep(until - Date.now()).then(() => undefined)]);
      if (!next || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
    await reader?.cancel().catch(() => undefined);
    return text;
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function secrets(options: {
  readonly observeSeconds: number;
  readonly log: (line: string) => void;
}): Promise<SecretsResult> {
  const started = performance.now();
  const leaks: string[] = [];
  const problems: string[] = [];
  let answers = 0;
  let errorTexts = 0;
  let lines = 0;
  let bytes = 0;
  let scenarios = 0;
  const root = mkdtempSync(join(tmpdir(), 'soak-secrets-'));
  const search = (where: string, text: string) => {
    const lower = text.toLowerCase();
    for (const secret of KEYS) if (lower.includes(secret.toLowerCase())) leaks.push(`${secret} in ${where}`);
  };
  const finish = (scenario: string, output: string) => {
    scenarios++;
    lines += output.split('\n').length;
    bytes += output.length;
    search(`${scenario}: output`, output);
  };

  /** A server that stays up: watched for observeSeconds, its answers searched each round. */
  const watch = async (
    scenario: string,
    args: readonly string[],
    env: Readonly<Record<string, string>>,
    readyPath: string,
    paths: readonly string[],
    expectError: (answers: string[], output: string) => boolean,
  ) => {
    const dir = mkdtempSync(join(root, 'data-'));
    const run = await serve(args, env, dir);
    try {
      if (!(await ready(run, readyPath))) {
        problems.push(`${scenario}: did not start: ${run.output().slice(-400)}`);
        return;
      }
      const seen: string[] = [];
      const until = Date.now() + options.observeSeconds * 1000;
      while (Date.now() < until) {
        for (const path of paths) {
          const text = await answer(`${run.origin}${path}`);
          answers++;
          seen.push(text);
          search(`${scenario}: ${path}`, text);
        }
        await sleep(250);
      }
      if (expectError(seen, run.output())) errorTexts++;
      else
        problems.push(
          `${scenario}: no failure surfaced in ${options.observeSeconds} s (the endpoint was not exercised)`,
        );
    } finally {
      await run.stop();
      finish(scenario, run.output());
    }
  };

  /** A server that must refuse to start: its exit code and everything it printed. */
  const refused = async (
    scenario: string,
    args: readonly string[],
    env: Readonly<Record<string, string>>,
    code: number,
    says: RegExp,
  ) => {
    const run = await serve(args, env, mkdtempSync(join(root, 'data-')));
    const timer = setTimeout(() => void run.stop(), 60_000);
    const exit = await run.exited;
    clearTimeout(timer);
    if (exit !== code) problems.push(`${scenario}: exit code ${exit}, expected ${code}`);
    if (!says.test(run.output())) problems.push(`${scenario}: did not say ${says} (${run.output().slice(-300)})`);
    else errorTexts++;
    finish(scenario, run.output());
  };

  const pool = 'ab'.repeat(28);
  try {
    for (const fault of [...FAULTS, 'unresolvable' as const]) {
      const endpoint = fault === 'unresolvable' ? undefined : await faultyEndpoint(fault as Fault);
      const host = async (name: string) =>
        endpoint ? `127.0.0.1:${endpoint.port}` : `${key(`${name}Host`)}.nowhere.invalid:${await freePort()}`;
      try {
        const silent = fault === 'timeout';
        options.log(
          `secrets: endpoints ${fault === 'unresolvable' ? 'whose host does not resolve' : `answering ${fault}`}`,
        );

        const ogmios = `ws://${await host('og')}/${key('ogPath')}?dmtr-api-key=${key('ogQuery')}`;
        await watch(
          `Ogmios ${fault}`,
          ['--source', 'chain', '--ogmios', ogmios],
          {},
          '/healthz',
          ['/healthz', '/gw/v1/info'],
          (seen, output) =>
            // A node that accepts and never answers holds the first connection attempt: nothing fails, nothing to show.
            silent
              ? seen.some((text) => text.includes('"state":"connecting"'))
              : seen.some((text) => /"lastError":"[^"]+"/.test(text)) &&
                /chain: connection to ws:\/\/<redacted>/.test(output),
        );

        const upstream = `http://${await host('up')}/${key('upPath')}`;
        await watch(
          `upstream ${fault}`,
          [],
          {
            UPSTREAM_URL: upstream,
            UPSTREAM_API_KEY: 'upstream-key-000001',
            GATEWAY_UPSTREAM_TIMEOUT_MS: '1000',
            GATEWAY_UPSTREAM_SILENCE_SECONDS: '2',
          },
          '/gw/v1/info',
          [
            '/gw/v1/info',
            '/gw/v1/groups',
            '/gw/v1/symbol_info?group=Aggregate',
            `/gw/v1/tokens/current?pool=${pool}`,
            '/gw/v1/liquidity?group=Minswap',
            `/gw/v1/live?pools=${pool}`,
          ],
          (seen) => fault === 'garbage' || seen.some((text) => /Upstream (unavailable|did not answer)/.test(text)),
        );

        const database = `postgres://${key('dbUser')}:${key('dbPass')}@${await host('db')}/${key('dbName')}?application_name=${key('dbQuery')}`;
        await refused(
          `PostgreSQL ${fault}`,
          ['--pools', '40', '--days', '0.2'],
          { DATABASE_URL: database },
          1,
          /ECONNREFUSED|ENOTFOUND|timeout|terminated|[Cc]onnection/,
        );
      } finally {
        await endpoint?.close();
      }
    }

    options.log('secrets: configuration errors and --help');
    const everything = {
      OGMIOS_URL: `wss://${key('cfgOgHost')}.example.com/${key('cfgOgPath')}?k=${key('cfgOgQuery')}`,
      UPSTREAM_URL: `https://${key('cfgUpHost')}.example.com/${key('cfgUpPath')}`,
      DATABASE_URL: `postgres://${key('cfgDbUser')}:${key('cfgDbPass')}@${key('cfgDbHost')}.example.com/${key('cfgDbName')}`,
      REDIS_URL: `redis://:${key('cfgRdPass')}@${key('cfgRdHost')}.example.com:6379`,
    };
    await refused('--help', ['--help'], everything, 0, /Usage: npm run serve/);
    await refused(
      'an Ogmios address that is no WebSocket',
      ['--source', 'chain', '--ogmios', `https://${key('badOgHost')}.example.com/${key('badOgPath')}`],
      {},
      1,
      /ogmios must be a WebSocket address/,
    );
    await refused(
      'an Ogmios address with a password',
      ['--source', 'chain', `--ogmios=wss://:${key('badOgPassword')}@host.example.com/`],
      {},
      1,
      /ogmios must be a WebSocket address/,
    );
    await refused(
      'an unknown flag beside a keyed address',
      ['--ogmios', `wss://${key('flagOgHost')}.example.com`, '--bogus'],
      {},
      2,
      /Unknown option/,
    );
    await refused(
      'an upstream with credentials',
      [],
      {
        UPSTREAM_URL: `https://u:${key('badUpPassword')}@${key('badUpHost')}.example.com`,
        UPSTREAM_API_KEY: 'k-0000001',
      },
      1,
      /UPSTREAM_URL must be an origin/,
    );
    await refused(
      'an upstream that is no URL',
      [],
      { UPSTREAM_URL: `${key('badUpText')} and more`, UPSTREAM_API_KEY: 'k-0000001' },
      1,
      /UPSTREAM_URL must be an http\(s\) URL/,
    );
    await refused(
      'a database of another kind',
      [],
      { DATABASE_URL: `mysql://${key('badDbUser')}:${key('badDbPass')}@host/${key('badDbName')}` },
      1,
      /DATABASE_URL must be a postgres/,
    );
    await refused(
      'a cluster role with a keyed database and Redis of another scheme',
      ['--role', 'api'],
      { DATABASE_URL: everything.DATABASE_URL, REDIS_URL: `http://:${key('badRdPass')}@cache:6379` },
      1,
      /REDIS_URL must be a redis/,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    scenarios,
    seconds: Math.round((performance.now() - started) / 1000),
    answers,
    lines,
    bytes,
    errorTexts,
    leaks,
    problems,
  };
}
