import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_CHANNEL, type CommitMessage } from '../../../src/service/cluster/bus';
import { openReaderStore, openWriterStore } from '../../../src/service/store/open';
import { startPostgres, startRedis, type TestPostgres, type TestRedis } from '../../support/engines';
import { writeRegistryFixtures } from '../../support/registry-fixtures';

/**
 * The store CLIs on a cluster's PostgreSQL (DATABASE_URL, as the server reads it), run as the user runs
 * them: keys are stored there, imports and rebuilds are the database's single writer (refused while
 * another holds it), and with REDIS_URL the API nodes are told to reload.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
let pg: TestPostgres;
let redis: TestRedis;
let root: string;

function cli(
  name: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const baseEnv = { ...process.env };
  delete baseEnv.DATA_DIR;
  delete baseEnv.DATABASE_URL;
  delete baseEnv.REDIS_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `src/service/cli/${name}.ts`, ...args],
      { cwd: REPO, env: { ...baseEnv, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

function tradesFile(): string {
  const quote = `${'7'.repeat(56)}515459`;
  const day = Math.floor(1_718_000_000 / 86_400) * 86_400;
  const lines = [
    { kind: 'token', unit: quote, ticker: 'QTY', decimals: 6 },
    { kind: 'pool', pool_id: 'ab12', group: 'Minswap', base: '', quote },
    {
      id: 't1',
      block_time: day + 5,
      pool_id: 'ab12',
      previous_price: 2,
      current_price: 2.1,
      previous_tvl: 100,
      current_tvl: 102,
      volume: 1,
    },
    {
      id: 't2',
      block_time: day + 65,
      pool_id: 'ab12',
      previous_price: 2.1,
      current_price: 2,
      previous_tvl: 102,
      current_tvl: 100,
      volume: 2,
    },
  ];
  const file = join(root, 'trades.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  root = mkdtempSync(join(tmpdir(), 'cli-pg-'));
}, 120_000);
afterAll(async () => {
  await Promise.all([pg?.destroy(), redis?.destroy()]);
  rmSync(root, { recursive: true, force: true });
});

describe('store CLIs with DATABASE_URL', () => {
  it('keeps API keys in the PostgreSQL database', async () => {
    const env = { DATABASE_URL: await pg.createDatabase('cli_keys') };
    const created = await cli('keys', ['create', '--plan', 'pro', '--label', 'cluster bot'], env);
    expect(created.code).toBe(0);
    const key = /cdx_[A-Za-z0-9_-]{43}/.exec(created.stdout)?.[0] ?? '';
    const store = await openReaderStore(env.DATABASE_URL);
    try {
      expect((await store.keys.list()).map((k) => [k.prefix, k.plan, k.label])).toEqual([
        [key.slice(0, 12), 'pro', 'cluster bot'],
      ]);
      expect((await cli('keys', ['list'], env)).stdout).toContain(key.slice(0, 12));
      expect((await cli('keys', ['revoke', key.slice(0, 12)], env)).code).toBe(0);
      expect((await store.keys.list())[0]?.revokedAt).not.toBeNull();
    } finally {
      await store.close();
    }
    const both = await cli('keys', ['list', '--data-dir', root], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('DATABASE_URL is set');
  });

  it('imports trades and registry tokens into it, rebuilds its bars, and tells the API nodes to reload', async () => {
    const env = { DATABASE_URL: await pg.createDatabase('cli_import'), REDIS_URL: redis.url };
    const listener = new Redis(redis.url);
    const heard: CommitMessage[] = [];
    await listener.subscribe(COMMIT_CHANNEL);
    listener.on('message', (_channel: string, text: string) => heard.push(JSON.parse(text) as CommitMessage));
    try {
      const imported = await cli('import-trades', [tradesFile()], env);
      expect(imported.stderr).toBe('');
      expect(imported.stdout).toContain('2 trade(s) ingested');
      const registry = join(root, 'registry');
      writeRegistryFixtures(registry);
      expect((await cli('import-registry', [registry], env)).stdout).toContain('5 token(s) added');
      const store = await openReaderStore(env.DATABASE_URL);
      try {
        expect((await store.trades.list()).map((t) => t.eventId)).toEqual(['t1', 't2']);
        // ADA, the imported token and the registry's five.
        expect((await store.market.load()).tokens.length).toBe(7);
        const bars = await store.bars.all();
        const rebuilt = await cli('rebuild-bars', [], env);
        expect(rebuilt.stdout).toMatch(/Rebuilt bars from 2 trade\(s\)/);
        expect(await store.bars.all()).toEqual(bars);
      } finally {
        await store.close();
      }
      // Each run is a writer of its own that asks the nodes to reload (not live events: imports are history).
      expect(new Set(heard.map((m) => m.writer)).size).toBe(3);
      expect(heard.every((m) => m.resync && m.records.length === 0)).toBe(true);
    } finally {
      listener.disconnect();
    }
  });

  it('refuses an import, clearly, while another writer (an ingest node, a server) holds the database', async () => {
    const url = await pg.createDatabase('cli_refused');
    const writer = await openWriterStore(url, 'the ingest node');
    try {
      const refused = await cli('import-trades', [tradesFile()], { DATABASE_URL: url });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([
        `error: DATABASE_URL's database (postgres://<redacted>:${pg.port}) is in use by another writer (an ingest node, a server or an importer). Stop it first; import:trades needs to be the only writer.`,
      ]);
      expect(await writer.trades.count()).toBe(0);
    } finally {
      await writer.close();
    }
    const rebuild = await cli('rebuild-bars', [], { DATABASE_URL: await pg.createDatabase('cli_empty') });
    expect(rebuild.code).toBe(1);
    expect(rebuild.stderr).toMatch(
      /^error: no market in DATABASE_URL's database \(postgres:\/\/<redacted>:\d+\): check DATABASE_URL/,
    );
    expect(rebuild.stderr).not.toContain('cli_empty');
  });
});
