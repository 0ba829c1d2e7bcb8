import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';

/**
 * A real Prometheus for tests (Debian's `prometheus` package; `.ci/run` installs it): its own config
 * and data directory in a temp directory, on a random port, scraping the targets the test gives every
 * second and evaluating its rules every second. The package's system service is never used.
 */
export const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
export const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The alert rules of docs/operations.md: its YAML block that starts with `groups:`. */
export function documentedRules(): string {
  const doc = readFileSync(join(REPO, 'docs/operations.md'), 'utf8');
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((text) => text.startsWith('groups:'));
  if (!block) throw new Error('docs/operations.md has no ```yaml block of alert rules (starting with groups:)');
  return block;
}

/** `promtool check rules` on a rules file: its exit code and what it said. */
export function checkRules(file: string): { status: number | null; output: string } {
  const result = spawnSync(PROMTOOL, ['check', 'rules', file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface TestPrometheus {
  readonly origin: string;
  /** An instant query's result (`/api/v1/query`): each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** Any Prometheus API path's `data` (`/api/v1/targets`, `/api/v1/rules`, ...). */
  api<T>(path: string): Promise<T>;
  output(): string;
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `jobs` (job name → `host:port` targets, `/metrics` unless given) with `rules` loaded. */
export async function startPrometheus(
  jobs: Readonly<Record<string, { readonly targets: readonly string[] }>>,
  rules: string,
): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  writeFileSync(join(dir, 'rules.yml'), rules);
  const scrapes = Object.entries(jobs)
    .map(
      ([job, { targets }]) =>
        `  - job_name: ${job}\n    static_configs:\n      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    )
    .join('\n');
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nrule_files:\n  - rules.yml\nscrape_configs:\n${scrapes}\n`,
  );
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited (${child.exitCode}):\n${output}`);
    }
    const ready = await fetch(`${origin}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`prometheus was not ready within 30 s:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  const api = async <T>(path: string): Promise<T> => {
    const answer = (await (await fetch(`${origin}${path}`)).json()) as { status: string; data: T; error?: string };
    if (answer.status !== 'success') throw new Error(`prometheus ${path}: ${answer.error ?? answer.status}`);
    return answer.data;
  };
  return {
    origin,
    api,
    query: async (expr) => {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    output: () => output,
    stop,
  };
}
