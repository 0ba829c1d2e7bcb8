import type { GroupStats } from '../../shared/api/extensions';
import { AGGREGATE_GROUP, ALL_GROUPS, type GroupName } from '../../shared/groups';
import { VOLUME_SCALE } from '../store/bar-batch';
import type { TradeStore, WindowStats } from '../store/ports';
import { adaPerBase } from './liquidity';
import { poolPrice, poolTvl, type Market, type Pool } from './model';
import { DAY, priceChange } from './stats';
import type { SymbolNames } from './symbols';

export interface GroupStatsSourceOptions {
  readonly market: Market;
  readonly symbols: SymbolNames;
  readonly trades: TradeStore;
  readonly nowMs: () => number;
  /** How long a group's 24 h reference prices and volumes are reused (price and TVL are always the market's now). */
  readonly ttlMs: number;
}

interface Window {
  readonly at: number;
  readonly version: number;
  readonly stats: Promise<Map<number, WindowStats>>;
}

/** A group's whole list, serialised, and what it was made of: the market's state and the window. */
interface List {
  readonly state: string;
  readonly window: Promise<Map<number, WindowStats>>;
  readonly json: string;
}

/**
 * Every pool of a group with the numbers of /api/v1/tokens/current (price, 24 h change, 24 h volume,
 * TVL): price and TVL from the market in memory, the price 24 h ago and the volume since from ONE
 * store query for the whole group (`TradeStore.windowStats`; /tokens/current asks four per pool). A
 * group's window is reused for `ttlMs` while the market's version holds, and shared by concurrent
 * requests; a request for named pools (`pools`) asks the store for those alone. A group's whole list is
 * built and serialised once per market change (its version and prices) and window (`listJson`).
 */
export class GroupStatsSource {
  private readonly windows = new Map<GroupName, Window>();
  private readonly lists = new Map<GroupName, List>();

  /** The JSON body of the group's whole list (`stats` without pools), undefined for an unknown group. */
  async listJson(group: string): Promise<string | undefined> {
    const canonical = this.canonical(group);
    if (canonical === undefined) return undefined;
    const { market } = this.options;
    const state = `${market.version}:${market.prices}`;
    const kept = this.lists.get(canonical);
    if (kept && kept.state === state && kept.window === this.freshWindow(canonical, this.options.nowMs())?.stats)
      return kept.json;
    const body = await this.stats(canonical);
    if (!body) return undefined;
    const window = this.windows.get(canonical)?.stats;
    const json = JSON.stringify(body);
    // Kept only if nothing moved while it was made (the window's query is a store read).
    if (window && state === `${market.version}:${market.prices}`) this.lists.set(canonical, { state, window, json });
    return json;
  }

  constructor(private readonly options: GroupStatsSourceOptions) {}

  /** The canonical spelling of a group (any case), undefined when there is none. */
  canonical(group: string): GroupName | undefined {
    return ALL_GROUPS.find((g) => g.toLowerCase() === group.toLowerCase());
  }

  /** The group's rows (only `pools`, when given; unknown or other groups' pools left out); undefined for an unknown group. */
  async stats(group: string, pools?: readonly string[]): Promise<GroupStats | undefined> {
    const canonical = this.canonical(group);
    if (canonical === undefined) return undefined;
    const { market, symbols, trades } = this.options;
    const nowMs = this.options.nowMs();
    const aggregate = canonical === AGGREGATE_GROUP;
    let rows: Pool[];
    let window: Map<number, WindowStats>;
    if (pools) {
      const wanted = new Set(pools.map((p) => p.toLowerCase()));
      rows = [...wanted].flatMap((id) => {
        const pool = market.pools.get(id);
        return pool && pool.group === canonical ? [pool] : [];
      });
      rows.sort((a, b) => a.id - b.id);
      window = await trades.windowStats(
        rows.map((p) => p.id),
        aggregate,
        nowMs / 1000 - DAY,
      );
    } else {
      rows = [...market.poolsById.values()].filter((p) => p.group === canonical).sort((a, b) => a.id - b.id);
      window = await this.window(canonical, rows, nowMs);
    }
    const body: GroupStats = {
      s: 'ok',
      group: canonical,
      complete: true,
      ticker: [],
      symbol: [],
      base: [],
      quote: [],
      price: [],
      change_24h: [],
      volume_24h: [],
      tvl: [],
      tvl_ada: [],
    };
    for (const pool of rows) {
      const price = poolPrice(pool);
      const tvl = poolTvl(pool);
      const day = window.get(pool.id);
      body.ticker.push(pool.poolId);
      body.symbol.push(symbols.name(pool));
      body.base.push(pool.pair.base.unit);
      body.quote.push(pool.pair.quote.unit);
      body.price.push(price);
      // As /tokens/current: a pool without trades has not changed.
      body.change_24h.push(priceChange(price, day?.price ?? price));
      body.volume_24h.push((day?.volume ?? 0) / VOLUME_SCALE);
      body.tvl.push(tvl);
      body.tvl_ada.push(tvl * adaPerBase(market, pool));
    }
    return body;
  }

  /** The group's window while it may be reused: the market's version unchanged, within `ttlMs`. */
  private freshWindow(group: GroupName, nowMs: number): Window | undefined {
    const cached = this.windows.get(group);
    const { market, ttlMs } = this.options;
    return cached && cached.version === market.version && nowMs - cached.at < ttlMs && nowMs >= cached.at
      ? cached
      : undefined;
  }

  private window(group: GroupName, rows: readonly Pool[], nowMs: number): Promise<Map<number, WindowStats>> {
    const { market, trades } = this.options;
    const cached = this.freshWindow(group, nowMs);
    if (cached) return cached.stats;
    const stats = trades.windowStats(
      rows.map((p) => p.id),
      group === AGGREGATE_GROUP,
      nowMs / 1000 - DAY,
    );
    const entry: Window = { at: nowMs, version: market.version, stats };
    this.windows.set(group, entry);
    // A failure is not kept: the next request asks again.
    stats.catch(() => {
      if (this.windows.get(group) === entry) this.windows.delete(group);
    });
    return stats;
  }
}
