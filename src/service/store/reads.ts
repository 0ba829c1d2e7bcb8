import { RESOLUTION_SECONDS, type Resolution } from '../../shared/resolutions';
import { all, get, IdList, run, values, type Engine, type Program } from './program';
import {
  COMMIT_POSITION_META,
  type BarRow,
  type BarStore,
  type JournalRow,
  type KeyStore,
  type MarketRows,
  type MarketStore,
  type NextIds,
  type SimState,
  type SimStateStore,
  type StoredKey,
  type TradeRecord,
  type TradeStore,
  type WindowStats,
} from './ports';
import { rebuildBars } from './rules';
import { identityOf, journalRowOf, keyOf, maybeNum, num, poolOf, tokenOf, tradeOf } from './rows';
import * as S from './statements';

/**
 * The ports (ports.ts) but `Store.commit`, once for both engines: each method is a small program
 * (program.ts) its engine runs; an API key's write is one statement, its own transaction. Block times are whole seconds: a time from a clock (fractional) is
 * compared as the whole second before it, which every comparison here answers the same way.
 */

/** The market's rows and the commit position they include (run in one snapshot). */
function* readMarket(): Program<MarketRows> {
  const tokens = (yield* all(S.LOAD_TOKENS)).map(tokenOf);
  const pairs = (yield* all(S.LOAD_PAIRS)).map((r) => ({ id: num(r.id), base: num(r.base), quote: num(r.quote) }));
  const pools = (yield* all(S.LOAD_POOLS)).map(poolOf);
  const identities = (yield* all(S.LOAD_IDENTITIES)).map(identityOf);
  const position = (yield* get(S.META, [COMMIT_POSITION_META]))?.value;
  return {
    tokens,
    pairs,
    pools,
    ...(identities.length > 0 ? { identities } : {}),
    ...(position !== undefined ? { position: String(position) } : {}),
  };
}

export class SqlMarketStore implements MarketStore {
  constructor(private readonly engine: Engine) {}

  /** The market's rows and the commit position they include, in one snapshot however many commits land meanwhile. */
  load(): Promise<MarketRows> {
    return this.engine.snapshot(readMarket());
  }

  nextIds(): Promise<NextIds> {
    return this.engine.run(
      (function* () {
        const row = yield* get(S.NEXT_IDS);
        return { token: num(row?.token), pair: num(row?.pair), pool: num(row?.pool) };
      })(),
    );
  }

  logo(tokenId: number): Promise<Buffer | null> {
    return this.engine.run(
      (function* () {
        return ((yield* get(S.LOGO, [tokenId]))?.logo_png as Buffer | null | undefined) ?? null;
      })(),
    );
  }

  logoKey(tokenId: number): Promise<string | null> {
    return this.engine.run(
      (function* () {
        const key = (yield* get(S.LOGO_KEY, [tokenId]))?.logo_key;
        return typeof key === 'string' ? key : null;
      })(),
    );
  }

  meta(key: string): Promise<string | undefined> {
    return this.engine.run(
      (function* () {
        const row = yield* get(S.META, [key]);
        return row === undefined ? undefined : String(row.value);
      })(),
    );
  }

  journal(): Promise<JournalRow[]> {
    return this.engine.run(
      (function* () {
        return (yield* all(S.JOURNAL)).map(journalRowOf);
      })(),
    );
  }

  chainLp(): Promise<Map<number, bigint>> {
    return this.engine.run(
      (function* () {
        return new Map((yield* all(S.CHAIN_LP)).map((r) => [num(r.pool), BigInt(String(r.lp))]));
      })(),
    );
  }
}

export class SqlTradeStore implements TradeStore {
  constructor(private readonly engine: Engine) {}

  hasEvent(eventId: string): Promise<boolean> {
    return this.engine.run(
      (function* () {
        return (yield* get(S.HAS_EVENT, [eventId])) !== undefined;
      })(),
    );
  }

  lastTradeTime(series: number, aggregate: boolean): Promise<number | undefined> {
    return this.engine.run(
      (function* () {
        return maybeNum((yield* get(S.LAST_TRADE_TIME[S.sideOf(aggregate)], [series]))?.t);
      })(),
    );
  }

  stateAt(series: number, aggregate: boolean, time: number): Promise<{ price: number; tvl: number } | undefined> {
    const at = Math.floor(time);
    const side = S.sideOf(aggregate);
    return this.engine.run(
      (function* () {
        const row = (yield* get(S.STATE_BEFORE[side], [series, at])) ?? (yield* get(S.STATE_AFTER[side], [series, at]));
        return row === undefined ? undefined : { price: num(row.price), tvl: num(row.tvl) };
      })(),
    );
  }

  volumeSince(series: number, aggregate: boolean, since: number): Promise<number> {
    return this.engine.run(
      (function* () {
        return num((yield* get(S.VOLUME_SINCE[S.sideOf(aggregate)], [series, Math.floor(since)]))?.v ?? 0);
      })(),
    );
  }

  windowStats(series: readonly number[], aggregate: boolean, since: number): Promise<Map<number, WindowStats>> {
    const at = Math.floor(since);
    return this.engine.run(
      (function* () {
        const found = yield* all(S.WINDOW_STATS[S.sideOf(aggregate)], [at, at, at, new IdList(series)]);
        return new Map(found.map((r) => [num(r.series), { price: maybeNum(r.price), volume: num(r.volume) }]));
      })(),
    );
  }

  count(): Promise<number> {
    return this.engine.run(
      (function* () {
        return num((yield* get(S.COUNT_TRADES))?.n ?? 0);
      })(),
    );
  }

  list(
    filter: { readonly pool?: number; readonly agg?: number; readonly afterSeq?: number } = {},
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const { pool, agg, afterSeq = 0 } = filter;
    const params = [afterSeq, ...(pool !== undefined ? [pool] : []), ...(agg !== undefined ? [agg] : [])];
    return this.engine.run(
      (function* () {
        return (yield* all(S.listTrades(pool !== undefined, agg !== undefined), params)).map(tradeOf);
      })(),
    );
  }

  recent(
    series: number,
    aggregate: boolean,
    limit: number,
    before?: { readonly time: number; readonly seq: number },
  ): Promise<(TradeRecord & { readonly seq: number })[]> {
    const side = S.sideOf(aggregate);
    return this.engine.run(
      (function* () {
        const found = before
          ? yield* all(S.RECENT_TRADES.before[side], [series, before.time, before.time, before.seq, limit])
          : yield* all(S.RECENT_TRADES.newest[side], [series, limit]);
        return found.map(tradeOf);
      })(),
    );
  }

  busiestAggregates(limit: number): Promise<{ series: number; trades: number }[]> {
    return this.engine.run(
      (function* () {
        return (yield* all(S.BUSIEST_AGGREGATES, [limit])).map((r) => ({
          series: num(r.series),
          trades: num(r.trades),
        }));
      })(),
    );
  }
}

export class SqlBarStore implements BarStore {
  constructor(private readonly engine: Engine) {}

  range(series: number, resolution: Resolution, from: number, to: number): Promise<BarRow[]> {
    return this.engine.run(values<BarRow>(S.BAR_RANGE, [series, RESOLUTION_SECONDS[resolution], from, to]));
  }

  extent(series: number, resolution: Resolution): Promise<{ first: number; last: number } | undefined> {
    return this.engine.run(
      (function* () {
        const row = yield* get(S.BAR_EXTENT, [series, RESOLUTION_SECONDS[resolution]]);
        const first = maybeNum(row?.first);
        const last = maybeNum(row?.last);
        return first === undefined || last === undefined ? undefined : { first, last };
      })(),
    );
  }

  countbackStart(series: number, resolution: Resolution, to: number, count: number): Promise<number | undefined> {
    const res = RESOLUTION_SECONDS[resolution];
    return this.engine.run(
      (function* () {
        const row =
          (yield* get(S.COUNTBACK_NTH, [series, res, to, count - 1])) ??
          (yield* get(S.COUNTBACK_OLDEST, [series, res, to]));
        return maybeNum(row?.t);
      })(),
    );
  }

  stale(): Promise<boolean> {
    return this.engine.run(
      (function* () {
        return (yield* get(S.META, [S.BARS_STALE])) !== undefined;
      })(),
    );
  }

  all(): Promise<[number, number, ...BarRow][]> {
    return this.engine.run(values<[number, number, ...BarRow]>(S.ALL_BARS));
  }

  async rebuild(onProgress?: (done: number, total: number) => void): Promise<number> {
    const { done, total } = await this.engine.transaction(rebuildBars(onProgress));
    onProgress?.(done, total);
    return done;
  }
}

export class SqlKeyStore implements KeyStore {
  constructor(private readonly engine: Engine) {}

  create(hash: string, prefix: string, plan: string, label: string, now: number): Promise<StoredKey> {
    return this.engine.run(
      (function* () {
        const row = yield* get(S.CREATE_KEY, [hash, prefix, plan, label, now]);
        return { id: num(row?.id), prefix, plan, label, createdAt: now, revokedAt: null };
      })(),
    );
  }

  list(): Promise<StoredKey[]> {
    return this.engine.run(
      (function* () {
        return (yield* all(S.LIST_KEYS)).map(keyOf);
      })(),
    );
  }

  revoke(idOrPrefix: string, now: number): Promise<number> {
    const byId = /^\d+$/.test(idOrPrefix);
    return this.engine.run(
      byId ? run(S.REVOKE_KEY.id, [now, Number(idOrPrefix)]) : run(S.REVOKE_KEY.prefix, [now, idOrPrefix]),
    );
  }

  count(): Promise<number> {
    return this.engine.run(
      (function* () {
        return num((yield* get(S.COUNT_KEYS))?.n ?? 0);
      })(),
    );
  }

  candidates(prefix: string): Promise<{ hash: string; plan: string }[]> {
    return this.engine.run(
      (function* () {
        return (yield* all(S.KEY_CANDIDATES, [prefix])).map((r) => ({ hash: String(r.hash), plan: String(r.plan) }));
      })(),
    );
  }
}

export class SqlSimStateStore implements SimStateStore {
  constructor(private readonly engine: Engine) {}

  load(): Promise<SimState | undefined> {
    return this.engine.run(
      (function* () {
        const row = yield* get(S.LOAD_SIM);
        return row && { height: num(row.height), nextBlockTime: num(row.next_block_time), fair: row.fair as Buffer };
      })(),
    );
  }
}
