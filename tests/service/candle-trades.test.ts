import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradesResponseSchema } from '../../src/shared/api/extensions';
import { historyResponseSchema } from '../../src/shared/api/history';
import { candleOfTrades, tradesOfCandle } from '../../src/shared/candle-trades';
import { RESOLUTIONS } from '../../src/shared/resolutions';
import { importTrades } from '../../src/service/importers/trades';
import { poolOutputs } from '../../src/service/chain/dexes';
import { openMarket } from '../../src/service/open-market';
import { runtimeInternals } from '../../src/service/runtime-internals';
import { hasPrise, PRISE_DEX_GROUPS, priseSwaps, qualifiedTransactions, toChainTxs } from '../support/prise';
import { createTestService, type TestService } from '../support/service';

/**
 * Every candle traced to its trades, on a real imported pair: ADA/INDY from prise's mainnet data
 * (../shared/data/prise, read at test time). Imported with the trades importer (`npm run import:trades`'s
 * code), served by the service with `--source none`; for every bar of each pool and of the Aggregate at
 * every resolution, the trades the app lists for it (tradesOfCandle over /api/x/trades) make that very
 * bar (candleOfTrades), as /api/v1/history serves it.
 *
 * The trades: Minswap V2's real pool states (prise's resolved transactions decoded by our decoders:
 * price and TVL from the reserves before and after), and the swaps prise computed on Minswap, SundaeSwap
 * and WingRiders (one trade per executed order, priced at its own amounts; prise's swaps carry no
 * reserves, so these pools' TVL is a constant of this test, 2 × 1,000,000 ADA: it weighs them in the
 * Aggregate and shows in the TVL column, and takes no part in a DEX pool's prices or volumes).
 */

const INDY = '533bb94a8850ee3ccbe483106489399112b74c905342cb1792a797a0494e4459';
/** Mainnet: Unix seconds = slot + this, from the Shelley era on (prise's README). */
const SHELLEY_OFFSET = 1_591_566_291;
/** INDY has 6 decimals, as ADA (the Cardano token registry's entry): raw ratios are whole-unit prices. */
const SWAP_POOL_TVL = 2_000_000;

interface Line {
  readonly id: string;
  readonly block_time: number;
  readonly pool_id: string;
  readonly previous_price: number;
  readonly current_price: number;
  readonly previous_tvl: number;
  readonly current_tvl: number;
  readonly volume: number;
}

/** Pool lines and trade lines of ADA/INDY from prise's data. */
function indyLines(): { pools: Map<string, string>; trades: Line[] } {
  const pools = new Map<string, string>();
  const trades: Line[] = [];
  // Minswap V2: real reserves before and after each transaction.
  for (const tx of qualifiedTransactions().values()) {
    const { outputs, inputs } = toChainTxs(tx);
    const spent = poolOutputs(inputs);
    for (const out of poolOutputs(outputs)) {
      if (!('state' in out) || out.state.assetA !== '' || out.state.assetB !== INDY) continue;
      const before = spent.find((i) => 'state' in i && i.state.poolId === out.state.poolId);
      if (!before || !('state' in before)) continue;
      const [b, a] = [before.state, out.state];
      pools.set(a.poolId, a.group);
      trades.push({
        id: `${tx.txHash}#${out.index}`,
        block_time: tx.blockSlot + SHELLEY_OFFSET,
        pool_id: a.poolId,
        previous_price: Number(b.reserveA) / Number(b.reserveB),
        current_price: Number(a.reserveA) / Number(a.reserveB),
        previous_tvl: (2 * Number(b.reserveA)) / 1e6,
        current_tvl: (2 * Number(a.reserveA)) / 1e6,
        volume: Math.abs(Number(a.reserveA - b.reserveA)) / 1e6,
      });
    }
  }
  // prise's swaps on the other DEXes: one result file per transaction (the files disagree on some).
  const swaps: { id: string; time: number; group: string; price: number; ada: number }[] = [];
  for (const [hash, files] of priseSwaps()) {
    const [first] = [...files.values()]
      .map((list) => list.filter((s) => s.asset1Unit === '' && s.asset2Unit === INDY && s.amount2 > 0n))
      .filter((list) => list.length > 0);
    for (const [i, s] of (first ?? []).entries()) {
      const group = PRISE_DEX_GROUPS[s.dex];
      if (!group || group === 'MinswapV2') continue;
      swaps.push({
        id: `${hash}#${i}`,
        time: s.slot + SHELLEY_OFFSET,
        group,
        price: Number(s.amount1) / Number(s.amount2),
        ada: Number(s.amount1) / 1e6,
      });
    }
  }
  swaps.sort((a, b) => a.time - b.time || a.id.localeCompare(b.id));
  const last = new Map<string, number>();
  for (const s of swaps) {
    const poolId = Buffer.from(`prise ${s.group} ADA/INDY`).toString('hex');
    pools.set(poolId, s.group);
    trades.push({
      id: s.id,
      block_time: s.time,
      pool_id: poolId,
      previous_price: last.get(poolId) ?? s.price,
      current_price: s.price,
      previous_tvl: SWAP_POOL_TVL,
      current_tvl: SWAP_POOL_TVL,
      volume: s.ada,
    });
    last.set(poolId, s.price);
  }
  return { pools, trades };
}

let root: string;
let service: TestService;
let pools: Map<string, string>;
let tradeCount = 0;

beforeAll(async () => {
  if (!hasPrise) return;
  root = mkdtempSync(join(tmpdir(), 'candle-trades-'));
  const dataDir = join(root, 'data');
  const lines = indyLines();
  pools = lines.pools;
  tradeCount = lines.trades.length;
  const file = join(root, 'indy.jsonl');
  writeFileSync(
    file,
    [
      { kind: 'token', unit: INDY, ticker: 'INDY', name: 'Indigo DAO Token', decimals: 6 },
      ...[...pools].map(([pool_id, group]) => ({ kind: 'pool', pool_id, group, base: '', quote: INDY })),
      ...lines.trades,
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  const handle = await openMarket(dataDir, 'test');
  try {
    const report = await importTrades(handle, file);
    expect(report).toMatchObject({ trades: tradeCount, errorCount: 0 });
  } finally {
    await handle.close();
  }
  service = await createTestService({ dataDir, env: { SOURCE: 'none' } });
}, 60_000);

afterAll(async () => {
  await service?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!hasPrise)('every candle traced to its trades (ADA/INDY from prise, imported)', () => {
  it('lists, for every bar of every pool and of the Aggregate at every resolution, trades that make that bar', async () => {
    expect(pools.size).toBeGreaterThanOrEqual(3);
    expect(tradeCount).toBeGreaterThan(40);
    const aggregate = service.runtime.market.pools.get([...pools.keys()][0] ?? '')?.pair.aggregate;
    if (!aggregate) throw new Error('no Aggregate');
    const page = async (query: { pool: string; before: string; limit: number }) =>
      tradesResponseSchema.parse(
        await service.getJson(`/api/x/trades?pool=${query.pool}&before=${query.before}&limit=${query.limit}`),
      );
    let checked = 0;
    for (const pool of [aggregate.poolId, ...pools.keys()]) {
      for (const resolution of RESOLUTIONS) {
        const history = historyResponseSchema.parse(
          await service.getJson(
            `/api/v1/history?symbol=${pool}&resolution=${resolution}&from=0&to=${2 ** 31}&include_tvl=true`,
          ),
        );
        expect(history.t.length, `${pool} ${resolution}`).toBeGreaterThan(0);
        let listed = 0;
        for (const [i, time] of history.t.entries()) {
          const { trades, cut } = await tradesOfCandle(page, pool, time, resolution);
          expect(cut).toBe(false);
          listed += trades.length;
          const candle = candleOfTrades(trades, resolution);
          const where = `${pool.slice(0, 12)} ${resolution} bar ${time}`;
          expect(candle, where).toBeDefined();
          expect(candle?.time, where).toBe(time);
          expect(candle?.open, where).toBeCloseTo(history.o[i] ?? NaN, 12);
          expect(candle?.high, where).toBeCloseTo(history.h[i] ?? NaN, 12);
          expect(candle?.low, where).toBeCloseTo(history.l[i] ?? NaN, 12);
          expect(candle?.close, where).toBeCloseTo(history.c[i] ?? NaN, 12);
          expect(candle?.volume, where).toBe(history.v[i]);
          expect(candle?.tvl, where).toBeCloseTo(history.tvl?.[i] ?? NaN, 6);
          checked++;
        }
        // Every trade of the pool is in exactly one candle's list.
        const own =
          pool === aggregate.poolId
            ? tradeCount
            : (
                await runtimeInternals(service.runtime).store.trades.list({
                  pool: service.runtime.market.pools.get(pool)?.id ?? -1,
                })
              ).length;
        expect(listed, `${pool} ${resolution}`).toBe(own);
      }
    }
    expect(checked).toBeGreaterThan(100);
  }, 60_000);

  it('gives the Aggregate’s own columns with an Aggregate’s trades, and none with a DEX pool’s', async () => {
    const dex = [...pools.keys()][0] ?? '';
    const aggregate = service.runtime.market.pools.get(dex)?.pair.aggregate.poolId ?? '';
    const ofAggregate = tradesResponseSchema.parse(await service.getJson(`/api/x/trades?pool=${aggregate}&limit=5`));
    const ofDex = tradesResponseSchema.parse(await service.getJson(`/api/x/trades?pool=${dex}&limit=5`));
    expect(ofAggregate.trades.every((t) => t.aggregate !== undefined && t.aggregate.price > 0)).toBe(true);
    expect(ofDex.trades.every((t) => t.aggregate === undefined)).toBe(true);
  });
});
