import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { fromOgmiosBlock } from '../../src/service/chain/ogmios-block';
import { openMarket } from '../../src/service/open-market';
import { FakeKupo } from '../../tests/support/fake-kupo';
import { FakeOgmios } from '../../tests/support/fake-ogmios';
import type { OgmiosWireBlock } from '../../tests/support/prise';
import {
  nextSyntheticBlock,
  syntheticBlocks,
  syntheticPools,
  type ChainCursor,
  type SyntheticPool,
} from '../../tests/support/synthetic-chain';
import { cacheFloodBench } from '../cache-flood';
import { SoakServer } from './server';

/**
 * Issue 45's cases, each against a real server process: rollbacks to points the source does not have
 * (then a restart and an honest node), a storm of 1,500 rollbacks with browsers following, a Kupo
 * answering as an attacker would, and the cache flood beside a client reading history.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface HostileCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

interface ChainHealth {
  readonly state: string;
  readonly tipSlot: number | null;
  readonly rollbacks: number;
  readonly refusedRollbacks: number;
  readonly lastError: string | null;
}

async function chainHealth(server: SoakServer): Promise<ChainHealth> {
  const body = (await (await fetch(`${server.origin}/healthz`)).json()) as { chain: ChainHealth };
  return body.chain;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const START = { slot: 120_000_000, id: 'ee'.repeat(32) };
const ANCHOR: OgmiosWireBlock = {
  type: 'praos',
  era: 'babbage',
  ...START,
  height: 0,
  ancestor: 'genesis',
  transactions: [],
};

/** A chain server on `fake`, from the anchor. */
function chainServer(dataDir: string, fake: FakeOgmios, extra: readonly string[] = []): SoakServer {
  return new SoakServer({
    dataDir,
    extraArgs: ['--source', 'chain', '--ogmios', fake.url, ...extra],
    env: { GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' },
  });
}

/** Trades and bars of the store in `dataDir` against a fresh store that ingested `blocks` straight. */
async function equalsStraight(dataDir: string, blocks: readonly OgmiosWireBlock[], root: string): Promise<string> {
  const contents = async (dir: string, feed?: readonly OgmiosWireBlock[]) => {
    const handle = await openMarket(dir, 'soak:hostile', feed ? {} : { existing: true });
    try {
      if (feed) {
        const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
        ingest.startAt(START);
        for (const block of feed) await ingest.applyBlock(fromOgmiosBlock(block));
      }
      const trades = (await handle.store.trades.list()).map(({ seq: _seq, ...trade }) => trade);
      return { trades, bars: await handle.store.bars.all(), tip: await handle.store.market.meta('chain:tip') };
    } finally {
      await handle.close();
    }
  };
  const stored = await contents(dataDir);
  const straight = await contents(mkdtempSync(join(root, 'straight-')), blocks);
  if (JSON.stringify(stored) === JSON.stringify(straight)) return '';
  return `differs from a straight ingest (${stored.trades.length} trades against ${straight.trades.length}, tip ${stored.tip} against ${straight.tip})`;
}

/** Rollbacks to origin, before the journal, a wrong id at a slot of ours, the future: each refused; a restart; an honest node. */
async function rollbackGarbage(root: string): Promise<HostileCheck> {
  const pools = syntheticPools(4);
  const cursor: ChainCursor = { ...START, height: 0 };
  const first = [
    ...syntheticBlocks(cursor, pools, 1, { updates: 4, sequential: true }),
    ...syntheticBlocks(cursor, pools, 20, { updates: 2 }),
  ];
  const fake = await FakeOgmios.start([ANCHOR, ...first]);
  const dataDir = mkdtempSync(join(root, 'garbage-'));
  const server = chainServer(dataDir, fake, ['--chain-start', `${START.slot}.${START.id}`]);
  try {
    await server.start();
    const tipOf = (blocks: readonly OgmiosWireBlock[]) => blocks.at(-1)?.slot ?? -1;
    await until('the first blocks', async () => (await chainHealth(server)).tipSlot === tipOf(first));
    const garbage: readonly [string, unknown][] = [
      ['origin', 'origin'],
      ['before the journal', { slot: START.slot - 100, id: '12'.repeat(32) }],
      ['a wrong id at a slot of ours', { slot: first[5]?.slot, id: '34'.repeat(32) }],
      ['the future', { slot: tipOf(first) + 500, id: '56'.repeat(32) }],
    ];
    const refusedAfter: string[] = [];
    for (const [name, point] of garbage) {
      const before = (await chainHealth(server)).refusedRollbacks;
      // The hostile frame answers the request the follower has waiting at the tip.
      await until('live at the tip', async () => {
        const health = await chainHealth(server);
        return health.state === 'live' && health.tipSlot === tipOf(first);
      });
      await sleep(200);
      fake.sendResult({ direction: 'backward', point, tip: { slot: 1, id: 'ab'.repeat(32), height: 1 } });
      await until(`the refusal of ${name}`, async () => (await chainHealth(server)).refusedRollbacks > before, 20_000);
      const health = await chainHealth(server);
      if (health.tipSlot !== tipOf(first)) refusedAfter.push(`${name}: the tip moved to ${health.tipSlot}`);
    }
    // A restart finds its intersection again (the first round's finding: it never did).
    await server.stop('SIGTERM');
    await server.start();
    await until(
      'live after the restart',
      async () => {
        const health = await chainHealth(server);
        return health.state === 'live' && health.tipSlot === tipOf(first);
      },
      30_000,
    );
    const more = syntheticBlocks(cursor, pools, 10, { updates: 2 });
    fake.extend(more);
    await until('the honest blocks', async () => (await chainHealth(server)).tipSlot === tipOf(more));
    await server.stop('SIGTERM');
    const differs = await equalsStraight(dataDir, [...first, ...more], root);
    return {
      name: 'rollback garbage',
      ok: refusedAfter.length === 0 && differs === '',
      detail: `${garbage.length} rollbacks to points the source does not have (${garbage.map(([n]) => n).join(', ')}): each refused with the tip kept${refusedAfter.length > 0 ? ` — NOT: ${refusedAfter.join('; ')}` : ''}; restarted, live again at the tip; ${more.length} honest blocks after: the store ${differs || 'equals a straight ingest'}`,
    };
  } finally {
    if (server.running) await server.stop('SIGKILL');
    await fake.close();
  }
}

/** Counts `event: rollback` frames on one browser live connection until `stop`. */
function liveReader(origin: string, pools: readonly string[]): { rollbacks: () => number; stop: () => void } {
  const abort = new AbortController();
  let rollbacks = 0;
  void (async () => {
    try {
      const answer = await fetch(`${origin}/gw/v1/live?pools=${pools.join(',')}`, { signal: abort.signal });
      const reader = answer.body?.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
        const frames = text.split('\n\n');
        text = frames.pop() ?? '';
        rollbacks += frames.filter((frame) => frame.includes('event: rollback')).length;
      }
    } catch {
      // Stopped.
    }
  })();
  return { rollbacks: () => rollbacks, stop: () => abort.abort() };
}

/** 1,500 rollbacks, each one block deep to a point of ours and a new block after it, with 4 browsers following. */
async function rollbackStorm(root: string, count: number): Promise<HostileCheck> {
  const pools = syntheticPools(4);
  const cursor: ChainCursor = { ...START, height: 0 };
  const first = [
    ...syntheticBlocks(cursor, pools, 1, { updates: 4, sequential: true }),
    ...syntheticBlocks(cursor, pools, 10, { updates: 2 }),
  ];
  const fake = await FakeOgmios.start([ANCHOR, ...first]);
  const dataDir = mkdtempSync(join(root, 'storm-'));
  const server = chainServer(dataDir, fake, ['--chain-start', `${START.slot}.${START.id}`]);
  const readers: ReturnType<typeof liveReader>[] = [];
  try {
    await server.start();
    const base = first.at(-1) as OgmiosWireBlock;
    await until('the first blocks', async () => (await chainHealth(server)).tipSlot === base.slot);
    const info = (await (await fetch(`${server.origin}/gw/v1/symbol_info?group=Aggregate`)).json()) as {
      ticker: string[];
    };
    for (let n = 0; n < 4; n++) readers.push(liveReader(server.origin, info.ticker.slice(0, 4)));
    await sleep(1000);
    const saved = { cursor: { ...cursor }, reserves: pools.map((p) => [p.a, p.b] as const) };
    const restore = () => {
      Object.assign(cursor, saved.cursor);
      pools.forEach((p: SyntheticPool, i) => {
        [p.a, p.b] = saved.reserves[i] ?? [p.a, p.b];
      });
    };
    const asked = () => fake.requests.filter((r) => r === 'nextBlock').length;
    const before = (await chainHealth(server)).rollbacks;
    const started = performance.now();
    let last: OgmiosWireBlock = base;
    for (let n = 1; n <= count; n++) {
      const mark = asked();
      if (n > 1) fake.rollBackTo(base.slot);
      restore();
      last = nextSyntheticBlock(cursor, pools, { updates: 1, fork: n });
      fake.extend([last]);
      // Paced by the server: the next rollback once it has taken this block (it asks for the next).
      const end = performance.now() + 5_000;
      while (asked() < mark + (n > 1 ? 2 : 1) && performance.now() < end) await sleep(1);
    }
    const stormSeconds = (performance.now() - started) / 1000;
    await until('the last block', async () => (await chainHealth(server)).tipSlot === last.slot, 60_000);
    await sleep(2500);
    const health = await chainHealth(server);
    const rolledBack = health.rollbacks - before;
    const events = readers.map((r) => r.rollbacks());
    for (const r of readers) r.stop();
    await server.stop('SIGTERM');
    const differs = await equalsStraight(dataDir, [...first, last], root);
    // A handful per connection: about one a second of the storm, plus the last window's.
    const most = Math.ceil(stormSeconds) + 2;
    return {
      name: 'rollback storm',
      ok: rolledBack >= count * 0.9 && events.every((e) => e >= 1 && e <= most) && differs === '',
      detail: `${rolledBack} rollbacks in ${stormSeconds.toFixed(1)} s: the 4 browser connections got ${events.join(', ')} rollback events (at most ${most} allowed); the store ${differs || 'equals a straight ingest'}`,
    };
  } finally {
    for (const r of readers) r.stop();
    if (server.running) await server.stop('SIGKILL');
    await fake.close();
  }
}

/** Resident memory of a process, MiB. */
function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Math.round(
      Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
          .toString()
          .trim(),
      ) / 1024,
    );
  } catch {
    return 0;
  }
}

/** A Kupo answering the start's checkpoint as an attacker would: never the start point, memory bounded, no redirect followed. */
async function kupoHostile(root: string): Promise<HostileCheck[]> {
  const pools = syntheticPools(2);
  // A tip 40 days past the anchor: `--chain-start 30d` asks Kupo for a block 30 days back.
  const cursor: ChainCursor = { ...START, height: 0 };
  const chain = [ANCHOR, ...syntheticBlocks(cursor, pools, 2, { updates: 2, sequential: true, slotStep: 20 * 86_400 })];
  const fake = await FakeOgmios.start(chain);
  const kupo = await FakeKupo.start([]);
  let redirected = 0;
  const elsewhere = createServer((_req, res) => {
    redirected++;
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ slot_no: 1, header_hash: START.id }));
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  const member = gzipSync(Buffer.alloc(64 * 2 ** 20, 0x20), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
  const json = (res: ServerResponse, body: unknown) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  const cases: readonly [string, (res: ServerResponse) => void][] = [
    ['a redirect to another host', (res) => res.writeHead(302, { Location: `${elsewhereUrl}/internal/admin` }).end()],
    [
      'an answer without end (1.5 GiB)',
      (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(2 ** 20, 0x20);
        let sent = 0;
        const more = () => {
          while (sent < 1536 && res.write(chunk)) sent++;
          if (sent >= 1536) res.end();
        };
        res.on('drain', more);
        res.on('close', () => (sent = 1536));
        more();
      },
    ],
    [
      'a gzip bomb (1 MiB of gzip, 1 GiB of JSON)',
      (res) => res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(bomb),
    ],
    ['slot_no -5', (res) => json(res, { slot_no: -5, header_hash: START.id })],
    ['slot_no 2^53', (res) => json(res, { slot_no: 2 ** 53, header_hash: START.id })],
    ['a hash of the wrong length', (res) => json(res, { slot_no: START.slot, header_hash: 'ab' })],
  ];
  const checks: HostileCheck[] = [];
  try {
    for (const [name, respond] of cases) {
      kupo.respond = (_path, res) => respond(res);
      const dataDir = mkdtempSync(join(root, 'kupo-'));
      const server = chainServer(dataDir, fake, ['--kupo', kupo.url, '--chain-start', '30d']);
      let peak = 0;
      try {
        const asked = kupo.requests.length;
        await server.start();
        let health = await chainHealth(server);
        const end = Date.now() + 40_000;
        while (!/Kupo/.test(health.lastError ?? '') && Date.now() < end) {
          peak = Math.max(peak, rssMiB(server.pid));
          await sleep(100);
          health = await chainHealth(server);
        }
        peak = Math.max(peak, rssMiB(server.pid));
        const ok =
          kupo.requests.length > asked &&
          /Kupo/.test(health.lastError ?? '') &&
          health.tipSlot === null &&
          server.running &&
          redirected === 0 &&
          peak < 600;
        checks.push({
          name: `kupo: ${name}`,
          ok,
          detail: `${health.lastError ?? 'no error shown'}; tip ${health.tipSlot === null ? 'none (no start point taken)' : `slot ${health.tipSlot}: A START POINT WAS TAKEN`}; RSS peak ${peak} MiB; the other host asked ${redirected} times`,
        });
      } finally {
        if (server.running) await server.stop('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await kupo.close();
    await fake.close();
    await new Promise((resolve) => elsewhere.close(resolve));
  }
  return checks;
}

export interface HostileOptions {
  readonly log: (line: string) => void;
  /** Rollbacks of the storm (default 1,500). */
  readonly storm?: number;
  /** Seconds each cache-flood phase is measured. */
  readonly floodSeconds?: number;
}

export async function hostile(options: HostileOptions): Promise<HostileCheck[]> {
  const root = mkdtempSync(join(tmpdir(), 'soak-hostile-'));
  const checks: HostileCheck[] = [];
  const run = async (name: string, part: () => Promise<HostileCheck | HostileCheck[]>) => {
    options.log(`hostile: ${name}`);
    try {
      const result = await part();
      checks.push(...(Array.isArray(result) ? result : [result]));
    } catch (error) {
      checks.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  try {
    await run('rollback garbage', () => rollbackGarbage(root));
    await run('rollback storm', () => rollbackStorm(root, options.storm ?? 1500));
    await run('kupo', () => kupoHostile(root));
    await run('cache flood', async () => {
      const rows = await cacheFloodBench({ log: options.log, seconds: options.floodSeconds ?? 20 });
      return rows
        .filter((row) => row.pass !== undefined)
        .map((row) => ({
          name: `cache flood: ${row.name}`,
          ok: row.pass === true,
          detail: `${row.value} ${row.unit}; ${row.note ?? ''}`,
        }));
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return checks;
}
