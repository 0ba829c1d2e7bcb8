import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { poolPrice, poolTvl } from '../../src/service/market/model';
import { openMarket } from '../../src/service/runtime';
import { fixtureTx, type FixtureOutput } from './chain-fixtures';

/** A fixture pool as the market holds it after the chain source first saw it. */
export interface IngestedPool {
  readonly group: string;
  /** Units of the pool's pair: base (ADA when one side is ADA) and quote. */
  readonly base: string;
  readonly quote: string;
  /** Raw reserves, oriented base / quote. */
  readonly baseReserve: number;
  readonly quoteReserve: number;
  /** Whole base units per whole quote unit, and TVL in whole base units (market/model.ts). */
  readonly price: number;
  readonly tvl: number;
}

/**
 * Feeds real fixture outputs through the chain source's write path (ChainIngest on a real store in a
 * temporary directory, one block per output, no token registry: tokens have 0 decimals, ADA 6) and
 * returns each pool as the market then holds it, by pool ID.
 */
export async function ingestFixtureOutputs(outputs: readonly FixtureOutput[]): Promise<Map<string, IngestedPool>> {
  const dir = mkdtempSync(join(tmpdir(), 'chain-fixture-'));
  const handle = await openMarket(dir, 'test');
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    for (const [i, raw] of outputs.entries()) {
      const report = await ingest.applyBlock({ slot: 1_000 + i, id: i.toString(16).padStart(64, '0'), height: i + 1, transactions: [fixtureTx(raw)] });
      if (report.skipped !== undefined) throw new Error(`fixture ${raw.tx}#${raw.index} skipped: ${report.skipped}`);
    }
    const pools = new Map<string, IngestedPool>();
    for (const [poolId, pool] of handle.ingestor.market.pools) {
      if (pool.group === 'Aggregate') continue;
      pools.set(poolId, {
        group: pool.group,
        base: pool.pair.base.unit,
        quote: pool.pair.quote.unit,
        baseReserve: pool.baseReserve,
        quoteReserve: pool.quoteReserve,
        price: poolPrice(pool),
        tvl: poolTvl(pool),
      });
    }
    return pools;
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
