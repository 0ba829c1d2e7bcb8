import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_HOLDER_FILE, lockDataDir } from '../../../src/service/store/lock';

/** A child process that takes and releases a data directory's lock on command ("lock", "release"). */
const CHILD = `
import { createInterface } from 'node:readline';
import { lockDataDir } from ${JSON.stringify(join(process.cwd(), 'src/service/store/lock.ts'))};
let release;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, dir] = line.split(' ');
  if (command === 'lock') {
    try { release = lockDataDir(dir, 'child'); console.log('got'); }
    catch (error) { console.log('busy ' + error.message); }
  } else if (command === 'release') { release?.(); release = undefined; console.log('released'); }
}
`;

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  send(line: string): Promise<string>;
}

function startChild(): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { stdio: 'pipe' });
  const replies: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else replies.push(line);
  });
  const send = (line: string) =>
    new Promise<string>((resolve) => {
      waiting.push(resolve);
      child.stdin.write(`${line}\n`);
    });
  return Promise.resolve({ process: child, send });
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lock-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the data directory lock', () => {
  it('lets exactly one of two processes racing for it win, every time', async () => {
    const a = await startChild();
    const b = await startChild();
    try {
      for (let trial = 0; trial < 40; trial++) {
        const dir = join(root, `race-${trial}`);
        const replies = await Promise.all([a.send(`lock ${dir}`), b.send(`lock ${dir}`)]);
        expect(
          replies.filter((r) => r === 'got'),
          replies.join(' | '),
        ).toHaveLength(1);
        expect(replies.find((r) => r !== 'got')).toMatch(
          /is in use by process \d+ \(child\)|is in use by another process/,
        );
        await Promise.all([a.send('release'), b.send('release')]);
      }
    } finally {
      a.process.kill();
      b.process.kill();
    }
  }, 60_000);

  it('is free the moment its holder is killed, with no stale lock left behind', async () => {
    const holder = await startChild();
    expect(await holder.send(`lock ${root}`)).toBe('got');
    expect(() => lockDataDir(root, 'test')).toThrow(`is in use by process ${holder.process.pid} (child)`);
    const exited = new Promise((resolve) => holder.process.once('exit', resolve));
    holder.process.kill('SIGKILL');
    await exited;
    const release = lockDataDir(root, 'test');
    release();
  });

  it('never judges a lock by a PID: a holder file naming a live process does not keep it', () => {
    // A crash left the informational holder file behind, naming a PID that is alive now (reused).
    writeFileSync(join(root, LOCK_HOLDER_FILE), JSON.stringify({ pid: process.ppid, purpose: 'service' }));
    const release = lockDataDir(root, 'test');
    release();
  });

  it('refuses a second holder in the same process and is free again once released', () => {
    const release = lockDataDir(root, 'service');
    expect(() => lockDataDir(root, 'import')).toThrow(`${root} is in use by process ${process.pid} (service)`);
    expect(() => lockDataDir(root, 'import')).toThrow(/is in use/);
    release();
    release();
    lockDataDir(root, 'import')();
  });
});
