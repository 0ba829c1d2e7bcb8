import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, runCommand, UsageError, type CliCommand, type CliIo } from '../../src/service/cli/frame';
import { lockDataDir } from '../../src/service/store/lock';

/** The store commands' one frame, run in-process on a command of the test's own. */

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cli-frame-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function io(env: Record<string, string> = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
  };
}

/** A command that opens the market and counts its tokens, or fails as it is told by its first argument. */
const count: CliCommand<{ times: { type: 'string' } }> = {
  usage: 'count <what> [--times <n>]',
  description: 'Counts the tokens of the store.',
  options: { times: { type: 'string' } },
  optionHelp: ['  --times <n>       how many times'],
  databaseNote: 'With DATABASE_URL set, the store is that database.',
  purpose: 'count',
  positionals: { min: 1, max: 1, missing: '<what>' },
  run: async ({ positionals, option, openMarket, print }) => {
    if (positionals[0] === 'usage') throw new UsageError('that is no way to count');
    if (positionals[0] === 'fail') throw new Error('the count failed\nat some place');
    const handle = await openMarket();
    print(`${handle.market.tokens.size} token(s), ${option('times') ?? '1'} time(s)`);
  },
};

describe('the CLI frame', () => {
  it('prints the help with the exit codes on --help, and exits 0', async () => {
    const out = io();
    expect(await runCommand(count, ['--help'], out)).toBe(0);
    const help = out.out.join('');
    expect(help).toMatch(/^Usage: count <what> \[--times <n>\]\n\nCounts the tokens/);
    expect(help).toContain('  --times <n>       how many times\n  --data-dir <dir>');
    expect(help).toContain('With DATABASE_URL set, the store is that database.');
    expect(help.trimEnd().endsWith(EXIT_CODES)).toBe(true);
    expect(out.err).toEqual([]);
  });

  it('runs the command on the data directory given, and closes what it opened', async () => {
    const dataDir = join(root, 'data');
    const out = io();
    expect(await runCommand(count, ['tokens', '--times', '2', '--data-dir', dataDir], out)).toBe(0);
    expect(out.out.join('')).toMatch(/^\d+ token\(s\), 2 time\(s\)\n$/);
    // Closed: the lock is free again.
    lockDataDir(dataDir, 'after')();
  });

  it('takes the data directory from DATA_DIR without --data-dir', async () => {
    const dataDir = join(root, 'from-env');
    expect(await runCommand(count, ['tokens'], io({ DATA_DIR: dataDir }))).toBe(0);
    expect(() => lockDataDir(dataDir, 'after')()).not.toThrow();
  });

  it('answers bad usage with exit 2, the error and the help on stderr: an unknown option, a missing or extra argument, a usage error of the command', async () => {
    for (const [argv, error] of [
      [['tokens', '--colour'], "error: Unknown option '--colour'"],
      [[], 'error: missing <what>'],
      [['a', 'b'], 'error: unexpected argument b'],
      [['tokens', '--data-dir', ' '], 'error: --data-dir must not be empty'],
      [['usage'], 'error: that is no way to count'],
    ] as const) {
      const out = io();
      expect(await runCommand(count, argv, out), argv.join(' ')).toBe(2);
      const text = out.err.join('');
      expect(text.startsWith(error), text).toBe(true);
      expect(text).toContain('Usage: count');
      expect(text).toContain(EXIT_CODES);
      expect(out.out).toEqual([]);
    }
  });

  it('answers a failure with exit 1 and its one error line, the stack only with DEBUG', async () => {
    const out = io();
    expect(await runCommand(count, ['fail'], out)).toBe(1);
    expect(out.err.join('')).toBe('error: the count failed\nat some place\n');
    const debug = io({ DEBUG: '1' });
    expect(await runCommand(count, ['fail'], debug)).toBe(1);
    expect(debug.err.join('')).toMatch(/\n\s+at .*cli-frame\.test\.ts/);
  });

  it('refuses a data directory another process holds, naming it, with exit 1', async () => {
    const dataDir = join(root, 'held');
    const release = lockDataDir(dataDir, 'service');
    try {
      const out = io();
      expect(await runCommand(count, ['tokens', '--data-dir', dataDir], out)).toBe(1);
      expect(out.err).toEqual([
        `error: ${dataDir} is in use by process ${process.pid} (service). Stop it first, or use another --data-dir.\n`,
      ]);
    } finally {
      release();
    }
  });

  it('refuses --data-dir beside DATABASE_URL, and keeps the address out of its errors', async () => {
    const url = 'postgres://user:secret-password@127.0.0.1:1/db';
    const out = io({ DATABASE_URL: url });
    expect(await runCommand(count, ['tokens', '--data-dir', root], out)).toBe(2);
    expect(out.err.join('')).toMatch(/^error: --data-dir names a SQLite store, but DATABASE_URL is set/);
    expect(out.err.join('')).not.toContain('secret-password');
  });
});
