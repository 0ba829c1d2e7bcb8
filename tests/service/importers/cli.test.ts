import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMarket } from '../../../src/service/open-market';
import { lockDataDir } from '../../../src/service/store/lock';
import { writeRegistryFixtures } from '../../support/registry-fixtures';

/** The store CLIs run as the user runs them: child processes through tsx, checked by exit code and output. */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const baseEnv = { ...process.env };
  delete baseEnv.DATA_DIR;
  delete baseEnv.TOKEN_API_PLANS;
  delete baseEnv.DEBUG;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `src/service/cli/${name}.ts`, ...args],
      { cwd: REPO, env: { ...baseEnv, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** An error the CLI expected: exactly one line on stderr, no stack trace. */
function expectOneLineError(result: CliResult, code: number, text: string | RegExp): void {
  expect(result.code).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

let root: string;
let dataDir: string;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'store-cli-'));
  dataDir = join(root, 'data');
});

afterEach(async () => {
  rmSync(root, { recursive: true, force: true });
});

describe('keys CLI', () => {
  it('creates a key shown once, lists it and revokes it by prefix', async () => {
    const created = await cli('keys', ['create', '--plan', 'pro', '--label', 'ci bot', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    const key = /cdx_[A-Za-z0-9_-]{43}/.exec(created.stdout)?.[0];
    expect(key).toBeDefined();
    expect(created.stdout).toContain('plan pro');

    const listed = await cli('keys', ['list', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    const [header, row] = listed.stdout.trim().split('\n');
    expect(header).toMatch(/^id\s+prefix\s+plan\s+label\s+created\s+revoked$/);
    const prefix = key?.slice(0, 12) ?? '';
    expect(row).toMatch(
      new RegExp(`^1\\s+${prefix.replace(/[-]/g, '\\-')}\\s+pro\\s+ci bot\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+-$`),
    );
    // The key itself is never shown again.
    expect(listed.stdout).not.toContain(key);

    const revoked = await cli('keys', ['revoke', prefix, '--data-dir', dataDir]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('Revoked 1 key');
    const after = await cli('keys', ['list', '--data-dir', dataDir]);
    expect(after.stdout.trim().split('\n')[1]).toMatch(/\d{4}-\d\d-\d\dT\S+Z$/);

    expectOneLineError(
      await cli('keys', ['revoke', '1', '--data-dir', dataDir]),
      1,
      'no active key with id or prefix "1"',
    );
  });

  it('refuses an unknown plan, naming the known ones, and accepts a plan from TOKEN_API_PLANS', async () => {
    expectOneLineError(
      await cli('keys', ['create', '--plan', 'gold', '--data-dir', dataDir]),
      1,
      'unknown plan "gold" (known plans: free, pro, enterprise)',
    );
    const plans = JSON.stringify({ gold: { requestsPerMinute: 100, poolsPerStream: 5 } });
    const created = await cli('keys', ['create', '--plan', 'gold'], { TOKEN_API_PLANS: plans, DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('plan gold');
  });

  it('prints usage on --help (exit 0) and on bad usage (exit 2)', async () => {
    const help = await cli('keys', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('npm run keys -- create');

    const none = await cli('keys', ['--data-dir', dataDir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error: missing command');
    expect(none.stderr).toContain('Usage:');

    const unknownOption = await cli('keys', ['list', '--colour', '--data-dir', dataDir]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("Unknown option '--colour'");

    expect((await cli('keys', ['revoke', '--data-dir', dataDir])).code).toBe(2);
    expect((await cli('keys', ['fly', '--data-dir', dataDir])).code).toBe(2);
  });
});

describe('every store CLI', () => {
  it.each([
    ['keys', 'Usage:\n  npm run keys -- create'],
    ['import-registry', 'Usage: npm run import:registry -- <dir>'],
    ['import-trades', 'Usage: npm run import:trades -- <file.jsonl>'],
    ['rebuild-bars', 'Usage: npm run rebuild-bars'],
  ])(
    '%s: prints its help with the exit codes on --help (exit 0), and refuses a bad option with them (exit 2)',
    async (name, usage) => {
      const help = await cli(name, ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout.startsWith(usage)).toBe(true);
      expect(help.stdout).toContain('Exit codes:\n  0  done\n  1  failed');
      const bad = await cli(name, ['--nope', '--data-dir', dataDir]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^error: Unknown option '--nope'/);
      expect(bad.stderr).toContain(usage);
      expect(bad.stderr).toContain('Exit codes:');
      expect(existsSync(dataDir)).toBe(false);
    },
  );
});

describe('import-registry CLI', () => {
  it('prints a summary with the skipped files and rejected logos', async () => {
    const registry = join(root, 'registry');
    writeRegistryFixtures(registry);
    const result = await cli('import-registry', [registry, '--data-dir', dataDir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Read 8 mapping file(s): 5 token(s) added, 0 updated, 0 unchanged, 2 logo(s) stored, 3 file(s) skipped.',
    );
    expect(result.stdout).toMatch(/Skipped files \(3\):\n {2}bad-subject\.json: subject must be/);
    expect(result.stdout).toContain('broken.json: not valid JSON');
    expect(result.stdout).toMatch(/Logos not imported \(1\):\n {2}c+4a504754\.json: JPG: logo is not a PNG/);

    const again = await cli('import-registry', [registry, '--data-dir', dataDir]);
    expect(again.stdout).toContain('0 token(s) added, 0 updated, 5 unchanged, 0 logo(s) stored');
  });

  it('fails with one line for a missing directory, and with usage without one', async () => {
    expectOneLineError(await cli('import-registry', [join(root, 'nope'), '--data-dir', dataDir]), 1, 'does not exist');
    const usage = await cli('import-registry', ['--data-dir', dataDir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run import:registry');
  });
});

describe('data directory lock', () => {
  it('makes the store CLIs refuse a directory another live process holds, but not the keys CLI', async () => {
    const registry = join(root, 'registry');
    writeRegistryFixtures(registry);
    const trades = join(root, 'trades.jsonl');
    writeFileSync(trades, '\n');
    const release = lockDataDir(dataDir, 'service');
    try {
      const inUse = `${dataDir} is in use by process ${process.pid} (service)`;
      expectOneLineError(await cli('import-registry', [registry, '--data-dir', dataDir]), 1, inUse);
      expectOneLineError(await cli('import-trades', [trades, '--data-dir', dataDir]), 1, inUse);
      expectOneLineError(await cli('rebuild-bars', ['--data-dir', dataDir]), 1, inUse);
      const keys = await cli('keys', ['create', '--data-dir', dataDir]);
      expect(keys.code).toBe(0);
    } finally {
      release();
    }
  });
});

describe('import-trades and rebuild-bars CLIs', () => {
  it('imports a file, reports its bad lines, and rebuilds the same bars', async () => {
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
      '{"id": ',
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
    writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));

    const imported = await cli('import-trades', [file, '--data-dir', dataDir]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(
      'Read 5 line(s): 1 token line(s) (1 added), 1 pool line(s) (1 added), 2 trade(s) ingested, 0 duplicate(s) skipped, 1 line(s) rejected.',
    );
    expect(imported.stdout).toMatch(/line 4: invalid JSON/);

    const bars = async () => {
      const handle = await openMarket(dataDir, 'test');
      try {
        const pool = handle.market.pools.get('ab12');
        return pool
          ? [
              await handle.store.bars.range(pool.id, '1min', 0, 2 ** 31),
              await handle.store.bars.range(pool.pair.aggregate.id, '1d', 0, 2 ** 31),
            ]
          : [];
      } finally {
        await handle.close();
      }
    };
    const before = await bars();
    expect(before[0]).toHaveLength(2);

    const rebuilt = await cli('rebuild-bars', ['--data-dir', dataDir]);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/^Rebuilt bars from 2 trade\(s\) in \d+\.\d s\.$/m);
    expect(await bars()).toEqual(before);

    const again = await cli('import-trades', [file, '--data-dir', dataDir]);
    expect(again.stdout).toContain('0 trade(s) ingested, 2 duplicate(s) skipped');
  });

  it('refuses to list, revoke or rebuild where there is no store, and creates none there', async () => {
    const missing = join(root, 'typo');
    expectOneLineError(await cli('keys', ['list', '--data-dir', missing]), 1, `no store in ${missing}`);
    expectOneLineError(await cli('keys', ['revoke', '1'], { DATA_DIR: missing }), 1, 'no store in');
    expectOneLineError(await cli('rebuild-bars', ['--data-dir', missing]), 1, 'no store in');
    expect(existsSync(missing)).toBe(false);
    // Keys may be made before the first start: create makes the store.
    expect((await cli('keys', ['create', '--data-dir', missing])).code).toBe(0);
    expect((await cli('keys', ['list', '--data-dir', missing])).code).toBe(0);
  });

  it('fails with one line for a missing file and with usage for extra arguments', async () => {
    expectOneLineError(
      await cli('import-trades', [join(root, 'none.jsonl'), '--data-dir', dataDir]),
      1,
      'does not exist',
    );
    expect((await cli('import-trades', ['a.jsonl', 'b.jsonl', '--data-dir', dataDir])).code).toBe(2);
    expect((await cli('rebuild-bars', ['extra', '--data-dir', dataDir])).code).toBe(2);
    const help = await cli('rebuild-bars', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run rebuild-bars');
  });
});
