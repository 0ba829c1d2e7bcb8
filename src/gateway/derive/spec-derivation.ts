import type { GroupStats, Liquidity, TokenNames } from '../../shared/api/extensions';
import { groupsResponseSchema } from '../../shared/api/groups';
import { symbolInfoResponseSchema, symbolInfoRows, type SymbolInfoRow } from '../../shared/api/symbol-info';
import { tokenStatsSchema, type TokenStats } from '../../shared/api/tokens';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { displayAssetName, splitTokenUnit } from '../../shared/id-rules';
import { parseSymbolName } from '../../shared/symbols';
import type { LogHook } from '../../node/log';
import { UpstreamStatusError, type PacedUpstream } from './paced-upstream';

export interface SpecDerivationOptions {
  /** Pools per group whose TVL is fetched (the broadest pairs of each group). */
  readonly candidatesPerGroup: number;
  /** How long symbol lists and TVLs are reused before they are fetched again. */
  readonly catalogTtlMs: number;
  readonly tvlTtlMs: number;
  /** How long a pool's statistics (/tokens/current) fetched for the rows a browser shows are reused (default 60 s). */
  readonly statsTtlMs?: number;
  readonly now?: () => number;
  readonly log?: LogHook;
}

interface Catalog {
  readonly rows: readonly SymbolInfoRow[];
  readonly at: number;
}

interface Known {
  readonly value: number;
  readonly at: number;
}

/** After a round that failed (the upstream unreachable, or refusing after its Retry-After), when to try again. */
const RETRY_AFTER_FAILURE_MS = 30_000;

/** Priorities in the paced queue: what a browser waits for first, background TVLs last. */
const PRIORITY = { groups: 3, catalog: 2, shown: 2, tvl: 1, price: 1 } as const;

/** Above this many requests waiting, rows shown are not queued (the browser asks again while they lack numbers). */
const SHOWN_BACKLOG = 200;

const pairKey = (row: SymbolInfoRow) => `${row.baseCurrency.toLowerCase()}|${row.currency.toLowerCase()}`;

/**
 * What the extension routes answer, derived from the spec's endpoints of an upstream that lacks
 * them (the hosted API). Only what those endpoints can give, fetched through the paced queue:
 *
 * - **Token names** (`/token-info`): the spec carries no names. Each token's ticker from the symbol
 *   names of symbol_info, and as its name the asset name decoded as text (CIP-67/68 labels dropped),
 *   which is what the token's minter called it on chain: `WingRiders` for WRT, not a registry name.
 * - **TVL** (`/liquidity`, `deepest`): one /tokens/current per pool, so never all of them. Candidates
 *   are the pools of each group's broadest pairs, the pairs with pools on the most DEXs (what makes a
 *   pair deep also brings it to every DEX), `candidatesPerGroup` per group, Aggregate first; a token/
 *   token pair's TVL is valued in ADA with /tokens/current?policy= of its base. A group's liquidity
 *   lists the candidates whose TVL is known so far; the deepest is the deepest among them.
 * - **A group's statistics** (`/group-stats`): the rows from symbol_info, and the numbers of the rows
 *   a browser shows (`pools`) from one /tokens/current each, fetched when asked and reused for
 *   `statsTtlMs`; the rest of the rows carry what is known (a candidate's TVL) or null.
 */
export class SpecDerivation {
  private groupNames: { names: readonly string[]; at: number } | undefined;
  private readonly catalogs = new Map<string, Catalog>();
  private readonly tvl = new Map<string, Known>();
  private readonly adaPrice = new Map<string, Known>();
  private readonly stats = new Map<string, { readonly value: TokenStats; readonly at: number }>();
  private refreshing: Promise<void> | undefined;
  private lastRefresh = -Infinity;

  constructor(
    private readonly paced: PacedUpstream,
    private readonly options: SpecDerivationOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The group names of /groups (kept for the catalog lifetime). */
  async groups(): Promise<readonly string[]> {
    if (this.groupNames && this.now() - this.groupNames.at < this.options.catalogTtlMs) return this.groupNames.names;
    const body = await this.paced.get('/api/v1/groups', groupsResponseSchema, PRIORITY.groups);
    const names = body.d.groups.map((g) => g.id);
    this.groupNames = { names, at: this.now() };
    return names;
  }

  /** A group's canonical spelling (any case), undefined when the upstream has no such group. */
  async canonical(group: string): Promise<string | undefined> {
    return (await this.groups()).find((name) => name.toLowerCase() === group.toLowerCase());
  }

  private async catalog(group: string): Promise<readonly SymbolInfoRow[]> {
    const cached = this.catalogs.get(group);
    if (cached && this.now() - cached.at < this.options.catalogTtlMs) return cached.rows;
    const body = await this.paced.get(
      `/api/v1/symbol_info?group=${encodeURIComponent(group)}`,
      symbolInfoResponseSchema,
      PRIORITY.catalog,
    );
    const rows = symbolInfoRows(body);
    this.catalogs.set(group, { rows, at: this.now() });
    return rows;
  }

  /** Aggregate first: the group the app opens by default. */
  private async orderedGroups(): Promise<string[]> {
    const names = await this.groups();
    return [...names].sort((a, b) => Number(b === AGGREGATE_GROUP) - Number(a === AGGREGATE_GROUP));
  }

  /**
   * Starts a refresh round unless one runs or the last ended less than the TVL lifetime ago: the
   * symbol lists, then each group's candidates' TVL. Never rejects (failures end the round; the next
   * demand after the lifetime tries again).
   */
  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (this.now() - this.lastRefresh < this.options.tvlTtlMs) return Promise.resolve();
    this.refreshing = this.round()
      .then(() => {
        this.lastRefresh = this.now();
      })
      .catch((error: unknown) => {
        this.options.log?.(
          `gateway: deriving liquidity from the upstream's spec endpoints stopped: ${error instanceof Error ? error.message : String(error)}`,
          { level: 'warn' },
        );
        this.lastRefresh = this.now() - this.options.tvlTtlMs + RETRY_AFTER_FAILURE_MS;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private async round(): Promise<void> {
    const groups = await this.orderedGroups();
    const catalogs = new Map<string, readonly SymbolInfoRow[]>();
    for (const group of groups) catalogs.set(group, await this.catalog(group));
    const breadth = new Map<string, number>();
    for (const [group, rows] of catalogs) {
      if (group === AGGREGATE_GROUP) continue;
      for (const row of rows) breadth.set(pairKey(row), (breadth.get(pairKey(row)) ?? 0) + 1);
    }
    const rank = (row: SymbolInfoRow) => breadth.get(pairKey(row)) ?? 0;
    for (const group of groups) {
      const rows = catalogs.get(group) ?? [];
      // Broadest pairs first; among equals ADA pairs (valued without another request), then by name.
      const candidates = [...rows]
        .sort(
          (a, b) =>
            rank(b) - rank(a) ||
            Number(a.baseCurrency !== '') - Number(b.baseCurrency !== '') ||
            (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0),
        )
        .slice(0, this.options.candidatesPerGroup);
      // One group's candidates at a time, in parallel through the queue (which spaces them anyway).
      await Promise.all(candidates.map((row) => this.measure(row)));
    }
  }

  /** Fetches a pool's TVL (and its base's ADA price for a token/token pair) unless fresh. */
  private async measure(row: SymbolInfoRow): Promise<void> {
    const id = row.ticker.toLowerCase();
    const known = this.tvl.get(id);
    if (!known || this.now() - known.at >= this.options.tvlTtlMs) {
      try {
        const stats = await this.paced.get(
          `/api/v1/tokens/current?pool=${encodeURIComponent(row.ticker)}`,
          tokenStatsSchema,
          PRIORITY.tvl,
        );
        this.tvl.set(id, { value: stats.current_tvl, at: this.now() });
      } catch (error) {
        // A pool gone since the symbol list was fetched is skipped; anything else ends the round.
        if (error instanceof UpstreamStatusError && error.status === 404) return;
        throw error;
      }
    }
    await this.learnAdaPrice(row, PRIORITY.price);
  }

  /**
   * The ADA price of `row`'s base (a token base only), asked again after the TVL's time to live. A base
   * without an ADA pair (404) is valued at 0, as the service's route does; another failure ends the round.
   */
  private async learnAdaPrice(row: SymbolInfoRow, priority: number): Promise<void> {
    const base = row.baseCurrency.toLowerCase();
    if (base === '') return;
    const price = this.adaPrice.get(base);
    if (price && this.now() - price.at < this.options.tvlTtlMs) return;
    try {
      const stats = await this.paced.get(
        `/api/v1/tokens/current?policy=${encodeURIComponent(base)}`,
        tokenStatsSchema,
        priority,
      );
      this.adaPrice.set(base, { value: stats.current_price, at: this.now() });
    } catch (error) {
      if (!(error instanceof UpstreamStatusError && error.status === 404)) throw error;
      this.adaPrice.set(base, { value: 0, at: this.now() });
    }
  }

  private adaValue(row: SymbolInfoRow, tvl: number): number {
    if (row.baseCurrency === '') return tvl;
    return tvl * (this.adaPrice.get(row.baseCurrency.toLowerCase())?.value ?? 0);
  }

  /**
   * The TVL known so far of a group's symbols (undefined: no such group). Starts a refresh round;
   * waits only for the group's symbol list.
   */
  async liquidity(group: string): Promise<{ body: Liquidity; complete: boolean } | undefined> {
    const canonical = await this.canonical(group);
    if (canonical === undefined) return undefined;
    const rows = await this.catalog(canonical);
    void this.refresh();
    const body: Liquidity = { s: 'ok', ticker: [], tvl: [], tvl_ada: [] };
    for (const row of rows) {
      const known = this.tvl.get(row.ticker.toLowerCase());
      if (!known) continue;
      body.ticker.push(row.ticker);
      body.tvl.push(known.value);
      body.tvl_ada.push(this.adaValue(row, known.value));
    }
    return { body, complete: this.refreshing === undefined };
  }

  /**
   * A group's rows (only `pools`, when given) with the numbers known so far (undefined: no such
   * group). Fetches, through the paced queue and without waiting for them, the statistics of the
   * `pools` rows that have none or old ones. `complete` when every row answered has its numbers.
   */
  async groupStats(group: string, pools?: readonly string[]): Promise<GroupStats | undefined> {
    const canonical = await this.canonical(group);
    if (canonical === undefined) return undefined;
    const rows = await this.catalog(canonical);
    void this.refresh();
    let selected = rows;
    if (pools) {
      const wanted = new Set(pools.map((p) => p.toLowerCase()));
      selected = rows.filter((row) => wanted.has(row.ticker.toLowerCase()));
      for (const row of selected) {
        if (this.paced.backlog > SHOWN_BACKLOG) break;
        this.measureStats(row).catch((error: unknown) => {
          this.options.log?.(
            `gateway: statistics of ${row.ticker.slice(0, 16)}… from the upstream's /tokens/current failed: ${error instanceof Error ? error.message : String(error)}`,
            { level: 'warn' },
          );
        });
      }
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
    for (const row of selected) {
      const id = row.ticker.toLowerCase();
      const stats = this.stats.get(id)?.value;
      const tvl = stats?.current_tvl ?? this.tvl.get(id)?.value;
      const adaPrice = row.baseCurrency === '' ? 1 : this.adaPrice.get(row.baseCurrency.toLowerCase())?.value;
      body.ticker.push(row.ticker);
      body.symbol.push(row.symbol);
      body.base.push(row.baseCurrency);
      body.quote.push(row.currency);
      body.price.push(stats?.current_price ?? null);
      body.change_24h.push(stats?.daily_price_change ?? null);
      body.volume_24h.push(stats?.daily_volume ?? null);
      body.tvl.push(tvl ?? null);
      body.tvl_ada.push(tvl === undefined || adaPrice === undefined ? null : tvl * adaPrice);
      if (!stats || adaPrice === undefined) body.complete = false;
    }
    return body;
  }

  /** Fetches a pool's statistics (and its base's ADA price for a token/token pair) unless fresh, ahead of the TVL round. */
  private async measureStats(row: SymbolInfoRow): Promise<void> {
    const id = row.ticker.toLowerCase();
    const known = this.stats.get(id);
    if (!known || this.now() - known.at >= (this.options.statsTtlMs ?? 60_000)) {
      try {
        const stats = await this.paced.get(
          `/api/v1/tokens/current?pool=${encodeURIComponent(row.ticker)}`,
          tokenStatsSchema,
          PRIORITY.shown,
        );
        this.stats.set(id, { value: stats, at: this.now() });
        this.tvl.set(id, { value: stats.current_tvl, at: this.now() });
      } catch (error) {
        // A pool gone since the symbol list was fetched has no numbers.
        if (error instanceof UpstreamStatusError && error.status === 404) return;
        throw error;
      }
    }
    await this.learnAdaPrice(row, PRIORITY.shown);
  }

  /** The deepest pool known so far of each group (TVL in ADA); starts a refresh round. */
  deepest(): Record<string, string> {
    void this.refresh();
    const deepest: Record<string, string> = {};
    for (const [group, catalog] of this.catalogs) {
      let best: { id: string; tvl: number } | undefined;
      for (const row of catalog.rows) {
        const known = this.tvl.get(row.ticker.toLowerCase());
        if (!known) continue;
        const tvl = this.adaValue(row, known.value);
        if (!best || tvl > best.tvl) best = { id: row.ticker, tvl };
      }
      if (best) deepest[group] = best.id;
    }
    return deepest;
  }

  /**
   * Every token of the upstream's symbol lists fetched so far but ADA, with its ticker (from the symbol
   * names) and its decoded asset name in place of a registry name. Waits for Aggregate's list (every
   * token with an ADA pair is in it); the other groups' come with the refresh round this starts.
   */
  async tokenNames(): Promise<{ body: TokenNames; complete: boolean }> {
    const groups = await this.orderedGroups();
    if (groups.includes(AGGREGATE_GROUP)) await this.catalog(AGGREGATE_GROUP);
    void this.refresh();
    const byUnit = new Map<string, { ticker: string; name: string }>();
    for (const group of groups) {
      for (const row of this.catalogs.get(group)?.rows ?? []) {
        const parsed = parseSymbolName(row.symbol);
        const sides: [string, string | undefined][] = [
          [row.baseCurrency, parsed?.base],
          [row.currency, parsed?.quote],
        ];
        for (const [unit, ticker] of sides) {
          const key = unit.toLowerCase();
          if (key === '' || byUnit.has(key)) continue;
          const assetName = splitTokenUnit(key).assetName;
          const name = displayAssetName(assetName);
          byUnit.set(key, { ticker: ticker ?? name, name: name === assetName ? '' : name });
        }
      }
    }
    const body: TokenNames = { s: 'ok', unit: [], ticker: [], name: [] };
    for (const [unit, { ticker, name }] of byUnit) {
      body.unit.push(unit);
      body.ticker.push(ticker);
      body.name.push(name);
    }
    return { body, complete: groups.every((group) => this.catalogs.has(group)) };
  }
}
