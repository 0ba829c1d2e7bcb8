import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decoder, Encoder, Tag } from 'cbor-x';
import type { ChainBlock } from '../../src/service/chain/block';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { poolPrice, poolTvl, type Pool } from '../../src/service/market/model';
import { openMarket } from '../../src/service/open-market';
import { fixtureTx, type FixtureOutput } from './chain-fixtures';

/** A fixture pool as a fresh chain market holds it, with the model's price and TVL. */
export interface MarketPool {
  readonly pool: Pool;
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
 * Real fixture outputs through the chain source's write path: ChainIngest on a real store in a
 * temporary directory, one block per output in the order given (a pool's later outputs are its later
 * states), no token registry (tokens have decimals 0, ADA 6; ADA is the base when one side is ADA).
 * Returns each DEX pool as the market then holds it, by pool ID; an output that is skipped or cannot
 * be decoded fails.
 */
export async function marketPools(outputs: readonly FixtureOutput[]): Promise<Map<string, MarketPool>> {
  const dir = mkdtempSync(join(tmpdir(), 'fixture-market-'));
  const handle = await openMarket(dir, 'test');
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    for (const [i, raw] of outputs.entries()) {
      const block: ChainBlock = {
        slot: 160_000_000 + i,
        id: (i + 1).toString(16).padStart(64, '0'),
        height: i + 1,
        transactions: [fixtureTx(raw)],
      };
      const report = await ingest.applyBlock(block);
      if (report.skipped || report.undecodable > 0)
        throw new Error(`fixture ${raw.tx}#${raw.index}: ${report.skipped ?? 'could not be decoded'}`);
    }
    const pools = new Map<string, MarketPool>();
    for (const pool of handle.ingestor.market.pools.values()) {
      if (pool.group === 'Aggregate') continue;
      pools.set(pool.poolId, {
        pool,
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

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
const encoder = new Encoder({ useRecords: false });

/**
 * A fixture output whose inline datum is rewritten: `edit` gets the datum's constructor tag and
 * fields and returns the new ones (for the damaged-datum tests: a wrong constructor, a missing field).
 */
export function withDatum(
  raw: FixtureOutput,
  edit: (tag: number, fields: unknown[]) => [number, unknown[]],
): FixtureOutput {
  if (raw.datum === undefined) throw new Error('fixture output has no inline datum');
  const datum = decoder.decode(Buffer.from(raw.datum, 'hex')) as Tag;
  const [tag, fields] = edit(datum.tag, [...(datum.value as unknown[])]);
  return { ...raw, datum: Buffer.from(encoder.encode(new Tag(fields, tag))).toString('hex') };
}
