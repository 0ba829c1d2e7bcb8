import { gatewayLiquiditySchema } from '../shared/api/gateway';
import { groupsResponseSchema } from '../shared/api/groups';
import { symbolInfoResponseSchema, symbolInfoRows, type SymbolInfoRow } from '../shared/api/symbol-info';
import { AGGREGATE_GROUP, ALL_GROUPS } from '../shared/groups';
import { ADA_TICKER, isPoolId } from '../shared/id-rules';
import { parseSymbolName } from '../shared/symbols';
import { visibleText } from '../shared/visible-text';
import type { GatewayClient, Outcome } from './gateway-client';
import type * as SearchModuleType from './symbol-search';
import type { SearchRow, SymbolSearchIndex } from './symbol-search';
import type { TokenNameSource, TokenNames } from './token-names';

/** The search index's module (ranking, CIP-14 fingerprints), a chunk of its own in the app: resolving a symbol needs only the lookups. */
type SearchModule = typeof SearchModuleType;

/**
 * The search module, or why it could not load. A browser keeps a module that failed to load failed
 * until the page is loaded again (Chromium does), so the message says to reload.
 */
async function loadSearch(): Promise<Outcome<SearchModule>> {
  try {
    return { ok: true, value: await import('./symbol-search') };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `The search's code could not load (${reason}): reload the page` };
  }
}

/** A symbol with everything `resolveSymbol` and search need. */
export interface CatalogSymbol extends SearchRow {
  readonly pricescale: number;
  readonly minmov: number;
  readonly hasIntraday: boolean;
  readonly session: string;
  readonly timezone: string;
}

/** The symbols of one group, with lookups and a search index. */
export class GroupCatalog {
  readonly symbols: readonly CatalogSymbol[];
  private built: Promise<SymbolSearchIndex> | undefined;
  private readonly byName = new Map<string, CatalogSymbol>();
  private readonly byNameLower = new Map<string, CatalogSymbol>();
  private readonly byTicker = new Map<string, CatalogSymbol>();

  constructor(
    readonly group: string,
    symbols: readonly CatalogSymbol[],
    readonly loadedAt: number,
  ) {
    this.symbols = symbols;
    for (const symbol of symbols) {
      this.byName.set(symbol.symbol, symbol);
      this.byNameLower.set(symbol.symbol.toLowerCase(), symbol);
      this.byTicker.set(symbol.ticker.toLowerCase(), symbol);
    }
  }

  /**
   * The search index, built on first use (resolving a symbol needs only the lookups: a page's first
   * load) in slices that leave the page's main thread free between them.
   */
  indexWith(search: SearchModule): Promise<SymbolSearchIndex> {
    this.built ??= search.SymbolSearchIndex.build(this.symbols);
    return this.built;
  }

  /** By symbol name (exact, then ignoring case) or by ticker (pool ID, any case). */
  find(nameOrTicker: string): CatalogSymbol | undefined {
    return (
      this.byName.get(nameOrTicker) ??
      this.byNameLower.get(nameOrTicker.toLowerCase()) ??
      this.byTicker.get(nameOrTicker.toLowerCase())
    );
  }
}

/**
 * A symbol_info row as the app shows it: tickers, names and description with their invisible and
 * bidi-control characters written out (`SNEK\u200B`, `\u202EKENS`), whatever the upstream sent (our
 * service writes them out in symbol names already; another may not). The symbol name and ticker stay
 * as sent: they are what requests name.
 */
function symbolOf(
  row: SymbolInfoRow,
  group: string,
  liquidity: ReadonlyMap<string, { tvl: number; tvlAda: number }>,
  names: TokenNames,
): CatalogSymbol {
  const parsed = parseSymbolName(row.symbol);
  const tvl = liquidity.get(row.ticker.toLowerCase());
  const baseName = row.baseCurrency === '' ? undefined : names.get(row.baseCurrency.toLowerCase());
  const quoteName = names.get(row.currency.toLowerCase());
  return {
    symbol: row.symbol,
    ticker: row.ticker,
    description: visibleText(row.description),
    exchange: row.exchange || group,
    type: row.type,
    base: visibleText(parsed?.base ?? (row.baseCurrency === '' ? ADA_TICKER : row.baseCurrency.slice(0, 8))),
    quote: visibleText(parsed?.quote ?? row.currency.slice(0, 8)),
    baseUnit: row.baseCurrency,
    quoteUnit: row.currency,
    ...(baseName === undefined ? {} : { baseName: visibleText(baseName) }),
    ...(quoteName === undefined ? {} : { quoteName: visibleText(quoteName) }),
    ...(tvl ? { tvl: tvl.tvl, tvlAda: tvl.tvlAda } : {}),
    pricescale: row.pricescale,
    minmov: row.minmovement,
    hasIntraday: row.hasIntraday,
    session: row.session,
    timezone: row.timezone,
  };
}

export interface SymbolCatalogOptions {
  /** How long a group's symbols are reused before they are fetched again. */
  readonly ttlMs: number;
  readonly now?: () => number;
  /** Token names for search (one call for every token); none: search without names. */
  readonly tokenNames?: TokenNameSource;
}

/**
 * The groups and their symbols (symbol_info + liquidity, and token names for search), fetched on
 * demand and cached per group with at most one request in flight per group.
 */
export class SymbolCatalog {
  private groupNames: Promise<Outcome<readonly string[]>> | undefined;
  private readonly loaded = new Map<string, GroupCatalog>();
  private readonly loading = new Map<string, Promise<Outcome<GroupCatalog>>>();
  private combined: { readonly parts: readonly GroupCatalog[]; readonly index: Promise<SymbolSearchIndex> } | undefined;
  private tokenNames: { readonly at: number; readonly names: Promise<TokenNames> } | undefined;

  constructor(
    private readonly client: GatewayClient,
    private readonly options: SymbolCatalogOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The group names of /groups (cached; a failure is not cached). */
  groups(): Promise<Outcome<readonly string[]>> {
    this.groupNames ??= this.client.get('/groups', {}, groupsResponseSchema).then((outcome) => {
      if (!outcome.ok) {
        this.groupNames = undefined;
        return outcome;
      }
      return { ok: true, value: outcome.value.d.groups.map((g) => g.id) };
    });
    return this.groupNames;
  }

  /** The canonical spelling of a group name (case-insensitive), or the name itself when unknown. */
  private async canonical(group: string): Promise<string> {
    const names = await this.groups();
    const known = names.ok ? names.value : ALL_GROUPS;
    return known.find((name) => name.toLowerCase() === group.toLowerCase()) ?? group;
  }

  /** Drops every cached symbol list: the next lookup asks the gateway again (e.g. a retry). */
  forget(): void {
    this.loaded.clear();
    this.combined = undefined;
    this.tokenNames = undefined;
  }

  /**
   * Token names for search, asked once for every group and kept as long as a group's symbols. Names
   * are optional: without them (a gateway that has none answers 404, kept as "none" for as long) search
   * matches tickers and IDs only; any other failure is asked again by the next group load.
   */
  private names(): Promise<TokenNames> {
    const source = this.options.tokenNames;
    if (!source) return Promise.resolve(new Map());
    const cached = this.tokenNames;
    if (cached && this.now() - cached.at < this.options.ttlMs) return cached.names;
    const entry = {
      at: this.now(),
      names: source.names().then((outcome) => {
        if (outcome.ok) return outcome.value;
        if (outcome.status !== 404 && this.tokenNames === entry) this.tokenNames = undefined;
        return new Map<string, string>();
      }),
    };
    this.tokenNames = entry;
    return entry.names;
  }

  /** Groups already in memory. */
  cached(): GroupCatalog[] {
    return [...this.loaded.values()];
  }

  /** One group's symbols. */
  async group(name: string): Promise<Outcome<GroupCatalog>> {
    const group = await this.canonical(name);
    const fresh = this.loaded.get(group);
    if (fresh && this.now() - fresh.loadedAt < this.options.ttlMs) return { ok: true, value: fresh };
    let pending = this.loading.get(group);
    if (!pending) {
      pending = this.load(group).finally(() => this.loading.delete(group));
      this.loading.set(group, pending);
    }
    return pending;
  }

  private async load(group: string): Promise<Outcome<GroupCatalog>> {
    const [info, liquidity, names] = await Promise.all([
      this.client.get('/symbol_info', { group }, symbolInfoResponseSchema),
      this.client.get('/liquidity', { group }, gatewayLiquiditySchema),
      this.names(),
    ]);
    if (!info.ok) return info;
    // Liquidity is optional (a gateway may have none, or not yet): rank without it.
    const tvl = new Map<string, { tvl: number; tvlAda: number }>();
    if (liquidity.ok) {
      const { ticker, tvl: values, tvl_ada: ada } = liquidity.value;
      ticker.forEach((id, i) => tvl.set(id.toLowerCase(), { tvl: values[i] ?? 0, tvlAda: ada[i] ?? 0 }));
    }
    const catalog = new GroupCatalog(
      group,
      symbolInfoRows(info.value).map((row) => symbolOf(row, group, tvl, names)),
      this.now(),
    );
    this.loaded.set(group, catalog);
    return { ok: true, value: catalog };
  }

  /** Every group's symbols (groups that fail to load are left out unless all fail). */
  async all(): Promise<Outcome<readonly GroupCatalog[]>> {
    const names = await this.groups();
    if (!names.ok) return names;
    const outcomes = await Promise.all(names.value.map((name) => this.group(name)));
    const parts = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
    const failure = outcomes.find((o) => !o.ok);
    if (parts.length === 0 && failure && !failure.ok) return failure;
    return { ok: true, value: parts };
  }

  /** The search index of one group, or of every group when `group` is undefined or ''. */
  async index(group: string | undefined): Promise<Outcome<SymbolSearchIndex>> {
    // The module loads beside the symbol lists; it never rejects (a failure is an outcome).
    const module = loadSearch();
    if (group === undefined || group === '') {
      const all = await this.all();
      if (!all.ok) return all;
      const search = await module;
      return search.ok ? { ok: true, value: await this.combinedIndex(all.value, search.value) } : search;
    }
    const one = await this.group(group);
    if (!one.ok) return one;
    const search = await module;
    return search.ok ? { ok: true, value: await one.value.indexWith(search.value) } : search;
  }

  /** Ranked search in one group, or in every group when `group` is undefined or ''. */
  async search(query: string, group: string | undefined, limit: number, type?: string): Promise<Outcome<SearchRow[]>> {
    const index = await this.index(group);
    if (!index.ok) return index;
    return { ok: true, value: index.value.search(query, { limit, ...(type === undefined ? {} : { type }) }) };
  }

  private combinedIndex(parts: readonly GroupCatalog[], search: SearchModule): Promise<SymbolSearchIndex> {
    const same =
      this.combined &&
      this.combined.parts.length === parts.length &&
      this.combined.parts.every((p, i) => p === parts[i]);
    if (this.combined && same) return this.combined.index;
    const index = search.SymbolSearchIndex.build(parts.flatMap((p) => p.symbols));
    this.combined = { parts, index };
    return index;
  }

  /**
   * Finds a symbol by `GROUP:NAME`, by name (the group is read from it), or by ticker (pool ID): the
   * groups in memory first, then Aggregate, then every other group.
   */
  async resolve(input: string): Promise<Outcome<CatalogSymbol>> {
    const text = input.trim();
    const unknown: Outcome<CatalogSymbol> = { ok: false, error: `Unknown symbol: ${input}` };
    if (text === '') return { ok: false, error: 'Unknown symbol: the symbol name is empty' };
    const colon = text.indexOf(':');
    if (colon > 0) {
      const catalog = await this.group(text.slice(0, colon));
      if (!catalog.ok) return catalog.status === 404 ? unknown : catalog;
      const found = catalog.value.find(text.slice(colon + 1));
      return found ? { ok: true, value: found } : unknown;
    }
    const parsed = parseSymbolName(text);
    if (parsed) {
      const catalog = await this.group(parsed.group);
      if (catalog.ok) {
        const found = catalog.value.find(text);
        if (found) return { ok: true, value: found };
      } else if (catalog.status !== 404) {
        return catalog;
      }
    }
    if (!isPoolId(text)) return unknown;
    for (const catalog of this.cached()) {
      const found = catalog.find(text);
      if (found) return { ok: true, value: found };
    }
    const aggregate = await this.group(AGGREGATE_GROUP);
    if (aggregate.ok) {
      const found = aggregate.value.find(text);
      if (found) return { ok: true, value: found };
    }
    const all = await this.all();
    if (!all.ok) return all;
    for (const catalog of all.value) {
      const found = catalog.find(text);
      if (found) return { ok: true, value: found };
    }
    return unknown;
  }
}
