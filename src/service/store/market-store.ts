import { AGGREGATE_GROUP, isGroupName, type GroupName } from '../../shared/groups';
import { aggregatePoolId } from '../market/generate';
import {
  LOGO_NONE,
  Market,
  pairKey,
  sumAggregate,
  type LogoKind,
  type Pair,
  type Pool,
  type Token,
} from '../market/model';
import type { Db } from './database';

/** Persistence of tokens, pairs and pools (the market's structure and current reserves). */

interface TokenRow {
  id: number;
  unit: string;
  ticker: string;
  name: string;
  decimals: number;
  logo_kind: number;
}

interface PairRow {
  id: number;
  base: number;
  quote: number;
}

interface PoolRow {
  id: number;
  pool_id: string;
  grp: string;
  pair_id: number;
  n: number;
  fee_bps: number;
  base_reserve: number;
  quote_reserve: number;
  simulated: number;
}

export interface NewToken {
  readonly unit: string;
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
  readonly logoKind: LogoKind;
}

export interface NewPool {
  readonly poolId: string;
  readonly group: Exclude<GroupName, typeof AGGREGATE_GROUP>;
  readonly baseReserve: number;
  readonly quoteReserve: number;
  readonly feeBps: number;
  readonly simulated: boolean;
}

export class MarketStore {
  private readonly insertTokenStmt;
  private readonly insertPairStmt;
  private readonly insertPoolStmt;
  private readonly updateReservesStmt;
  private readonly updateTokenStmt;
  private readonly setLogoStmt;
  private readonly getLogoStmt;

  constructor(private readonly db: Db) {
    this.insertTokenStmt = db.prepare(
      'INSERT INTO tokens (unit, ticker, name, decimals, logo_kind) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertPairStmt = db.prepare('INSERT INTO pairs (base, quote) VALUES (?, ?)');
    this.insertPoolStmt = db.prepare(
      'INSERT INTO pools (pool_id, grp, pair_id, n, fee_bps, base_reserve, quote_reserve, simulated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateReservesStmt = db.prepare('UPDATE pools SET base_reserve = ?, quote_reserve = ? WHERE id = ?');
    this.updateTokenStmt = db.prepare('UPDATE tokens SET ticker = ?, name = ?, decimals = ? WHERE id = ?');
    this.setLogoStmt = db.prepare('UPDATE tokens SET logo_kind = ?, logo_png = ? WHERE id = ?');
    this.getLogoStmt = db.prepare<[number], { logo_png: Buffer | null }>('SELECT logo_png FROM tokens WHERE id = ?');
  }

  /** Reads the whole market into memory. */
  load(): Market {
    const market = new Market();
    for (const row of this.db.prepare<[], TokenRow>('SELECT id, unit, ticker, name, decimals, logo_kind FROM tokens ORDER BY id').all()) {
      market.addToken({ ...row, logoKind: row.logo_kind as LogoKind });
    }
    const pairsById = new Map<number, Pair>();
    const pendingAggregates = new Map<number, PoolRow>();
    for (const row of this.db.prepare<[], PairRow>('SELECT id, base, quote FROM pairs ORDER BY id').all()) {
      const base = market.tokensById.get(row.base);
      const quote = market.tokensById.get(row.quote);
      if (!base || !quote) throw new Error(`pair ${row.id} refers to a missing token`);
      pairsById.set(row.id, { id: row.id, base, quote, pools: [], aggregate: undefined as unknown as Pool });
    }
    for (const row of this.db.prepare<[], PoolRow>('SELECT * FROM pools ORDER BY id').all()) {
      const pair = pairsById.get(row.pair_id);
      if (!pair) throw new Error(`pool ${row.pool_id} refers to a missing pair`);
      if (row.grp === AGGREGATE_GROUP) {
        pendingAggregates.set(row.pair_id, row);
        continue;
      }
      if (!isGroupName(row.grp)) throw new Error(`pool ${row.pool_id} has an unknown group ${row.grp}`);
      market.addPool(toPool(row, pair));
    }
    for (const pair of pairsById.values()) {
      const row = pendingAggregates.get(pair.id);
      if (!row) throw new Error(`pair ${pair.id} has no Aggregate pool`);
      pair.aggregate = toPool(row, pair);
      market.addPair(pair);
      // The Aggregate's own columns are a convenience copy; the sums are the truth.
      sumAggregate(pair);
    }
    return market;
  }

  insertToken(market: Market, token: NewToken): Token {
    const info = this.insertTokenStmt.run(token.unit, token.ticker, token.name, token.decimals, token.logoKind);
    const created: Token = { id: Number(info.lastInsertRowid), ...token };
    market.addToken(created);
    return created;
  }

  updateToken(market: Market, token: Token, changes: Pick<Token, 'ticker' | 'name' | 'decimals'>): void {
    this.updateTokenStmt.run(changes.ticker, changes.name, changes.decimals, token.id);
    token.ticker = changes.ticker;
    token.name = changes.name;
    token.decimals = changes.decimals;
    market.touch();
  }

  setLogo(token: Token, kind: LogoKind, png: Buffer | null): void {
    this.setLogoStmt.run(kind, kind === LOGO_NONE ? null : png, token.id);
    token.logoKind = kind;
  }

  storedLogo(token: Token): Buffer | null {
    return this.getLogoStmt.get(token.id)?.logo_png ?? null;
  }

  /** The pair of two tokens, created with its Aggregate pool when new. */
  ensurePair(market: Market, base: Token, quote: Token): Pair {
    const existing = market.pairs.get(pairKey(base.unit, quote.unit));
    if (existing) return existing;
    const info = this.insertPairStmt.run(base.id, quote.id);
    const pair: Pair = { id: Number(info.lastInsertRowid), base, quote, pools: [], aggregate: undefined as unknown as Pool };
    const aggregateId = aggregatePoolId(base.unit, quote.unit);
    const poolInfo = this.insertPoolStmt.run(aggregateId, AGGREGATE_GROUP, pair.id, 1, 0, 0, 0, 0);
    pair.aggregate = {
      id: Number(poolInfo.lastInsertRowid),
      poolId: aggregateId,
      group: AGGREGATE_GROUP,
      pair,
      n: 1,
      feeBps: 0,
      baseReserve: 0,
      quoteReserve: 0,
      simulated: false,
    };
    market.addPair(pair);
    return pair;
  }

  /** Adds a DEX pool to a pair; its n is the next free number of the pair in that group. */
  insertPool(market: Market, pair: Pair, pool: NewPool): Pool {
    const n = pair.pools.filter((p) => p.group === pool.group).length + 1;
    const info = this.insertPoolStmt.run(
      pool.poolId,
      pool.group,
      pair.id,
      n,
      pool.feeBps,
      pool.baseReserve,
      pool.quoteReserve,
      pool.simulated ? 1 : 0,
    );
    const created: Pool = {
      id: Number(info.lastInsertRowid),
      poolId: pool.poolId,
      group: pool.group,
      pair,
      n,
      feeBps: pool.feeBps,
      baseReserve: pool.baseReserve,
      quoteReserve: pool.quoteReserve,
      simulated: pool.simulated,
    };
    market.addPool(created);
    sumAggregate(pair);
    this.saveReserves(pair.aggregate);
    return created;
  }

  saveReserves(pool: Pool): void {
    this.updateReservesStmt.run(pool.baseReserve, pool.quoteReserve, pool.id);
  }

  getMeta(key: string): string | undefined {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}

function toPool(row: PoolRow, pair: Pair): Pool {
  return {
    id: row.id,
    poolId: row.pool_id,
    group: row.grp as GroupName,
    pair,
    n: row.n,
    feeBps: row.fee_bps,
    baseReserve: row.base_reserve,
    quoteReserve: row.quote_reserve,
    simulated: row.simulated === 1,
  };
}
