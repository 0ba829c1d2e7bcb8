import { useMemo } from 'react';
import type { SearchRow, SymbolSearchIndex } from '@/datafeed';
import { formatCount } from '@/app/lib/format';

/** Rows a query lists at most (the list is virtualized). */
export const SEARCH_LIMIT = 5000;

/** A remembered pick (the preferences' recent list). */
export interface RecentPick {
  readonly symbol: string;
  readonly group: string;
}

/** A row of the list, and whether it is a recent pick. */
export interface ListItem {
  readonly row: SearchRow;
  readonly recent: boolean;
}

/**
 * What the search lists for `query` over the index (its matches; with an empty query, the recent picks
 * first, then every pair), and what its status says.
 */
export function useSearchItems(
  index: { readonly data?: SymbolSearchIndex | undefined; readonly isError: boolean; readonly error: Error | null },
  query: string,
  recent: readonly RecentPick[],
) {
  const idx = index.data;
  const items: ListItem[] = useMemo(() => {
    if (!idx) return [];
    const rows = idx.search(query, { limit: SEARCH_LIMIT });
    if (query.trim() !== '') return rows.map((row) => ({ row, recent: false }));
    const recentRows = recent.flatMap((r) => {
      const row = idx.find(r.symbol);
      return row ? [{ row, recent: true }] : [];
    });
    const seen = new Set(recentRows.map((r) => r.row.ticker));
    return [...recentRows, ...rows.filter((row) => !seen.has(row.ticker)).map((row) => ({ row, recent: false }))];
  }, [idx, query, recent]);
  const status = index.isError
    ? `Search is unavailable: ${index.error?.message ?? 'unknown error'}`
    : !idx
      ? 'Loading symbols…'
      : query.trim() === ''
        ? `${formatCount(idx.size)} pairs`
        : `${items.length >= SEARCH_LIMIT ? `${formatCount(SEARCH_LIMIT)}+` : formatCount(items.length)} ${items.length === 1 ? 'match' : 'matches'}`;
  return { items, status };
}
