import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, round, type BenchRow } from './measure';
import { SoakServer } from './soak/server';

/**
 * Issue 45's cache flood: requests that each cost the gateway (and the service behind it) a whole-market
 * answer — the overview's lists with the group in another letter case (`group-stats`), any `min_tvl`
 * (`spreads`), `symbol_info` with a parameter nobody reads (`?cb=N`) — at 760 a minute per address
 * (under the gateway's REST budget of 1,200), from 1 and then 4 loopback addresses, beside one client
 * reading `/gw/v1/history` as a chart does. What counts is that client's p95 under the flood against its
 * quiet p95 (target: within 2×), and `/readyz`'s. A server-rendered page flood (the page asked as fast as
 * 8 connections take it from one address) is measured the same way when the app is built (`dist/`).
 */

const SUITE = 'cache-flood';
/** The issue's rate: 760 requests a minute from each address. */
export const FLOOD_PER_MINUTE = 760;
const ENCODINGS = 'gzip, deflate, br';

/** One answer of the flood: its status, or 0 for a failure to get one. */
export interface FloodTally {
  readonly statuses: Record<string, number>;
  sent: number;
  /** Requests not sent because the address already had `maxInFlight` waiting (the server fell behind). */
  skipped: number;
}

const random = (n: number) => Math.floor(Math.random() * n);

/** `text` in a random mix of upper and lower case. */
function anyCase(text: string): string {
  return [...text].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
}

const GROUPS = ['Aggregate', 'Minswap', 'MinswapV2', 'SundaeSwap', 'WingRiders'];

/** One request of the flood: a whole-market list the gateway would have to build or re-compress if its key were the raw query. */
export function floodPath(n: number): string {
  switch (n % 4) {
    case 0:
      return `/gw/v1/group-stats?group=${anyCase(GROUPS[random(GROUPS.length)] ?? 'Aggregate')}`;
    case 1:
      return `/gw/v1/spreads?min_tvl=${(Math.random() * 10_000).toFixed(random(6))}`;
    case 2:
      return `/gw/v1/symbol_info?cb=${n}`;
    default:
      return `/gw/v1/symbol_info?group=${anyCase('Aggregate')}&cb=${n}`;
  }
}

/** GET `path` over a keep-alive agent; resolves with the status (0: no answer) once the body is read. */
export function get(
  origin: string,
  path: string,
  agent: Agent,
  timeoutMs = 30_000,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    const url = new URL(path, origin);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        agent,
        headers: { 'Accept-Encoding': ENCODINGS },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', () => resolve({ status: 0, bytes }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve({ status: 0, bytes: 0 }));
    req.end();
  });
}

/**
 * The flood from one address (`localAddress`, a loopback address): `perMinute` requests a minute sent at
 * an even pace whatever the answers (open loop, as an attacker's script), at most `maxInFlight` waiting.
 * Returns a stop that resolves with the tally once the requests in flight are answered.
 */
export function flood(
  origin: string,
  localAddress: string,
  perMinute: number,
  paths: (n: number) => string = floodPath,
  maxInFlight = 64,
): () => Promise<FloodTally> {
  const agent = new Agent({ keepAlive: true, maxSockets: maxInFlight, localAddress });
  const tally: FloodTally = { statuses: {}, sent: 0, skipped: 0 };
  const inFlight = new Set<Promise<unknown>>();
  let n = random(1_000_000);
  const timer = setInterval(() => {
    if (inFlight.size >= maxInFlight) {
      tally.skipped++;
      return;
    }
    tally.sent++;
    const answer = get(origin, paths(n++), agent).then(({ status }) => {
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
      inFlight.delete(answer);
    });
    inFlight.add(answer);
  }, 60_000 / perMinute);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    agent.destroy();
    return tally;
  };
}

/**
 * The flood from `address` in a child process (bench/cache-flood-client.ts) for `seconds`: the
 * attacker's CPU is not the measuring client's event loop. Returns a stop resolving with its tally.
 */
function floodProcess(origin: string, address: string, seconds: number): () => Promise<FloodTally> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/cache-flood-client.ts', origin, address, String(seconds)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<FloodTally>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as FloodTally)
        : reject(new Error(`the flood from ${address} exited ${code}`)),
    ),
  );
  return () => done;
}

/** Latencies (ms) of `path` asked one after another, `pauseMs` apart, for `seconds`, and the answers that were not 200. */
async function reader(
  origin: string,
  path: () => string,
  seconds: number,
  pauseMs: number,
): Promise<{ times: number[]; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.1' });
  const times: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end) {
      const started = performance.now();
      const { status } = await get(origin, path(), agent, 10_000);
      // A failure counts with the time it took (a timeout: 10 s): it is what the client waited.
      if (status !== 200) failed++;
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  } finally {
    agent.destroy();
  }
  return { times, failed };
}

interface Phase {
  readonly history: number[];
  readonly historyFailed: number;
  readonly readyz: number[];
  readonly floods: FloodTally[];
}

/** The history client and /readyz measured for `seconds` while `attackers` flood (none: quiet). */
async function phase(
  origin: string,
  historyPath: () => string,
  seconds: number,
  attackers: readonly (() => () => Promise<FloodTally>)[],
): Promise<Phase> {
  const stops = attackers.map((start) => start());
  // The flood first reaches its pace.
  if (stops.length > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
  const [history, readyz] = await Promise.all([
    reader(origin, historyPath, seconds, 100),
    reader(origin, () => '/readyz', seconds, 250),
  ]);
  const floods = await Promise.all(stops.map((stop) => stop()));
  return { history: history.times, historyFailed: history.failed, readyz: readyz.times, floods };
}

/**
 * Waits until the server has worked off what a flood left queued (its history answers back near the
 * quiet median, three in a row), so that each phase measures its own flood; at most two minutes.
 */
async function settle(origin: string, historyPath: () => string, quietMedianMs: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.1' });
  const until = performance.now() + 120_000;
  let calm = 0;
  try {
    while (calm < 3 && performance.now() < until) {
      const started = performance.now();
      const { status } = await get(origin, historyPath(), agent, 10_000);
      calm = status === 200 && performance.now() - started < Math.max(50, 2 * quietMedianMs) ? calm + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    agent.destroy();
  }
}

const statusNote = (floods: readonly FloodTally[]) => {
  const total: Record<string, number> = {};
  let skipped = 0;
  for (const f of floods) {
    for (const [status, n] of Object.entries(f.statuses)) total[status] = (total[status] ?? 0) + n;
    skipped += f.skipped;
  }
  const parts = Object.entries(total).map(([status, n]) => `${status === '0' ? 'no answer' : status}: ${n}`);
  return `flood answers ${parts.join(', ')}${skipped > 0 ? `; ${skipped} not sent (64 waiting)` : ''}`;
};

const failedNote = (measured: Phase) =>
  measured.historyFailed > 0
    ? ` (${measured.historyFailed} of ${measured.history.length} not answered 200 within 10 s)`
    : '';

export interface CacheFloodOptions {
  readonly log: (line: string) => void;
  /** Seconds each phase is measured (default 30). */
  readonly seconds?: number;
  /** DEX pools of the market (default 17,600, the server's default: lists of about 1.5 MB). */
  readonly pools?: number;
}

export async function cacheFloodBench(options: CacheFloodOptions): Promise<BenchRow[]> {
  const seconds = options.seconds ?? 30;
  const dir = mkdtempSync(join(tmpdir(), 'bench-cache-flood-'));
  const server = new SoakServer({ dataDir: dir, pools: options.pools ?? 17_600, days: 2 });
  const rows: BenchRow[] = [];
  try {
    options.log(`cache-flood: starting a server (${options.pools ?? 17_600} pools, 2 days)`);
    await server.start(300_000);
    const origin = server.origin;
    const info = (await (await fetch(`${origin}/gw/v1/info`)).json()) as { deepest?: Record<string, string> };
    const pool = info.deepest?.Aggregate;
    if (!pool) throw new Error('the market has no deepest Aggregate pool');
    const historyPath = () => {
      const to = Math.floor(Date.now() / 1000);
      return `/gw/v1/history?symbol=${pool}&resolution=1min&from=${to - 86_400}&to=${to}`;
    };
    // Warm: the chart's chunks and the lists as the app asks them.
    for (const path of [historyPath(), '/gw/v1/group-stats?group=Aggregate', '/gw/v1/spreads', '/gw/v1/symbol_info'])
      await fetch(`${origin}${path}`);
    // Each flood runs its phase's measured time plus the 2 s it is given to reach its pace.
    const attacker = (address: string) => () => floodProcess(origin, address, seconds + 2);
    options.log(`cache-flood: quiet, ${seconds} s`);
    const quiet = await phase(origin, historyPath, seconds, []);
    const quietMedian = percentile(quiet.history, 50);
    options.log(`cache-flood: flood from 1 address, ${seconds} s`);
    const one = await phase(origin, historyPath, seconds, [attacker('127.0.0.2')]);
    // Each phase's own flood: what the last one left queued is worked off first. The budgets of the
    // first flood's address do not carry into the next phase either: other addresses.
    await settle(origin, historyPath, quietMedian);
    options.log(`cache-flood: flood from 4 addresses, ${seconds} s`);
    const four = await phase(
      origin,
      historyPath,
      seconds,
      ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].map(attacker),
    );
    const quietP95 = percentile(quiet.history, 95);
    rows.push(
      {
        suite: SUITE,
        name: 'history p50 / p95, quiet',
        value: round(percentile(quiet.history, 95), 1),
        unit: 'ms (p95)',
        note: `p50 ${round(percentile(quiet.history, 50), 1)} ms; ${quiet.history.length} requests; /readyz p95 ${round(percentile(quiet.readyz, 95), 1)} ms`,
      },
      ...(
        [
          ['1 address', one],
          ['4 addresses', four],
        ] as const
      ).map(([who, measured]): BenchRow => {
        const p95 = percentile(measured.history, 95);
        return {
          suite: SUITE,
          name: `history p95 beside a cache flood from ${who} (${FLOOD_PER_MINUTE}/min each)`,
          value: round(p95 / quietP95, 2),
          unit: '× quiet p95',
          target: '<= 2',
          pass: p95 <= 2 * quietP95 && measured.historyFailed === 0,
          note: `p50 ${round(percentile(measured.history, 50), 1)} / p95 ${round(p95, 1)} ms${failedNote(measured)}; /readyz p95 ${round(percentile(measured.readyz, 95), 1)} ms; ${statusNote(measured.floods)}`,
        };
      }),
    );
    if (existsSync('dist/index.html')) {
      await settle(origin, historyPath, quietMedian);
      options.log(`cache-flood: page flood from 1 address, ${seconds} s`);
      let renders = 0;
      const statuses: Record<string, number> = {};
      const pageFlood = () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.20' });
        let running = true;
        const loops = Array.from({ length: 8 }, async () => {
          while (running) {
            const { status } = await get(origin, '/?symbol=x', agent);
            statuses[status] = (statuses[status] ?? 0) + 1;
            renders++;
          }
        });
        return async (): Promise<FloodTally> => {
          running = false;
          await Promise.all(loops);
          agent.destroy();
          return { statuses, sent: renders, skipped: 0 };
        };
      };
      const page = await phase(origin, historyPath, seconds, [pageFlood]);
      const p95 = percentile(page.history, 95);
      rows.push({
        suite: SUITE,
        name: 'history p95 beside a page flood from 1 address (8 connections)',
        value: round(p95 / quietP95, 2),
        unit: '× quiet p95',
        target: '<= 2',
        pass: p95 <= 2 * quietP95 && page.historyFailed === 0,
        note: `p50 ${round(percentile(page.history, 50), 1)} / p95 ${round(p95, 1)} ms${failedNote(page)}; ${renders} pages in ${seconds + 2} s; ${statusNote(page.floods)}`,
      });
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
