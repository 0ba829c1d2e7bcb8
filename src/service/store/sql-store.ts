import type { Engine } from './program';
import type { CommitBatch, Store } from './ports';
import { SqlBarStore, SqlKeyStore, SqlMarketStore, SqlSimStateStore, SqlTradeStore } from './reads';
import { commitPlan } from './rules';

/**
 * A store on an SQL engine: every port of ports.ts, its reads (reads.ts) and its one write path
 * (`commit`, the commit plan of rules.ts) written once; an engine (sqlite/engine.ts,
 * postgres/engine.ts) runs them. What differs by engine beyond SQL (bulk mode, the bulk load, the
 * writer lock, ping, close) is the engine's store's (sqlite/store.ts, postgres/store.ts).
 */
export abstract class SqlStore implements Store {
  readonly market: SqlMarketStore;
  readonly trades: SqlTradeStore;
  readonly bars: SqlBarStore;
  readonly keys: SqlKeyStore;
  readonly sim: SqlSimStateStore;

  protected constructor(protected readonly engine: Engine) {
    this.market = new SqlMarketStore(engine);
    this.trades = new SqlTradeStore(engine);
    this.bars = new SqlBarStore(engine);
    this.keys = new SqlKeyStore(engine);
    this.sim = new SqlSimStateStore(engine);
  }

  /** Applies a batch in one transaction: all of it or (on any error, rethrown) none of it. */
  commit(batch: CommitBatch): Promise<void> {
    return this.engine.transaction(commitPlan(batch));
  }

  abstract setBulkMode(bulk: boolean): Promise<void>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
