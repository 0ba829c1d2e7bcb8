import { AGGREGATE_GROUP, isGroupName, type GroupName } from '../../shared/groups';
import type { MarketRows, PoolRow } from '../store/ports';
import { Market, sumAggregate, type LogoKind, type Pair, type Pool } from './model';

/** Builds the in-memory market from the store's rows (pairs get their Aggregate pool; Aggregates are re-summed). */
export function buildMarket(rows: MarketRows): Market {
  const market = new Market();
  for (const row of rows.tokens) market.addToken({ ...row, logoKind: row.logoKind as LogoKind });
  for (const record of rows.identities ?? []) market.setIdentity(record.unit, record.source, record);
  const pairsById = new Map<number, Pair>();
  const aggregates = new Map<number, PoolRow>();
  for (const row of rows.pairs) {
    const base = market.tokensById.get(row.base);
    const quote = market.tokensById.get(row.quote);
    if (!base || !quote) throw new Error(`pair ${row.id} refers to a missing token`);
    pairsById.set(row.id, { id: row.id, base, quote, pools: [], aggregate: undefined as unknown as Pool });
  }
  for (const row of rows.pools) {
    const pair = pairsById.get(row.pairId);
    if (!pair) throw new Error(`pool ${row.poolId} refers to a missing pair`);
    if (row.group === AGGREGATE_GROUP) {
      aggregates.set(row.pairId, row);
      continue;
    }
    if (!isGroupName(row.group)) throw new Error(`pool ${row.poolId} has an unknown group ${row.group}`);
    market.addPool(toPool(row, pair));
  }
  for (const pair of pairsById.values()) {
    const row = aggregates.get(pair.id);
    if (!row) throw new Error(`pair ${pair.id} has no Aggregate pool`);
    pair.aggregate = toPool(row, pair);
    market.addPair(pair);
    // The Aggregate's own columns are a convenience copy; the sums are the truth.
    sumAggregate(pair);
  }
  return market;
}

function toPool(row: PoolRow, pair: Pair): Pool {
  return {
    id: row.id,
    poolId: row.poolId,
    group: row.group as GroupName,
    pair,
    n: row.n,
    feeBps: row.feeBps,
    baseReserve: row.baseReserve,
    quoteReserve: row.quoteReserve,
    simulated: row.simulated,
  };
}
