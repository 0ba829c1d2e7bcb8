import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../src/service/store/open';
import { freePort } from '../support/free-port';
import { barsDigest } from '../support/market';
import { startServerProcess } from '../support/server-process';
import { storeFill, storeIndexes } from '../support/sqlite-faults';

/**
 * A first start killed (SIGKILL: no handler runs) in the middle of its bulk load — while the trades
 * are written by the load's thread, or while that thread writes the bars at the end — leaves a store
 * the next start takes up: the bars marked stale, rebuilt from the stored trades before it serves, the
 * trades' indexes made again, and the market carried on from the last batch written.
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The default market's pools over 8 days (about 120,000 trades, 750,000 bars): more trades than the
 * load queues for its thread (so the simulator is still at work while the thread writes), and bars
 * for several of the load's commits at the end.
 */
const MARKET = ['--pools', '17600', '--days', '8'];
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts a server on a new data directory, kills its process group once /readyz reports a start at
 * `phase` (e.g. `backfill 30%`) with some trades in the store file (the load's thread writes them
 * behind the simulator, and a loaded machine starts it late), and resolves with the data directory
 * and the start's report when killed.
 */
async function killDuring(phase: RegExp): Promise<{ dir: string; seen: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'first-start-kill-'));
  dirs.push(dir);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/cli/serve.ts', '--port', String(port), '--data-dir', dir, ...MARKET],
    {
      cwd: REPO,
      env: { ...process.env, NODE_ENV: 'test' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seen = '';
  try {
    await vi.waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`the server exited during its first start:\n${output}`);
        const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        if (answer?.status === 200) throw new Error(`the first start ended before it was seen at ${phase}:\n${output}`);
        const startup = answer
          ? ((await answer.json()) as { checks?: { startup?: string } }).checks?.startup
          : undefined;
        if (startup === undefined || !phase.test(startup) || storeFill(dir).trades === 0) return false;
        seen = startup;
        return true;
      },
      { timeout: 120_000, interval: 10 },
    );
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    await exited;
  }
  return { dir, seen };
}

/** The bars a data directory's store holds, and those a rebuild makes of its trades (digests). */
async function barsAndRebuilt(dir: string): Promise<{ bars: string; rebuilt: string }> {
  const store = openStore(dir);
  try {
    const bars = await barsDigest(store);
    await store.bars.rebuild();
    return { bars, rebuilt: await barsDigest(store) };
  } finally {
    await store.close();
  }
}

describe('a first start killed during its bulk load', () => {
  const cases = [
    // The trades' secondary indexes are still dropped, and no bar is written.
    { when: 'while its trades are written', phase: /^starting: backfill \d+% /, mid: 'trades' },
    // After the first commit of bars: the indexes made, some bars written; every trade is.
    { when: 'while its bars are written', phase: /^starting: bars [1-9]\d*% /, mid: 'bars' },
  ] as const;
  for (const { when, phase, mid } of cases) {
    it(`leaves a store the next start rebuilds and carries on (${when})`, async () => {
      const { dir, seen } = await killDuring(phase);
      expect(seen).toMatch(phase);
      const left = storeFill(dir);
      expect(left.trades).toBeGreaterThan(0);
      expect(left.barsStale).toBe(true);
      if (mid === 'trades') {
        expect(storeIndexes(dir)).not.toContain('trades_pool_time');
        expect(left.bars).toBe(0);
      } else {
        expect(storeIndexes(dir)).toEqual(expect.arrayContaining(['trades_pool_time', 'trades_agg_time']));
        expect(left.bars).toBeGreaterThan(0);
      }

      const server = await startServerProcess({ dataDir: dir, args: MARKET, readyPath: '/readyz' });
      try {
        expect(server.output()).toMatch(/Market ready in /);
      } finally {
        await server.stop();
      }
      expect(storeIndexes(dir)).toEqual(expect.arrayContaining(['trades_pool_time', 'trades_agg_time']));
      const after = storeFill(dir);
      expect(after.barsStale).toBe(false);
      // Killed during its trades, the next start makes the rest of the 8 days; during its bars, every
      // trade was written, and the next start may find no new block to make.
      if (mid === 'trades') expect(after.trades).toBeGreaterThan(left.trades);
      else expect(after.trades).toBeGreaterThanOrEqual(left.trades);
      // The bars the restart left are exactly those a rebuild makes of the stored trades.
      const { bars, rebuilt } = await barsAndRebuilt(dir);
      expect(bars).toBe(rebuilt);
    }, 240_000);
  }
});
