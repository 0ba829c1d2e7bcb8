import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLUTIONS } from '../../../src/shared/resolutions';
import { ADA_UNIT } from '../../../src/shared/id-rules';
import { LOGO_NONE, type Pool, type Token } from '../../../src/service/market/model';
import type { Ingestor } from '../../../src/service/market/ingest';
import { Random } from '../../../src/service/market/random';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import { STREAM_PATH, streamInit } from '../../support/builders';
import { startPostgres, type TestPostgres } from '../../support/engines';
import { createTestService, type TestService } from '../../support/service';
import { readStream } from '../../support/stream';

/**
 * Decimals (and tickers) that arrive late or change never leave a wrong number behind. Seeded random
 * scenarios over real-shaped pools (two tokens and ADA, a pair of two pools and its Aggregate, a token/token pair):
 * trades and "metadata learned or changed" in a random order, against a store that knew the final metadata from the
 * start and saw the same trades. Every answer must be equal, to the bit: /history at every resolution with TVL,
 * /tokens/current by pool and policy, symbol_info of every group, /api/x (group stats, pair pools, trades, spreads,
 * liquidity, token info), and the stream's events after the last change. `LATE_DECIMALS_SCENARIOS` and
 * `LATE_DECIMALS_SEED` run more or other scenarios; PostgreSQL runs a tenth as many, after SQLite's. Before each change
 * the learning service is asked its bars (what it caches must not outlive the change).
 */
const SCENARIOS = Number(process.env.LATE_DECIMALS_SCENARIOS ?? 300);
const SEED = Number(process.env.LATE_DECIMALS_SEED ?? 39);
const DAY = 86_400;

interface Meta {
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
}

type Step =
  | { readonly kind: 'trade'; readonly pool: number; readonly factor: number; readonly dt: number }
  | { readonly kind: 'meta'; readonly token: 1 | 2; readonly meta: Meta };

interface Scenario {
  readonly initial: readonly [Meta, Meta];
  readonly steps: readonly Step[];
  /** Starting raw reserves of the four pools: [base, quote]. */
  readonly reserves: readonly (readonly [number, number])[];
}

/** Scenario `index`'s two tokens: a plain one and a CIP-68 one, each of its own policy. */
function unitsOf(index: number): readonly [string, string] {
  const policy = (n: number) => (index * 2 + n).toString(16).padStart(56, '0');
  return [
    `${policy(0)}${Buffer.from('ALPHA').toString('hex')}`,
    `${policy(1)}0014df10${Buffer.from('BETA').toString('hex')}`,
  ];
}

function scenario(index: number): Scenario {
  const random = new Random(SEED, index);
  const int = (min: number, max: number) => min + random.int(max - min + 1);
  const meta = (token: number): Meta => ({
    ticker: `T${token}${String.fromCharCode(65 + int(0, 25))}`,
    name: `Token ${token} ${int(0, 999)}`,
    decimals: int(0, 12),
  });
  const steps: Step[] = [];
  const count = int(6, 14);
  for (let i = 0; i < count; i++) {
    if (int(0, 3) === 0) steps.push({ kind: 'meta', token: int(1, 2) as 1 | 2, meta: meta(int(1, 2)) });
    else steps.push({ kind: 'trade', pool: int(0, 3), factor: 0.9 + int(0, 2000) / 10_000, dt: int(1, 7_200) });
  }
  // At least one change of metadata after a trade: the case the issue is about.
  steps.splice(int(1, steps.length), 0, { kind: 'meta', token: 1, meta: meta(1) });
  const reserve = () => [int(1, 9) * 10 ** int(9, 13), int(1, 9) * 10 ** int(5, 16)] as const;
  return { initial: [meta(1), meta(2)], steps, reserves: [reserve(), reserve(), reserve(), reserve()] };
}

/** The final metadata of each token: the initial one, then each change in order. */
function finalMeta(s: Scenario): [Meta, Meta] {
  const last: [Meta, Meta] = [s.initial[0], s.initial[1]];
  for (const step of s.steps) if (step.kind === 'meta') last[step.token - 1] = step.meta;
  return last;
}

interface Built {
  readonly tokens: readonly [Token, Token];
  readonly pools: readonly Pool[];
}

/** Scenario `index`'s tokens, pairs and pools, made through the one write path of `service`. */
async function build(service: TestService, index: number, meta: readonly [Meta, Meta], s: Scenario): Promise<Built> {
  const { ingestor } = runtimeInternals(service.runtime);
  const { market } = service.runtime;
  const ada =
    market.tokens.get(ADA_UNIT) ??
    ingestor.addToken({ unit: ADA_UNIT, ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: LOGO_NONE });
  const [u1, u2] = unitsOf(index);
  const t1 = ingestor.addToken({ unit: u1, ...meta[0], logoKind: LOGO_NONE });
  const t2 = ingestor.addToken({ unit: u2, ...meta[1], logoKind: LOGO_NONE });
  const adaT1 = ingestor.ensurePair(ada, t1);
  const adaT2 = ingestor.ensurePair(ada, t2);
  const t1T2 = ingestor.ensurePair(t1, t2);
  const id = (n: number) => `${index.toString(16).padStart(4, '0')}${n}${n}`;
  const pool = (pair: typeof adaT1, group: 'Minswap' | 'SundaeSwap' | 'WingRiders', n: number) =>
    ingestor.addPool(pair, {
      poolId: id(n),
      group,
      baseReserve: s.reserves[n]?.[0] ?? 1,
      quoteReserve: s.reserves[n]?.[1] ?? 1,
      feeBps: 30,
      simulated: false,
    });
  const pools = [
    pool(adaT1, 'Minswap', 0),
    pool(adaT1, 'SundaeSwap', 1),
    pool(adaT2, 'Minswap', 2),
    pool(t1T2, 'WingRiders', 3),
  ];
  await ingestor.commit();
  return { tokens: [t1, t2], pools };
}

/** A constant-product swap on `pool` that moves its price by `factor`. */
function trade(ingestor: Ingestor, pool: Pool, factor: number, time: number, id: string): void {
  const k = pool.baseReserve * pool.quoteReserve;
  const base = pool.baseReserve * Math.sqrt(factor);
  ingestor.swap(pool, base, k / base, time, Math.abs(base - pool.baseReserve), id);
}

/** Asks the scenario's bars as a chart would, so that whatever the service caches of them is cached. */
async function warm(service: TestService, built: Built, time: number): Promise<void> {
  // A key of its own: the test's clock stands still, so one key's rate budget would run out.
  const headers = { Authorization: `Bearer ${await service.newKey('enterprise')}` };
  for (const pool of built.pools.flatMap((p) => [p, p.pair.aggregate]))
    for (const resolution of ['1min', '1h'])
      await service.app.request(
        `/api/v1/history?symbol=${pool.poolId}&resolution=${resolution}&from=${time - 30 * DAY}&to=${time + DAY}&include_tvl=true`,
        { headers },
      );
}

/** Runs the scenario's trades (and, when `withMeta`, its metadata changes) in order, one commit each. */
async function run(
  service: TestService,
  built: Built,
  s: Scenario,
  withMeta: boolean,
  start: number,
  prefix: string,
): Promise<number> {
  const { ingestor } = runtimeInternals(service.runtime);
  let time = start;
  let n = 0;
  for (const step of s.steps) {
    if (step.kind === 'trade') {
      time += step.dt;
      trade(ingestor, built.pools[step.pool] as Pool, step.factor, time, `${prefix}:${n++}`);
    } else if (withMeta) {
      // What clients read before the change (and the service may keep) must not outlive it.
      await warm(service, built, time);
      ingestor.updateToken(built.tokens[step.token - 1] as Token, step.meta);
    }
    await ingestor.commit();
  }
  return time;
}

/** Every answer the issue names about scenario `index`'s tokens and pools, and the whole-market lists, by path. */
async function answers(
  service: TestService,
  index: number,
  built: Built,
  from: number,
  to: number,
): Promise<Map<string, string>> {
  const pools = built.pools.flatMap((p) => [p, p.pair.aggregate]).filter((p, i, all) => all.indexOf(p) === i);
  const paths: string[] = [];
  for (const pool of pools) {
    for (const resolution of RESOLUTIONS)
      paths.push(
        `/api/v1/history?symbol=${pool.poolId}&resolution=${resolution}&from=${from}&to=${to}&include_tvl=true`,
      );
    paths.push(`/api/v1/tokens/current?pool=${pool.poolId}`, `/api/x/pair-pools?pool=${pool.poolId}`);
    paths.push(`/api/x/trades?pool=${pool.poolId}&limit=50`);
  }
  for (const unit of unitsOf(index)) paths.push(`/api/v1/tokens/current?policy=${unit}`, `/api/x/token-info/${unit}`);
  for (const group of ['Minswap', 'SundaeSwap', 'WingRiders', 'Aggregate'])
    paths.push(
      `/api/v1/symbol_info?group=${group}`,
      `/api/x/group-stats?group=${group}`,
      `/api/x/liquidity?group=${group}`,
    );
  paths.push('/api/x/spreads?min_tvl=0', '/api/x/token-info');
  const result = new Map<string, string>();
  // A key of its own (see `warm`).
  const headers = { Authorization: `Bearer ${await service.newKey('enterprise')}` };
  for (const path of paths) {
    // The app itself (service.request also checks every answer against the OpenAPI document: other tests do).
    const response = await service.app.request(path, { headers });
    result.set(path, `${response.status} ${await response.text()}`);
  }
  return result;
}

/** The stream's events for the trades committed while `during` runs (every Aggregate subscribed). */
async function streamed(service: TestService, during: () => Promise<unknown>): Promise<string[]> {
  const { hub } = runtimeInternals(service.runtime);
  const lines: string[] = [];
  const aggregates = [...service.runtime.market.poolsById.values()].filter((p) => p.group === 'Aggregate');
  const unsubscribe = hub.subscribe(
    aggregates.map((p) => p.poolId),
    (line) => {
      lines.push(line);
      return true;
    },
  );
  try {
    await during();
  } finally {
    unsubscribe();
  }
  return lines;
}

/**
 * Runs `count` scenarios from `first` on two services of one engine (`env`): `known` made each scenario's tokens with
 * their final metadata, `late` with the initial one and learnt each change in its place. Returns how many scenarios
 * changed something.
 */
export async function compareScenarios(
  first: number,
  count: number,
  env: Readonly<Record<string, string>> = {},
  late?: Readonly<Record<string, string>>,
): Promise<number> {
  const startMs = 1_718_000_000_000;
  const known = await createTestService({ startMs, config: { source: 'none' }, env });
  const learning = await createTestService({ startMs, config: { source: 'none' }, env: late ?? env });
  let changed = 0;
  try {
    let time = startMs / 1000 - 30 * DAY;
    for (let index = first; index < first + count; index++) {
      const s = scenario(index);
      const a = await build(known, index, finalMeta(s), s);
      const b = await build(learning, index, s.initial, s);
      const from = time;
      await run(known, a, s, false, time, `k${index}`);
      time = await run(learning, b, s, true, time, `k${index}`);
      const [x, y] = [
        await answers(known, index, a, from - DAY, time + DAY),
        await answers(learning, index, b, from - DAY, time + DAY),
      ];
      for (const [path, text] of x) expect(y.get(path), `scenario ${index} (seed ${SEED}): ${path}`).toBe(text);
      // The stream's next events, after the last change.
      const next: Scenario = {
        initial: s.initial,
        reserves: s.reserves,
        steps: [
          { kind: 'trade', pool: 3, factor: 1.01, dt: 60 },
          { kind: 'trade', pool: 0, factor: 0.99, dt: 60 },
        ],
      };
      const ea = await streamed(known, () => run(known, a, next, false, time, `n${index}`));
      const eb = await streamed(learning, () => run(learning, b, next, false, time, `n${index}`));
      time += 120;
      expect(ea.length).toBe(2);
      expect(eb, `scenario ${index}: the stream's events`).toEqual(ea);
      if (JSON.stringify(s.initial) !== JSON.stringify(finalMeta(s))) changed++;
    }
  } finally {
    await Promise.all([known.close(), learning.close()]);
  }
  return changed;
}

describe('decimals and tickers that arrive late or change, on SQLite', () => {
  it(`answer as a store that knew them first, in ${SCENARIOS} seeded scenarios`, { timeout: 900_000 }, async () => {
    expect(await compareScenarios(0, SCENARIOS)).toBeGreaterThan(SCENARIOS / 2);
  });
});

describe('a change of what is known of tokens, on the stream', () => {
  it('reaches a stream that asked for metadata lines once, after it is committed, and never a spec client', async () => {
    const service = await createTestService({ startMs: 1_718_000_000_000, config: { source: 'none' } });
    try {
      const s = scenario(7);
      const built = await build(service, 7, s.initial, s);
      const aggregate = built.pools[0]?.pair.aggregate.poolId ?? '';
      await run(service, built, { ...s, steps: [{ kind: 'trade', pool: 0, factor: 1.02, dt: 60 }] }, false, 1.7e9, 'm');
      const asked = readStream(
        await service.request(STREAM_PATH, {
          ...streamInit([aggregate], { 'X-Stream-Extensions': 'rollback, metadata' }),
          key: service.keys.pro,
        }),
      );
      const spec = readStream(await service.request(STREAM_PATH, streamInit([aggregate])));
      expect(await asked.next()).toEqual({ s: 'ok' });
      expect(await spec.next()).toEqual({ s: 'ok' });
      const { ingestor } = runtimeInternals(service.runtime);
      const [t1] = built.tokens;
      if (!t1) throw new Error('no token');
      const history = `/api/v1/history?symbol=${aggregate}&resolution=1min&from=0&to=2000000000&include_tvl=true`;
      const before = (await service.getJson(history)) as { c: number[] };
      ingestor.updateToken(t1, { ticker: t1.ticker, name: t1.name, decimals: t1.decimals + 2 });
      await ingestor.commit();
      expect(await asked.next(5_000)).toEqual({ s: 'metadata', version: 1, units: [t1.unit] });
      // The bars cached before the change are not served again: in whole units of the new decimals (a whole
      // token is 100 times more raw units: 100 times the ADA).
      const after = (await service.getJson(history)) as { c: number[] };
      expect(after.c).toHaveLength(before.c.length);
      after.c.forEach((c, i) => expect(c / (before.c[i] ?? NaN)).toBeCloseTo(100, 9));
      expect(spec.drainBuffered()).toEqual([]);
      await asked.cancel();
      await spec.cancel();
    } finally {
      await service.close();
    }
  });
});

describe('decimals and tickers that arrive late or change, on PostgreSQL', () => {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => pg?.destroy());

  const count = Math.max(1, Math.round(SCENARIOS / 10));
  it(
    `answer as a store that knew them first, in ${count} seeded scenarios (after SQLite's)`,
    { timeout: 900_000 },
    async () => {
      if (!pg) throw new Error('PostgreSQL did not start');
      const known = await pg.createDatabase('late_known');
      const late = await pg.createDatabase('late_learning');
      expect(await compareScenarios(SCENARIOS, count, { DATABASE_URL: known }, { DATABASE_URL: late })).toBeGreaterThan(
        count / 2,
      );
    },
  );
});
