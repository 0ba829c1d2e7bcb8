import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decoder, Encoder, Tag } from 'cbor-x';
import type { ChainBlock } from '../../src/service/chain/block';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { poolPrice, poolTvl, type Pool } from '../../src/service/market/model';
import { openMarket } from '../../src/service/runtime';
import { fixtureTx, type FixtureOutput } from './chain-fixtures';

/** A pool as a fresh chain market holds it: the model's price (whole base per whole quote) and TVL (whole base). */
export interface MarketPool {
  readonly pool: Pool;
  readonly price: number;
  readonly tvl: number;
}

/**
 * The pools a fresh chain market creates from real pool outputs: each output the only one of its
 * transaction, all in one block, applied by ChainIngest to a real store in a temporary directory.
 * Tokens other than ADA have decimals 0 there (no registry import), so a price is ADA per raw token
 * unit; ADA is the base when one side is ADA (chain-ingest.ts).
 */
export async function marketPools(outputs: readonly FixtureOutput[]): Promise<Map<string, MarketPool>> {
  const dir = mkdtempSync(join(tmpdir(), 'fixture-market-'));
  const handle = await openMarket(dir, 'test');
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const block: ChainBlock = { slot: 160_000_000, id: 'ab'.repeat(32), height: 1, transactions: outputs.map(fixtureTx) };
    const report = await ingest.applyBlock(block);
    if (report.skipped || report.undecodable > 0) throw new Error(`fixture block: ${report.skipped ?? `${report.undecodable} pool output(s) could not be decoded`}`);
    const pools = new Map<string, MarketPool>();
    for (const pool of handle.ingestor.market.pools.values()) pools.set(pool.poolId, { pool, price: poolPrice(pool), tvl: poolTvl(pool) });
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
export function withDatum(raw: FixtureOutput, edit: (tag: number, fields: unknown[]) => [number, unknown[]]): FixtureOutput {
  if (raw.datum === undefined) throw new Error('fixture output has no inline datum');
  const datum = decoder.decode(Buffer.from(raw.datum, 'hex')) as Tag;
  const [tag, fields] = edit(datum.tag, [...(datum.value as unknown[])]);
  return { ...raw, datum: Buffer.from(encoder.encode(new Tag(fields, tag))).toString('hex') };
}
