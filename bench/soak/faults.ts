import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMarket } from '../../src/service/open-market';
import type { TradeRecord } from '../../src/service/store/ports';
import { keepTrading, openRawStream } from './load';
import { SOAK_KEY, SoakServer } from './server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FaultCheck {
  readonly name: string;
  readonly ok: boolean;
  /** Not run here (the table says SKIPPED, not ok). */
  readonly skipped?: boolean;
  readonly detail: string;
}

/** Trades chain per pool, no id twice, bars equal a rebuild: what every fault must leave true. */
async function storeConsistent(dataDir: string): Promise<string | undefined> {
  const handle = await openMarket(dataDir, 'soak:faults', { existing: true });
  try {
    const trades = await handle.store.trades.list();
    if (new Set(trades.map((t) => t.eventId)).size !== trades.length) return 'a trade is stored twice';
    const last = new Map<number, TradeRecord>();
    for (const t of trades) {
      const before = last.get(t.pool);
      if (before && before.price !== t.prevPrice) return `pool series ${t.pool} does not chain at ${t.eventId}`;
      last.set(t.pool, t);
    }
    const bars = JSON.stringify(await handle.store.bars.all());
    await handle.store.bars.rebuild();
    if (JSON.stringify(await handle.store.bars.all()) !== bars) return 'bars differ from a rebuild';
    return undefined;
  } finally {
    await handle.close();
  }
}

/** SIGTERM while streaming and trading hard: streams end cleanly, the last commit is whole, the next start resumes. */
async function sigterm(server: SoakServer, dataDir: string, aggregates: readonly string[]): Promise<FaultCheck> {
  await server.start();
  const streams = await Promise.all(
    Array.from({ length: 5 }, () => openRawStream(server, SOAK_KEY, aggregates, true, true)),
  );
  const stop = keepTrading(server, 5);
  await sleep(1500);
  const code = await server.stop('SIGTERM');
  await stop();
  await Promise.all(streams.map((s) => s.closed));
  const endedCleanly = streams.filter((s) => s.text().endsWith('0\r\n\r\n')).length;
  const problem = await storeConsistent(dataDir);
  await server.start();
  const resumed = (await fetch(`${server.origin}/healthz`)).status === 200;
  await server.stop('SIGTERM');
  const ok = code === 0 && endedCleanly === streams.length && problem === undefined && resumed;
  return {
    name: 'SIGTERM while streaming and trading',
    ok,
    detail: `exit code ${code}, ${endedCleanly}/${streams.length} streams ended cleanly, store ${problem ?? 'consistent'}, next start ${resumed ? 'resumed' : 'FAILED'}`,
  };
}

/** A truncated and a corrupted copy of the store: a clear error naming the file, the file untouched. */
async function damagedCopies(dataDir: string, root: string): Promise<FaultCheck[]> {
  const original = readFileSync(join(dataDir, 'market.sqlite'));
  const cases: [string, Buffer][] = [
    ['a truncated store file', original.subarray(0, Math.floor(original.length / 3))],
    [
      'a store file with corrupted pages',
      Buffer.from(
        original.map((byte, i) =>
          i > original.length / 2 && i < original.length / 2 + 65_536 ? (i * 31) & 0xff : byte,
        ),
      ),
    ],
    ['an empty store file', Buffer.alloc(0)],
  ];
  const checks: FaultCheck[] = [];
  for (const [name, bytes] of cases) {
    const dir = join(root, name.replace(/\W+/g, '-'));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'market.sqlite');
    writeFileSync(file, bytes);
    const copy = new SoakServer({ dataDir: dir });
    let started = false;
    let message = '';
    try {
      await copy.start(60_000);
      started = true;
    } catch (error) {
      message = String(error);
    } finally {
      if (copy.running) await copy.stop('SIGKILL');
    }
    const untouched = statSync(file).size === bytes.length && readFileSync(file).equals(bytes);
    const named = message.includes(`The store ${file}`);
    checks.push({
      name,
      ok: !started && named && untouched,
      detail: `${started ? 'STARTED' : 'refused'}; message ${named ? 'names the file' : 'does NOT name the file'}; file ${untouched ? 'untouched' : 'CHANGED'}`,
    });
  }
  rmSync(join(root), { recursive: true, force: true });
  return checks;
}

/**
 * A full disk during commits (a tmpfs sized to the store, root only): commits fail whole, the server
 * says so and keeps answering reads; with space again, trading resumes and the store is consistent.
 */
async function fullDisk(dataDir: string, root: string): Promise<FaultCheck> {
  if (process.getuid?.() !== 0)
    return {
      name: 'a full disk during commits',
      ok: true,
      skipped: true,
      detail: 'SKIPPED: mounting a small tmpfs needs root (run the soak as root to check it)',
    };
  const mount = join(root, 'tmpfs');
  mkdirSync(mount, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1g', 'tmpfs', mount]);
  try {
    const dir = join(mount, 'data');
    mkdirSync(dir);
    copyFileSync(join(dataDir, 'market.sqlite'), join(dir, 'market.sqlite'));
    const server = new SoakServer({
      dataDir: dir,
      extraArgs: ['--trades-per-block', '40'],
      env: { GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' },
    });
    await server.start();
    const used = Number(
      spawnSync('df', ['-k', '--output=used', mount], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1),
    );
    execFileSync('mount', ['-o', `remount,size=${used + 2048}k`, mount]);
    let refused = 0;
    let readsOk = 0;
    let reads = 0;
    for (let i = 0; i < 400 && refused < 5; i++) {
      const response = await fetch(`${server.origin}/__test__/block`, { method: 'POST' });
      if (response.status === 503) refused++;
      else if (response.status !== 200) throw new Error(`block answered ${response.status}`);
      reads++;
      if ((await fetch(`${server.origin}/api/v1/groups`, { headers: server.auth() })).status === 200) readsOk++;
    }
    const said = /block could not be committed|a block failed and will be retried/.test(server.output());
    execFileSync('mount', ['-o', 'remount,size=1g', mount]);
    const afterSpace = await fetch(`${server.origin}/__test__/block`, { method: 'POST' });
    await server.stop('SIGTERM');
    const problem = await storeConsistent(dir);
    const ok = refused > 0 && readsOk === reads && said && afterSpace.status === 200 && problem === undefined;
    return {
      name: 'a full disk during commits',
      ok,
      detail: `${refused} commits refused (503) once full, reads answered ${readsOk}/${reads}, the server ${said ? 'said so' : 'said NOTHING'}, with space again a block ${afterSpace.status === 200 ? 'committed' : 'FAILED'}, store ${problem ?? 'consistent'}`,
    };
  } finally {
    spawnSync('umount', ['-l', mount]);
  }
}

/** Shutdown and storage faults (see docs/reliability.md). */
export async function faults(
  server: SoakServer,
  dataDir: string,
  aggregates: readonly string[],
  root: string,
): Promise<FaultCheck[]> {
  const checks = [await sigterm(server, dataDir, aggregates)];
  checks.push(...(await damagedCopies(dataDir, join(root, 'damaged'))));
  checks.push(await fullDisk(dataDir, join(root, 'disk')));
  return checks;
}
