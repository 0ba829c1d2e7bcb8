import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { GroupStats } from '@/shared/api/extensions';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { searchIndexQueryOptions } from '@/app/api/search-index';
import { useApi, useDatafeed } from '@/app/providers/app-providers';
import { useTraderSettings } from '@/app/hooks/use-trader-settings';
import {
  fetchShownStats,
  groupStatsQueryOptions,
  listAskedAt,
  mergeIntoList,
  shownStatsQueryOptions,
} from '../api/group-stats';
import { spreadsQueryOptions } from '../api/spreads';
import {
  filterByText,
  liveNumbers,
  numbersAt,
  rowOrders,
  rowsOf,
  withSpreads,
  type OverviewRow,
  type RowNumbers,
  type SortOrder,
} from '../lib/rows';
import { useLiveRows } from './use-live-rows';

/** The search index (token names, policy IDs, fingerprints) loads this long after the list, unless the filter is used first. */
const INDEX_AFTER_MS = 1500;

/**
 * The overview's rows: the group's list (one request), filtered (by the group's search index once it
 * is in, by ticker meanwhile) and sorted; and each row's numbers as shown (`numbersOf`): the list's,
 * or the newest asked for the row, with the live trades since for the rows shown (`shown`, Aggregate
 * pools, at most `livePools` of them). An incomplete list (a gateway deriving it from spec endpoints)
 * asks the rows shown until they have their numbers.
 */
export function useOverviewRows(
  group: string,
  options: {
    readonly query: string;
    readonly sort: SortOrder;
    readonly shown: readonly string[];
    readonly livePools: number;
    readonly filtering: boolean;
  },
) {
  const api = useApi();
  const datafeed = useDatafeed();
  const queryClient = useQueryClient();
  const { query, sort, shown, livePools } = options;
  const listOptions = groupStatsQueryOptions(api, group);
  const list = useQuery(listOptions);
  // When the list shown was asked (trades seen live after it are added to it).
  const listAt = list.data ? (listAskedAt(list.data) ?? list.dataUpdatedAt) : 0;
  // Each pair's spread (one answer for every pair), joined to the rows by their pair.
  const { spreadMinTvl } = useTraderSettings();
  const spreads = useQuery(spreadsQueryOptions(api, spreadMinTvl));
  const rows = useMemo(
    () => (list.data ? withSpreads(rowsOf(list.data), spreads.data) : []),
    [list.data, spreads.data],
  );

  const [indexWanted, setIndexWanted] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setIndexWanted(true), INDEX_AFTER_MS);
    return () => clearTimeout(timer);
  }, []);
  const index = useQuery({
    ...searchIndexQueryOptions(datafeed, group),
    enabled: (indexWanted || options.filtering) && rows.length > 0,
  });

  const filtered = useMemo(() => {
    const text = query.trim();
    if (text === '') return rows;
    if (!index.data) return filterByText(rows, text);
    const matched = new Set(
      index.data.search(text, { limit: Math.max(1, rows.length) }).map((r) => r.ticker.toLowerCase()),
    );
    return rows.filter((row) => matched.has(row.ticker.toLowerCase()));
  }, [rows, query, index.data]);
  // Each order computed once per list (a click back on a column sorts nothing).
  const orders = useMemo(() => rowOrders(filtered), [filtered]);
  const sorted = useMemo(() => orders(sort), [orders, sort]);

  // When each row's numbers were asked, for the rows answered apart from the list: live trades after
  // that time are added on top of them (the list's own time for the others).
  const [askedAt, setAskedAt] = useState<ReadonlyMap<string, number>>(new Map());
  const mergeShown = (body: GroupStats, at: number) => {
    // The list keeps its own fetch time: the rows not in `body` are as old as they were.
    const listUpdatedAt = queryClient.getQueryState(listOptions.queryKey)?.dataUpdatedAt;
    queryClient.setQueryData(
      listOptions.queryKey,
      (old) => (old ? mergeIntoList(old, body) : old),
      listUpdatedAt === undefined ? undefined : { updatedAt: listUpdatedAt },
    );
    setAskedAt((current) => {
      const next = new Map(current);
      body.ticker.forEach((ticker, i) => {
        if (body.price[i] !== null && body.price[i] !== undefined) next.set(ticker.toLowerCase(), at);
      });
      return next;
    });
  };
  const incomplete = list.data?.complete === false;
  useQuery({ ...shownStatsQueryOptions(api, group, shown, mergeShown), enabled: incomplete && shown.length > 0 });

  // Rows that come on screen are followed live from then on; what they traded before (since the list
  // was fetched) is asked once they are live. Those numbers are shown, not sorted by: the rows keep
  // their places until the list is fetched again or sorted (a row never moves under the pointer).
  const [refreshed, setRefreshed] = useState<
    ReadonlyMap<string, { readonly numbers: RowNumbers; readonly at: number }>
  >(new Map());
  const refreshFollowed = (pools: readonly string[]) => {
    const at = Date.now();
    fetchShownStats(api, group, pools).then(
      (body) =>
        setRefreshed((current) => {
          const next = new Map(current);
          body.ticker.forEach((ticker, i) => {
            const numbers = numbersAt(body, i);
            if (numbers.price !== undefined) next.set(ticker.toLowerCase(), { numbers, at });
          });
          return next;
        }),
      () => undefined, // The minute's refetch of the list brings them.
    );
  };
  const live = useLiveRows(
    group === AGGREGATE_GROUP ? shown.slice(0, Math.max(0, livePools)) : [],
    () => void list.refetch(),
    refreshFollowed,
  );

  /** The newest numbers asked for the row (the list's, its own answer, a refresh once followed), with live trades since. */
  const numbersOf = (row: OverviewRow): RowNumbers => {
    const pool = row.ticker.toLowerCase();
    const rowAt = Math.max(listAt, askedAt.get(pool) ?? 0);
    const fresh = refreshed.get(pool);
    return fresh && fresh.at > rowAt
      ? liveNumbers({ ...row, ...fresh.numbers }, live.get(pool), fresh.at)
      : liveNumbers(row, live.get(pool), rowAt);
  };

  return { list, rows, sorted, names: index.data, incomplete, numbersOf, spreads };
}
