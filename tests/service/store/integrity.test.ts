import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupsResponseSchema } from '../../../src/shared/api/groups';
import { DATABASE_FILE } from '../../../src/service/store/open';
import { freePort } from '../../support/free-port';
import { createTestService } from '../../support/service';

/**
 * A store file that exists but holds no market, or is damaged, stops the start with a message naming
 * the file and what to do; it is never treated as a new market (which would backfill over it).
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
let root: string;
let intact: Buffer;
let counter = 0;

/** A data directory holding `bytes` as its store file. */
function dirWith(bytes: Buffer): { dir: string; file: string } {
  const dir = join(root, `case-${counter++}`);
  mkdirSync(dir);
  const file = join(dir, DATABASE_FILE);
  writeFileSync(file, bytes);
  return { dir, file };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'store-integrity-'));
  // A real store of a small market, closed cleanly (the write-ahead log folded into the file).
  const service = await createTestService({ pools: 60, days: 1, dataDir: join(root, 'intact') });
  await service.close();
  intact = readFileSync(join(root, 'intact', DATABASE_FILE));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('opening a store file that holds no market', () => {
  it('refuses an empty file (0 bytes) and leaves it as it was', async () => {
    const { dir, file } = dirWith(Buffer.alloc(0));
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(
      `The store ${file} is empty (0 bytes): it holds no market. Nothing was changed.`,
    );
    expect(statSync(file).size).toBe(0);
  });

  it('refuses an SQLite database without our schema', async () => {
    const { dir, file } = dirWith(Buffer.alloc(0));
    rmSync(file);
    const other = new Database(file);
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(
      `The store ${file} is an SQLite database of something else`,
    );
  });

  it('refuses a file that is not a database, naming the file', async () => {
    const { dir, file } = dirWith(Buffer.from('this is not a database, just a text file '.repeat(200)));
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(
      `The store ${file} is damaged (SQLite: file is not a database)`,
    );
  });

  it('refuses a truncated copy of a real store', async () => {
    const { dir, file } = dirWith(intact.subarray(0, Math.floor(intact.length / 2)));
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(new RegExp(`The store ${file} is damaged`));
    expect(statSync(file).size).toBe(Math.floor(intact.length / 2));
  });

  it('refuses a store with damaged pages at start (quick_check), instead of failing later with 500s', async () => {
    const damaged = Buffer.from(intact);
    // Garbage over a run of pages in the middle of the file (page size 4096).
    const start = Math.floor(damaged.length / 4096 / 2) * 4096;
    for (let i = start; i < Math.min(damaged.length, start + 8 * 4096); i++) damaged[i] = (i * 7919) & 0xff;
    const { dir, file } = dirWith(damaged);
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(new RegExp(`The store ${file} is damaged`));
  });

  it("refuses to create a market where only the store's write-ahead log is left (the main file missing), and keeps the log", async () => {
    const { dir, file } = dirWith(Buffer.alloc(0));
    rmSync(file);
    const wal = `${file}-wal`;
    writeFileSync(wal, Buffer.from('log pages of commits not yet folded into the store'));
    await expect(createTestService({ dataDir: dir })).rejects.toThrow(
      `The store ${file} is missing, but its write-ahead log ${DATABASE_FILE}-wal is there`,
    );
    expect(existsSync(file)).toBe(false);
    expect(statSync(wal).size).toBeGreaterThan(0);
  });

  it('opens the intact store (the check passes) and a new directory creates a market', async () => {
    const { dir } = dirWith(intact);
    const reopened = await createTestService({ dataDir: dir, pools: 60, days: 1 });
    expect(reopened.runtime.market.pools.size).toBeGreaterThan(0);
    await reopened.close();
  });
});

describe('npm run serve on an empty store file', () => {
  it('exits with one line naming the file, and writes nothing there', async () => {
    const { dir, file } = dirWith(Buffer.alloc(0));
    const port = await freePort();
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/server/cli/serve.ts',
          '--port',
          String(port),
          '--data-dir',
          dir,
          '--pools',
          '60',
          '--days',
          '1',
        ],
        { cwd: REPO, timeout: 30_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^The store ${file} is empty \\(0 bytes\\): it holds no market\\. Nothing was changed\\. Restore the file from a backup`,
      ),
    );
    expect(statSync(file).size).toBe(0);
    expect(existsSync(join(dir, 'dev-api-key.txt'))).toBe(false);
  });
});

describe('a store with our schema and no market yet (a market being prepared)', () => {
  it('is not refused: a key made before the first start still works once the start has added the market', async () => {
    const dir = join(root, `case-${counter++}`);
    // `npm run keys -- create` on a new directory makes the store (schema, a key, no market).
    const created = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', '--data-dir', dir],
        { cwd: REPO, timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout }),
      );
    });
    expect(created.code).toBe(0);
    const key = /\b(cdx_[A-Za-z0-9_-]+)/.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    const prepared = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const pools = (prepared.prepare('SELECT COUNT(*) AS n FROM pools').get() as { n: number }).n;
    prepared.close();
    expect(pools).toBe(0);

    const service = await createTestService({ pools: 40, days: 1, dataDir: dir });
    try {
      // The start added the market to the prepared store...
      const groups = await service.request('/api/v1/groups', { key: key ?? '' });
      expect(groups.status).toBe(200);
      expect(groupsResponseSchema.parse(await groups.json()).d.groups.length).toBeGreaterThan(0);
      // ...and replaced nothing: the key made before it authenticates, a made-up one does not.
      expect((await service.request('/api/v1/groups', { key: `${key ?? ''}x` })).status).toBe(401);
    } finally {
      await service.close();
    }
  });
});
