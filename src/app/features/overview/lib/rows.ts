import type { GroupStats, Spreads } from '@/shared/api/extensions';
import { liveStats, type LiveOverlay } from '@/app/lib/live-stats';
import { ADA_TICKER } from '@/shared/id-rules';
import { parseSymbolName } from '@/shared/symbols';

/** The numbers of a row: those of /tokens/current for its pool; undefined while not known (a gateway still fetching them). */
export interface RowNumbers {
  /** Whole base units per whole quote unit. */
  readonly price: number | undefined;
  /** Percent over 24 h. */
  readonly change: number | undefined;
  /** Base volume of the last 24 h. */
  readonly volume: number | undefined;
  /** TVL in base units, and valued in ADA. */
  readonly tvl: number | undefined;
  readonly tvlAda: number | undefined;
}

/** One pair of the overview. */
export interface OverviewRow extends RowNumbers {
  /** Pool ID. */
  readonly ticker: string;
  readonly symbol: string;
  readonly group: string;
  /** Display tickers (ADA for the native currency) and units of the pair's tokens. */
  readonly base: string;
  readonly quote: string;
  readonly baseUnit: string;
  readonly quoteUnit: string;
  /** The pair's spread across its DEX pools (percent, /gw/v1/spreads; undefined: not known, or fewer than two pools deep enough). */
  readonly spread?: number | undefined;
}

export type SortKey = 'tvl' | 'volume' | 'change' | 'price' | 'spread';
export type SortDirection = 'asc' | 'desc';

export interface SortOrder {
  readonly key: SortKey;
  readonly direction: SortDirection;
}

export const DEFAULT_SORT: SortOrder = { key: 'tvl', direction: 'desc' };

const known = (value: number | null | undefined): number | undefined =>
  value === null || value === undefined || !Number.isFinite(value) ? undefined : value;

/** The numbers of row `i` of an answer. */
export function numbersAt(body: GroupStats, i: number): RowNumbers {
  return {
    price: known(body.price[i]),
    change: known(body.change_24h[i]),
    volume: known(body.volume_24h[i]),
    tvl: known(body.tvl[i]),
    tvlAda: known(body.tvl_ada[i]),
  };
}

/** The rows of a group-stats answer (tickers of the pair from the symbol name, as search shows them). */
export function rowsOf(body: GroupStats): OverviewRow[] {
  return body.ticker.map((ticker, i) => {
    const symbol = body.symbol[i] ?? '';
    const baseUnit = body.base[i] ?? '';
    const quoteUnit = body.quote[i] ?? '';
    const parsed = parseSymbolName(symbol);
    return {
      ticker,
      symbol,
      group: body.group,
      base: parsed?.base ?? (baseUnit === '' ? ADA_TICKER : baseUnit.slice(0, 8)),
      quote: parsed?.quote ?? quoteUnit.slice(0, 8),
      baseUnit,
      quoteUnit,
      ...numbersAt(body, i),
    };
  });
}

/** The spreads answer by pair (`<base unit>/<quote unit>`): each pair's spread, null where not known. */
export function spreadsByPair(body: Spreads): Map<string, number | null> {
  return new Map(body.base.map((base, i) => [`${base}/${body.quote[i] ?? ''}`, body.spread_percent[i] ?? null]));
}

/** The rows with their pair's spread (a new array; rows whose pair has none keep theirs undefined). */
export function withSpreads(
  rows: readonly OverviewRow[],
  spreads: ReadonlyMap<string, number | null> | undefined,
): OverviewRow[] {
  if (!spreads) return [...rows];
  return rows.map((row) => ({ ...row, spread: known(spreads.get(`${row.baseUnit}/${row.quoteUnit}`)) }));
}

/**
 * The list `into` with the numbers `from` knows (the rows shown, asked apart) written over its rows'
 * (a new answer; neither is changed). `complete` once every row has a price.
 */
export function mergeAnswers(into: GroupStats, from: GroupStats): GroupStats {
  const at = new Map(into.ticker.map((ticker, i) => [ticker.toLowerCase(), i]));
  const merged: GroupStats = {
    ...into,
    price: [...into.price],
    change_24h: [...into.change_24h],
    volume_24h: [...into.volume_24h],
    tvl: [...into.tvl],
    tvl_ada: [...into.tvl_ada],
  };
  from.ticker.forEach((ticker, i) => {
    const j = at.get(ticker.toLowerCase());
    if (j === undefined || from.price[i] === null || from.price[i] === undefined) return;
    for (const column of ['price', 'change_24h', 'volume_24h', 'tvl', 'tvl_ada'] as const) {
      const value = from[column][i];
      if (value !== null && value !== undefined) merged[column][j] = value;
    }
  });
  return { ...merged, complete: into.complete || merged.price.every((p) => p !== null) };
}

/** ADA per whole base unit: 1 for ADA pairs, else from the TVL and its ADA value; undefined when not known. */
function adaPerBase(row: OverviewRow): number | undefined {
  if (row.baseUnit === '') return 1;
  if (row.tvl === undefined || row.tvlAda === undefined || !(row.tvl > 0)) return undefined;
  return row.tvlAda / row.tvl;
}

/**
 * The value a row is sorted by: TVL, volume and price valued in ADA (comparable across pairs of
 * different bases), the change as it is. Undefined when not known.
 */
export function sortValue(row: OverviewRow, key: SortKey): number | undefined {
  switch (key) {
    case 'tvl':
      return row.tvlAda ?? (row.baseUnit === '' ? row.tvl : undefined);
    case 'change':
      return row.change;
    case 'spread':
      return row.spread;
    case 'volume': {
      const ada = adaPerBase(row);
      return row.volume === undefined || ada === undefined ? undefined : row.volume * ada;
    }
    case 'price': {
      const ada = adaPerBase(row);
      return row.price === undefined || ada === undefined ? undefined : row.price * ada;
    }
  }
}

const SORT_KEYS: readonly SortKey[] = ['tvl', 'volume', 'change', 'price', 'spread'];

/**
 * The orders of `rows` (OverviewRow's sort, below), each computed once: every row's ties rank (TVL in
 * ADA, deepest first, then symbol name) is ranked once for the list, each column's values are read
 * once into a typed array, and an order asked again is the same array. So a click on a column sorts
 * 6,000 numbers with a numeric comparison, and a click back on one sorted before sorts nothing.
 */
export function rowOrders(rows: readonly OverviewRow[]): (order: SortOrder) => readonly OverviewRow[] {
  const n = rows.length;
  let ties: Int32Array | undefined;
  const tiesRank = (): Int32Array => {
    if (ties) return ties;
    const depth = new Float64Array(n);
    for (let i = 0; i < n; i++) depth[i] = sortValue(rows[i] as OverviewRow, 'tvl') ?? -1;
    const byDepth = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const da = depth[a] as number;
      const db = depth[b] as number;
      if (da !== db) return db - da;
      const sa = (rows[a] as OverviewRow).symbol;
      const sb = (rows[b] as OverviewRow).symbol;
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    });
    ties = new Int32Array(n);
    for (let r = 0; r < n; r++) ties[byDepth[r] as number] = r;
    return ties;
  };
  const values = new Map<SortKey, Float64Array>();
  const valuesOf = (key: SortKey): Float64Array => {
    let column = values.get(key);
    if (!column) {
      column = new Float64Array(n);
      for (let i = 0; i < n; i++) column[i] = sortValue(rows[i] as OverviewRow, key) ?? Number.NaN;
      values.set(key, column);
    }
    return column;
  };
  const orders = new Map<string, readonly OverviewRow[]>();
  return (order) => {
    const name = `${order.key} ${order.direction}`;
    const kept = orders.get(name);
    if (kept) return kept;
    const keys = valuesOf(order.key);
    const rank = tiesRank();
    const sign = order.direction === 'asc' ? 1 : -1;
    const index = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const ka = keys[a] as number;
      const kb = keys[b] as number;
      // Not known (NaN) last, whichever the direction.
      if (ka !== kb) {
        if (ka !== ka) return kb !== kb ? (rank[a] as number) - (rank[b] as number) : 1;
        if (kb !== kb) return -1;
        return (ka - kb) * sign;
      }
      return (rank[a] as number) - (rank[b] as number);
    });
    const sorted = Array.from(index, (i) => rows[i] as OverviewRow);
    orders.set(name, sorted);
    return sorted;
  };
}

/**
 * The rows in `order`: rows whose value is not known last (whichever the direction), ties by TVL in
 * ADA (deepest first), then by symbol name. A new array; `rows` is left as it is.
 */
export function sortRows(rows: readonly OverviewRow[], order: SortOrder): OverviewRow[] {
  return [...rowOrders(rows)(order)];
}

/**
 * A row's numbers with the trades seen live since they were fetched (`fetchedAt`, ms) on top: the
 * newest trade's price and TVL, its volume added, the change recomputed against the same price 24 h
 * ago (lib/live-stats). The newest trade wins over any answer: overlays exist only for pools followed
 * without a break (hooks/use-live-rows). A row without numbers yet stays as it is.
 */
export function liveNumbers(
  row: RowNumbers & { readonly baseUnit: string },
  overlay: LiveOverlay | undefined,
  fetchedAt: number,
): RowNumbers {
  if (overlay === undefined || row.price === undefined) return row;
  const stats = liveStats(
    {
      current_price: row.price,
      current_tvl: row.tvl ?? 0,
      hourly_price_change: 0,
      hourly_tvl_change: 0,
      hourly_volume: 0,
      daily_price_change: row.change ?? 0,
      daily_tvl_change: 0,
      daily_volume: row.volume ?? 0,
    },
    overlay,
    fetchedAt,
    // Overlays are kept only for pools followed without a break (hooks/use-live-rows).
    { lastTradeWins: true },
  );
  const tvl = row.tvl === undefined ? undefined : stats.current_tvl;
  const tvlAda =
    row.tvlAda === undefined || tvl === undefined
      ? undefined
      : row.baseUnit === ''
        ? tvl
        : row.tvl && row.tvl > 0
          ? (tvl * row.tvlAda) / row.tvl
          : row.tvlAda;
  return {
    price: stats.current_price,
    change: row.change === undefined ? undefined : stats.daily_price_change,
    volume: row.volume === undefined ? undefined : stats.daily_volume,
    tvl,
    tvlAda,
  };
}

/** Lowercased text a row matches without the search index: its tickers, symbol name, pool ID and token units. */
export function rowText(row: OverviewRow): string {
  return `${row.quote} ${row.base} ${row.quote}/${row.base} ${row.symbol} ${row.ticker} ${row.quoteUnit} ${row.baseUnit}`.toLowerCase();
}

/** Rows whose text holds every word of `query` (the filter before the search index is loaded). */
export function filterByText(rows: readonly OverviewRow[], query: string): OverviewRow[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return [...rows];
  return rows.filter((row) => {
    const text = rowText(row);
    return words.every((word) => text.includes(word));
  });
}

/** Where the overview was: sort, filter and scroll offset (kept in the history entry, restored on Back). */
export interface OverviewPlace {
  readonly sort: SortOrder;
  readonly query: string;
  readonly offset: number;
}

/** A place read back from a history entry (anything else: undefined). */
export function parsePlace(value: unknown): OverviewPlace | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { sort, query, offset } = value as Record<string, unknown>;
  if (typeof sort !== 'object' || sort === null) return undefined;
  const { key, direction } = sort as Record<string, unknown>;
  if (!SORT_KEYS.includes(key as SortKey) || (direction !== 'asc' && direction !== 'desc')) return undefined;
  if (typeof query !== 'string' || typeof offset !== 'number' || !Number.isFinite(offset) || offset < 0)
    return undefined;
  return { sort: { key: key as SortKey, direction }, query: query.slice(0, 200), offset };
}
