import type { GroupStats } from '../../shared/api/extensions';
import { wholeBase, wholePrice } from './units';
import { AGGREGATE_GROUP, ALL_GROUPS, type GroupName } from '../../shared/groups';
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

/**
 * Rows built, or columns serialised, between two turns of the event loop while a whole list is made:
 * the Aggregate's list (6,000+ rows, 1.5 MB of JSON) takes 40-300 ms in one piece, which every other
 * request (a chart's /history) would wait behind; in slices of this many they wait a few ms at most.
 */
const ROWS_PER_SLICE = 1_000;

/** Lets the event loop serve what is waiting. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The keys of a group's list, in the order JSON.stringify writes a built body. */
const LIST_KEYS = [
  'ticker',
  'symbol',
  'base',
  'quote',
  'price',
  'change_24h',
  'volume_24h',
  'tvl',
  'tvl_ada',
] as const satisfies readonly (keyof GroupStats)[];

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
  /** Lists being made, by group, for the market state they were started in: concurrent requests share one. */
  private readonly building = new Map<
    GroupName,
    { readonly state: string; readonly json: Promise<string | undefined> }
  >();

  /** The JSON body of the group's whole list (`stats` without pools), undefined for an unknown group. */
  async listJson(group: string): Promise<string | undefined> {
    const canonical = this.canonical(group);
    if (canonical === undefined) return undefined;
    const { market } = this.options;
    const state = `${market.version}:${market.prices}`;
    const kept = this.lists.get(canonical);
    if (kept && kept.state === state && kept.window === this.freshWindow(canonical, this.options.nowMs())?.stats)
      return kept.json;
    const building = this.building.get(canonical);
    if (building?.state === state) return building.json;
    const json = this.buildList(canonical, state);
    this.building.set(canonical, { state, json });
    try {
      return await json;
    } finally {
      if (this.building.get(canonical)?.json === json) this.building.delete(canonical);
    }
  }

  /** Builds and serialises the group's whole list in slices, and keeps it when the market did not move meanwhile. */
  private async buildList(canonical: GroupName, state: string): Promise<string | undefined> {
    const { market } = this.options;
    const body = await this.stats(canonical);
    if (!body) return undefined;
    const window = this.windows.get(canonical)?.stats;
    // Column by column, the event loop served between them (the same text as JSON.stringify(body)).
    let json = `{"s":${JSON.stringify(body.s)},"group":${JSON.stringify(body.group)},"complete":${body.complete}`;
    for (const key of LIST_KEYS) {
      json += `,${JSON.stringify(key)}:${JSON.stringify(body[key])}`;
      await yieldToLoop();
    }
    json += '}';
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
    for (const [i, pool] of rows.entries()) {
      // A whole list is built in slices (ROWS_PER_SLICE); named rows are few.
      if (!pools && i > 0 && i % ROWS_PER_SLICE === 0) await yieldToLoop();
      const price = poolPrice(pool);
      const tvl = poolTvl(pool);
      const day = window.get(pool.id);
      body.ticker.push(pool.poolId);
      body.symbol.push(symbols.name(pool));
      body.base.push(pool.pair.base.unit);
      body.quote.push(pool.pair.quote.unit);
      body.price.push(price);
      // As /tokens/current: a pool without trades has not changed.
      body.change_24h.push(priceChange(price, day?.price !== undefined ? wholePrice(pool.pair, day.price) : price));
      body.volume_24h.push(wholeBase(pool.pair, day?.volume ?? 0));
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
