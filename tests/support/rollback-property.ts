import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slotTime } from '../../src/service/chain/block';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { fromOgmiosBlock } from '../../src/service/chain/ogmios-block';
import { parseServiceConfig } from '../../src/service/config';
import { aggregatePoolId } from '../../src/service/market/generate';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { FORK_PAIRS, FORK_POOL_IDS, FORK_TOKEN_UNITS, ForkChain } from './fork-chain';
import { runtimeInternals } from '../../src/service/runtime-internals';

/**
 * The chain source's rollback property (issue 25): after any sequence of roll-forwards and
 * roll-backwards, the store (trades, bars at every resolution, pools, pairs, tokens, reserves, the
 * Aggregates, LP supplies, the journal, the next row ids) and every answer of /history,
 * /tokens/current and symbol_info equal those of a fresh store that ingested only the final chain.
 * Each scenario drives a real service runtime (source `none`, its caches warmed by queries between
 * steps) through the real ChainIngest and Ingestor over a random fork tree (tests/support/fork-chain),
 * then compares it with a second runtime fed the final branch. Used by the vitest suite (a seeded
 * sample on SQLite and PostgreSQL) and the soak run (many more).
 */

const KEY = 'rollback-property-key-0001';

export interface PropertySide {
  readonly runtime: ServiceRuntime;
  readonly ingest: ChainIngest;
  close(): Promise<void>;
}

/** Opens an empty market for one side of a scenario (a SQLite temp directory, or a PostgreSQL database). */
export type OpenSide = (name: string, nowMs: number) => Promise<PropertySide>;

/** Temp directories in memory where the machine has one: a scenario commits hundreds of times, each an fsync on disk. */
const TEMP = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

export const openSqliteSide: OpenSide = async (name, nowMs) => {
  const dir = mkdtempSync(join(TEMP, `rollback-${name}-`));
  try {
    return await openSide({ 'data-dir': dir, source: 'none', 'store-check': 'off' }, {}, nowMs, () =>
      rmSync(dir, { recursive: true, force: true }),
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
};

/** A side on a fresh PostgreSQL database made by `createDatabase` (the data directory only holds the lock). */
export function postgresSide(createDatabase: (name: string) => Promise<string>): OpenSide {
  let n = 0;
  return async (name, nowMs) => {
    const url = await createDatabase(`rb_${name.replace(/\W/g, '_')}_${++n}`);
    const dir = mkdtempSync(join(TEMP, `rollback-${name}-`));
    return openSide({ 'data-dir': dir, source: 'none' }, { DATABASE_URL: url }, nowMs, () =>
      rmSync(dir, { recursive: true, force: true }),
    );
  };
}

async function openSide(
  flags: Record<string, string>,
  env: Record<string, string>,
  nowMs: number,
  dispose: () => void,
): Promise<PropertySide> {
  const runtime = await createServiceRuntime(
    parseServiceConfig(flags, { TOKEN_API_KEYS: `${KEY}:enterprise`, ...env }),
    { nowMs: () => nowMs },
  );
  try {
    const ingest = await ChainIngest.open(runtimeInternals(runtime).ingestor, runtimeInternals(runtime).store.market);
    return {
      runtime,
      ingest,
      close: async () => {
        await runtime.close();
        dispose();
      },
    };
  } catch (error) {
    await runtime.close();
    dispose();
    throw error;
  }
}

/** What must be equal: the store's contents and the answers. */
async function snapshot(side: PropertySide, finalChainEmpty: boolean): Promise<Record<string, unknown>> {
  const { store } = runtimeInternals(side.runtime);
  const tip = await store.market.meta('chain:tip');
  return {
    rows: await store.market.load(),
    trades: (await store.trades.list()).map(({ seq: _seq, ...trade }) => trade),
    bars: await store.bars.all(),
    lp: [...(await store.market.chainLp())].sort((a, b) => a[0] - b[0]),
    journal: await store.market.journal(),
    ids: await store.market.nextIds(),
    // A fresh store that ingested nothing has no tip; a rolled-back one keeps the start point.
    tip: finalChainEmpty ? undefined : tip,
    market: {
      pools: [...side.runtime.market.pools.values()].map((p) => [
        p.id,
        p.poolId,
        p.group,
        p.n,
        p.baseReserve,
        p.quoteReserve,
        p.pair.id,
      ]),
      tokens: [...side.runtime.market.tokens.values()].map((t) => [t.id, t.unit, t.ticker, t.name, t.decimals]),
      identities: [...side.runtime.market.identities.values()].flatMap((bySource) => [...bySource.values()]),
    },
  };
}

/** Every pool ID (DEX and Aggregate) the generator can make, and its token units: the paths to ask. */
function paths(from: number, to: number): string[] {
  const pools = [...FORK_POOL_IDS, ...FORK_PAIRS.map(([base, quote]) => aggregatePoolId(base, quote))];
  const list = [
    '/api/v1/symbol_info',
    '/api/v1/symbol_info?group=Aggregate',
    '/api/v1/symbol_info?group=MinswapV2',
    '/api/v1/symbol_info?group=WingRiders',
  ];
  for (const pool of pools) {
    list.push(`/api/v1/tokens/current?pool=${pool}`);
    // Every resolution's bars are compared in the store (bars.all()); the answers check the finest and coarsest through the cache.
    for (const resolution of ['1min', '1d'] as const)
      list.push(`/api/v1/history?symbol=${pool}&resolution=${resolution}&from=${from}&to=${to}&include_tvl=true`);
  }
  for (const unit of FORK_TOKEN_UNITS) list.push(`/api/v1/tokens/current?policy=${unit}`, `/api/x/token-info/${unit}`);
  return list;
}

async function answers(side: PropertySide, list: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of list) {
    const response = await side.runtime.app.request(path, { headers: { Authorization: `Bearer ${KEY}` } });
    out[path] = `${response.status} ${await response.text()}`;
  }
  return out;
}

export interface ScenarioResult {
  readonly ours: Record<string, unknown>;
  readonly fresh: Record<string, unknown>;
  readonly blocks: number;
  readonly rollbacks: number;
  readonly deepest: number;
  /** Reference NFT outputs (a CIP-68 token's metadata) among the blocks made. */
  readonly references: number;
}

/**
 * One seeded scenario: random steps (blocks forward, live or in batches; one to three rollbacks in a
 * row of 1 to 50 blocks or to the start point; queries that warm the caches), then the final chain
 * into a fresh side. Returns both sides' snapshots and answers for the caller to compare.
 */
export async function runScenario(seed: number, open: OpenSide): Promise<ScenarioResult> {
  const chain = new ForkChain(seed);
  const from = slotTime(chain.start.slot) - 86_400;
  const to = slotTime(chain.start.slot) + 400_000;
  const nowMs = (slotTime(chain.start.slot) + 50_000) * 1000;
  const asked = paths(from, to);
  let blocks = 0;
  let rollbacks = 0;
  let deepest = 0;
  const ours = await open(`ours-${seed}`, nowMs);
  // The chain's start is the journal's base: the deepest point a rollback may go to (issue 45).
  ours.ingest.startAt(chain.start);
  try {
    const steps = chain.int(4, 12);
    for (let step = 0; step < steps; step++) {
      const kind = chain.length === 0 ? 0 : chain.int(0, 9);
      if (kind <= 4) {
        const made = chain.forward(chain.int(0, 3) === 0 ? chain.int(20, 60) : chain.int(1, 12));
        blocks += made.length;
        const batched = chain.int(0, 2) === 0;
        for (const block of made) {
          await ours.ingest.applyBlock(fromOgmiosBlock(block), { commit: !batched });
          if (batched && chain.int(0, 5) === 0) await ours.ingest.flush();
        }
        // A batch is sometimes still pending when the next rollback comes.
        if (batched && chain.int(0, 1) === 0) await ours.ingest.flush();
      } else if (kind <= 8) {
        for (let n = chain.int(1, 3); n > 0 && chain.length > 0; n--) {
          const depth = chain.int(0, 4) === 0 ? chain.length : chain.int(1, Math.min(50, chain.length));
          const point = chain.back(depth);
          await ours.ingest.rollBackTo(point);
          rollbacks++;
          deepest = Math.max(deepest, depth);
        }
      } else {
        await answers(
          ours,
          asked.filter(() => chain.int(0, 3) === 0),
        );
      }
    }
    await ours.ingest.flush();
    const finalChain = chain.blocks;
    const fresh = await open(`fresh-${seed}`, nowMs);
    fresh.ingest.startAt(chain.start);
    try {
      for (const block of finalChain) await fresh.ingest.applyBlock(fromOgmiosBlock(block));
      return {
        ours: { ...(await snapshot(ours, finalChain.length === 0)), answers: await answers(ours, asked) },
        fresh: { ...(await snapshot(fresh, finalChain.length === 0)), answers: await answers(fresh, asked) },
        blocks,
        rollbacks,
        deepest,
        references: chain.references,
      };
    } finally {
      await fresh.close();
    }
  } finally {
    await ours.close();
  }
}
