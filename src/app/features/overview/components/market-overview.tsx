import { useQuery, useQueryClient } from '@tanstack/react-query';
import { observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useEffect, useEffectEvent, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { GroupStats } from '@/shared/api/extensions';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { ErrorState } from '@/app/components/error-state';
import { TokenLogo } from '@/app/components/token-logo';
import { formatAmount, formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import { pairLabel } from '@/app/lib/orientation';
import { useApi, useDatafeed } from '@/app/providers/app-providers';
import { fetchShownStats, groupStatsQueryOptions, listAskedAt, mergeIntoList, shownStatsQueryOptions } from '../api/group-stats';
import { useLiveRows } from '../hooks/use-live-rows';
import { OVERVIEW_ROWS_MARK, OVERVIEW_SORT_MARK, OVERVIEW_SORT_MEASURE } from '../lib/marks';
import { DEFAULT_SORT, filterByText, liveNumbers, numbersAt, parsePlace, rowsOf, sortRows, sortValue, type OverviewPlace, type OverviewRow, type RowNumbers, type SortKey, type SortOrder } from '../lib/rows';

const ROW_HEIGHT = 44;
/** The sticky column headers' height (CSS): the rows start below it. */
const HEAD_HEIGHT = 36;
/** The list's height when layout reports none (jsdom). */
const FALLBACK_HEIGHT = 600;
/** Most rows whose numbers one request asks (the gateway's `pools` limit). */
const SHOWN_MAX = 100;
/** The rows shown settle this long after scrolling before live updates and numbers follow them. */
const SHOWN_SETTLE_MS = 250;
/** The place is written to the history entry at most this often while scrolling. */
const PLACE_WRITE_MS = 300;

export interface OverviewPair {
  readonly symbol: string;
  readonly group: string;
}

export interface MarketOverviewProps {
  readonly group: string;
  /** Opens a pair's chart. */
  readonly onOpen: (pair: OverviewPair) => void;
  /** The URL of a pair's chart (the row's link: a new tab, a copied link). */
  readonly hrefOf: (pair: OverviewPair) => string;
  /** Where the list was, from the history entry (restored once, on mount). */
  readonly place?: unknown;
  /** Keeps the list's place in the history entry (Back from a chart comes back to it). */
  readonly onPlace: (place: OverviewPlace) => void;
  /** Most pools followed live (the gateway's cap per connection, less what the rest of the page follows). */
  readonly livePools: number;
}

const COLUMNS: readonly { readonly key: SortKey; readonly label: string }[] = [
  { key: 'price', label: 'Price' },
  { key: 'change', label: '24 h change' },
  { key: 'volume', label: '24 h volume' },
  { key: 'tvl', label: 'TVL' },
];

/**
 * The market overview: every pair of a group (one request), sortable by TVL, 24 h volume, 24 h change
 * and price, filtered by ticker, name, policy ID or pool ID, virtualised (6,000+ Aggregate pairs), the
 * rows shown followed live (Aggregate pools stream). A click or Enter on a row opens its chart; the
 * sort, filter and scroll offset live in the history entry, so Back returns to the same place.
 */
export function MarketOverview({ group, onOpen, hrefOf, place, onPlace, livePools }: MarketOverviewProps) {
  const api = useApi();
  const datafeed = useDatafeed();
  const queryClient = useQueryClient();
  const id = useId();
  const [initial] = useState(() => parsePlace(place));
  const [sort, setSort] = useState<SortOrder>(initial?.sort ?? DEFAULT_SORT);
  const [query, setQuery] = useState(initial?.query ?? '');
  const [indexWanted, setIndexWanted] = useState((initial?.query ?? '') !== '');
  const scrollRef = useRef<HTMLDivElement>(null);
  const sorting = useRef(false);
  const marked = useRef(false);
  const restored = useRef(initial === undefined || initial.offset === 0);

  const listOptions = groupStatsQueryOptions(api, group);
  const list = useQuery(listOptions);
  // When the list shown was asked (trades seen live after it are added to it).
  const listAt = list.data ? (listAskedAt(list.data) ?? list.dataUpdatedAt) : 0;
  const rows = useMemo(() => (list.data ? rowsOf(list.data) : []), [list.data]);

  // Token names and the search's matching (policy IDs, fingerprints): the group's search index, loaded
  // when the filter is first used or shortly after the list, whichever comes first.
  useEffect(() => {
    const timer = setTimeout(() => setIndexWanted(true), 1500);
    return () => clearTimeout(timer);
  }, []);
  const index = useQuery({ queryKey: ['search-index', group], queryFn: () => datafeed.searchIndex(group), staleTime: 10 * 60_000, retry: false, enabled: indexWanted && rows.length > 0 });

  const filtered = useMemo(() => {
    const text = query.trim();
    if (text === '') return rows;
    if (!index.data) return filterByText(rows, text);
    const matched = new Set(index.data.search(text, { limit: Math.max(1, rows.length) }).map((r) => r.ticker.toLowerCase()));
    return rows.filter((row) => matched.has(row.ticker.toLowerCase()));
  }, [rows, query, index.data]);
  const sorted = useMemo(() => sortRows(filtered, sort), [filtered, sort]);

  // The virtualizer's functions are only used inside this component (nothing memoized depends on them).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: sorted.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    scrollMargin: HEAD_HEIGHT,
    scrollPaddingStart: HEAD_HEIGHT,
    initialOffset: initial?.offset ?? 0,
    initialRect: { width: 800, height: FALLBACK_HEIGHT },
    observeElementRect: (instance: Virtualizer<HTMLDivElement, Element>, cb) =>
      observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : { width: rect.width || 800, height: FALLBACK_HEIGHT })),
  });
  const items = virtualizer.getVirtualItems();
  const range = virtualizer.range;

  // The rows on screen (not the overscan), once scrolling settles: what is followed live and, when the
  // list's numbers are incomplete, what the gateway is asked to fetch.
  const onScreen = range ? sorted.slice(range.startIndex, range.endIndex + 1).map((row) => row.ticker.toLowerCase()) : [];
  const onScreenKey = onScreen.slice(0, SHOWN_MAX).join(',');
  const [shownKey, setShownKey] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setShownKey(onScreenKey), shownKey === '' ? 0 : SHOWN_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [onScreenKey, shownKey]);
  const shown = useMemo(() => (shownKey === '' ? [] : shownKey.split(',')), [shownKey]);

  // When each row's numbers were asked, for the rows answered apart from the list: live trades after
  // that time are added on top of them (the list's own time for the others).
  const [askedAt, setAskedAt] = useState<ReadonlyMap<string, number>>(new Map());
  const mergeShown = (body: GroupStats, at: number) => {
    // The list keeps its own fetch time: the rows not in `body` are as old as they were.
    const listAt = queryClient.getQueryState(listOptions.queryKey)?.dataUpdatedAt;
    queryClient.setQueryData(listOptions.queryKey, (old) => (old ? mergeIntoList(old, body) : old), listAt === undefined ? undefined : { updatedAt: listAt });
    setAskedAt((current) => {
      const next = new Map(current);
      body.ticker.forEach((ticker, i) => {
        if (body.price[i] !== null && body.price[i] !== undefined) next.set(ticker.toLowerCase(), at);
      });
      return next;
    });
  };

  // An incomplete list (a gateway deriving it from spec endpoints): ask for the rows shown until they
  // have their numbers, merged into the list.
  const incomplete = list.data?.complete === false;
  useQuery({
    ...shownStatsQueryOptions(api, group, shown, mergeShown),
    enabled: incomplete && shown.length > 0,
  });

  // Rows that come on screen are followed live from then on; what they traded before (since the
  // list was fetched) is asked once they are live. Those numbers are shown, not sorted by: the rows
  // keep their places until the list is fetched again or sorted (a row never moves under the pointer).
  const [refreshed, setRefreshed] = useState<ReadonlyMap<string, { readonly numbers: RowNumbers; readonly at: number }>>(new Map());
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
  const live = useLiveRows(group === AGGREGATE_GROUP ? shown.slice(0, Math.max(0, livePools)) : [], () => void list.refetch(), refreshFollowed);

  // Performance marks: the first rows on screen; a sort from the click to its rows rendered.
  useEffect(() => {
    if (marked.current || items.length === 0) return;
    marked.current = true;
    performance.mark(OVERVIEW_ROWS_MARK, { detail: { group, rows: sorted.length } });
  }, [items.length, group, sorted.length]);
  useEffect(() => {
    if (!sorting.current) return;
    sorting.current = false;
    try {
      performance.measure(OVERVIEW_SORT_MEASURE, OVERVIEW_SORT_MARK);
    } catch {
      // No mark (cleared by a benchmark): nothing to measure.
    }
  }, [sorted]);

  // Back from a chart: the scroll offset once the rows are there.
  useLayoutEffect(() => {
    if (restored.current || sorted.length === 0 || !scrollRef.current) return;
    restored.current = true;
    scrollRef.current.scrollTop = initial?.offset ?? 0;
  }, [sorted.length, initial]);

  // The place, kept in the history entry: at once for sort and filter, at most every 300 ms for scrolling.
  const savePlace = () => {
    // Not before the saved offset is back: the list would forget it.
    if (!restored.current) return;
    onPlace({ sort, query, offset: Math.round(scrollRef.current?.scrollTop ?? 0) });
  };
  const keepPlace = useEffectEvent(savePlace);
  useEffect(() => keepPlace(), [sort, query]);
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        keepPlace();
      }, PLACE_WRITE_MS);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      element.removeEventListener('scroll', onScroll);
      clearTimeout(timer);
    };
  }, [list.isSuccess]);

  const sortBy = (key: SortKey) => {
    performance.mark(OVERVIEW_SORT_MARK);
    sorting.current = true;
    setSort((current) => (current.key === key ? { key, direction: current.direction === 'desc' ? 'asc' : 'desc' } : { key, direction: 'desc' }));
    scrollRef.current?.scrollTo?.({ top: 0 });
  };

  const open = (row: OverviewRow) => {
    savePlace();
    onOpen({ symbol: row.symbol, group: row.group });
  };

  const onRowClick = (event: MouseEvent<HTMLTableRowElement>, row: OverviewRow) => {
    // A new tab or window (modifier keys, middle button) is the link's own business.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(row);
  };

  const focusRow = (index: number, tries = 4) => {
    const link = scrollRef.current?.querySelector<HTMLAnchorElement>(`tr[data-index="${index}"] a`);
    if (link) link.focus();
    else if (tries > 0) requestAnimationFrame(() => focusRow(index, tries - 1));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const from = Number((event.target as HTMLElement).closest('tr')?.dataset.index);
    if (!Number.isInteger(from) || sorted.length === 0) return;
    const pageRows = Math.max(1, Math.floor(((scrollRef.current?.clientHeight || FALLBACK_HEIGHT) - HEAD_HEIGHT) / ROW_HEIGHT) - 1);
    const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: pageRows, PageUp: -pageRows, Home: -sorted.length, End: sorted.length };
    const step = steps[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const to = Math.max(0, Math.min(sorted.length - 1, from + step));
    virtualizer.scrollToIndex(to, { align: 'auto' });
    focusRow(to);
  };

  const names = index.data;
  const groupLabel = group === AGGREGATE_GROUP ? 'Aggregate (all DEXs)' : group;
  const status = list.isError ? 'error' : list.data ? 'ready' : 'loading';
  const first = items[0];
  const last = items.at(-1);
  const padTop = first ? first.start - HEAD_HEIGHT : 0;
  const padBottom = last ? virtualizer.getTotalSize() - last.end : 0;
  const count = sorted.length.toLocaleString('en-US');

  return (
    <section className="overview" aria-labelledby={`${id}-title`} data-testid="market-overview" data-group={list.data?.group ?? group} data-status={status} data-count={sorted.length} data-sort={sort.key} data-direction={sort.direction}>
      <div className="overview__head">
        <h1 id={`${id}-title`} className="overview__title">
          Markets on {groupLabel}
        </h1>
        <p className="overview__count" role="status" data-testid="overview-count">
          {list.data ? `${count} ${sorted.length === 1 ? 'pair' : 'pairs'}${query.trim() === '' ? '' : ` matching “${query.trim()}”`}` : ''}
        </p>
        <label className="overview__filter">
          <span className="visually-hidden">Filter pairs</span>
          <input
            type="search"
            className="search__input"
            placeholder="Filter by ticker, name, policy ID…"
            autoComplete="off"
            spellCheck={false}
            value={query}
            data-testid="overview-filter"
            onFocus={() => setIndexWanted(true)}
            onChange={(event) => {
              setIndexWanted(true);
              setQuery(event.target.value);
              scrollRef.current?.scrollTo?.({ top: 0 });
            }}
          />
        </label>
      </div>
      {incomplete ? (
        <p className="overview__note" data-testid="overview-note">
          This data source has no market overview route: each pair’s numbers are fetched when it is shown, within its rate limit, so rows fill in over a few seconds and sort by what is known.
        </p>
      ) : null}
      {list.isError ? (
        <ErrorState title="The pairs could not load" message={list.error.message} testId="overview-error" onRetry={() => void list.refetch()} />
      ) : !list.data ? (
        <p className="overview__loading" role="status" data-testid="overview-loading">
          Loading the pairs of {groupLabel}…
        </p>
      ) : (
        <div ref={scrollRef} className="overview__scroll" onKeyDown={onKeyDown} data-testid="overview-scroll">
          <table className="overview__table" aria-labelledby={`${id}-title`} aria-rowcount={sorted.length + 1}>
            {/* Fixed widths: the columns stay put while rows come and go with the scroll. */}
            <colgroup>
              <col className="overview__col-pair" />
              {COLUMNS.map((column) => (
                <col key={column.key} className="overview__col-num" />
              ))}
            </colgroup>
            <thead>
              <tr aria-rowindex={1}>
                <th scope="col" className="overview__pair-head">
                  Pair
                </th>
                {COLUMNS.map((column) => {
                  const active = sort.key === column.key;
                  return (
                    <th key={column.key} scope="col" className="overview__num" aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
                      <button type="button" className="overview__sort" onClick={() => sortBy(column.key)} data-testid={`sort-${column.key}`}>
                        {column.label}
                        <span className="overview__arrow" aria-hidden="true">
                          {active ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
                        </span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {padTop > 0 ? (
                <tr aria-hidden="true" className="overview__pad" style={{ height: padTop }}>
                  <td colSpan={5} />
                </tr>
              ) : null}
              {items.map((item) => {
                const row = sorted[item.index];
                if (!row) return null;
                const pool = row.ticker.toLowerCase();
                // The newest numbers asked for the row (the list's, its own answer, a refresh once followed), with live trades since.
                const rowAt = Math.max(listAt, askedAt.get(pool) ?? 0);
                const fresh = refreshed.get(pool);
                const numbers = fresh && fresh.at > rowAt ? liveNumbers({ ...row, ...fresh.numbers }, live.get(pool), fresh.at) : liveNumbers(row, live.get(pool), rowAt);
                const name = names?.find(row.symbol)?.quoteName;
                return (
                  <tr
                    key={row.ticker}
                    className="overview__row"
                    data-index={item.index}
                    aria-rowindex={item.index + 2}
                    data-testid="overview-row"
                    data-symbol={row.symbol}
                    data-pool={row.ticker}
                    // What the row was sorted by (the numbers fetched; live trades move the cells, not the order).
                    data-sort-value={sortValue(row, sort.key) ?? ''}
                    onClick={(event) => onRowClick(event, row)}
                  >
                    <th scope="row" className="overview__pair-cell">
                      <a className="overview__pair" href={hrefOf({ symbol: row.symbol, group: row.group })} title={`Open the chart of ${pairLabel(row)} on ${row.group}`}>
                        <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={22} />
                        <span className="overview__label">{pairLabel(row)}</span>
                        {name ? <span className="overview__name">{name}</span> : null}
                      </a>
                    </th>
                    <td className="overview__num" data-testid="overview-price" data-value={numbers.price ?? ''}>
                      {numbers.price === undefined ? '—' : formatPrice(numbers.price)}
                      {numbers.price === undefined ? null : <span className="overview__unit"> {row.base}</span>}
                    </td>
                    <td className={`overview__num trend trend--${numbers.change === undefined ? 'flat' : percentTrend(numbers.change)}`} data-testid="overview-change" data-value={numbers.change ?? ''}>
                      {numbers.change === undefined ? '—' : formatPercent(numbers.change)}
                    </td>
                    <td className="overview__num" data-testid="overview-volume" data-value={numbers.volume ?? ''}>
                      {numbers.volume === undefined ? '—' : formatAmount(numbers.volume)}
                      {numbers.volume === undefined ? null : <span className="overview__unit"> {row.base}</span>}
                    </td>
                    <td className="overview__num" data-testid="overview-tvl" data-value={numbers.tvl ?? ''}>
                      {numbers.tvl === undefined ? '—' : formatAmount(numbers.tvl)}
                      {numbers.tvl === undefined ? null : <span className="overview__unit"> {row.base}</span>}
                    </td>
                  </tr>
                );
              })}
              {padBottom > 0 ? (
                <tr aria-hidden="true" className="overview__pad" style={{ height: padBottom }}>
                  <td colSpan={5} />
                </tr>
              ) : null}
            </tbody>
          </table>
          {sorted.length === 0 ? (
            <p className="overview__empty" data-testid="overview-empty">
              {rows.length === 0 ? `${groupLabel} has no pairs.` : `No pair matches “${query.trim()}”.`}
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
