import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { GatewayError } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { marketStatusQueryOptions } from '@/app/api/market-status';
import { ErrorState } from '@/app/components/error-state';
import { useApi } from '@/app/providers/app-providers';
import { useTraderSettings } from '@/app/hooks/use-trader-settings';
import { formatCount } from '@/app/lib/format';
import { useKeptPlace, useOverviewPlace } from '../hooks/use-overview-place';
import { useOverviewRows } from '../hooks/use-overview-rows';
import { OVERVIEW_ROWS_MARK, OVERVIEW_SORT_MARK, OVERVIEW_SORT_MEASURE } from '../lib/marks';
import type { OverviewPlace, OverviewRow, SortKey } from '../lib/rows';
import { OverviewHead } from './overview-head';
import { OverviewTable } from './overview-table';

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

/**
 * The market overview: every pair of a group (one request), sortable by TVL, 24 h volume, 24 h change
 * and price, filtered by ticker, name, policy ID or pool ID, virtualised (6,000+ Aggregate pairs), the
 * rows shown followed live (Aggregate pools stream). A click or Enter on a row opens its chart; the
 * sort, filter and scroll offset live in the history entry, so Back returns to the same place.
 */
export function MarketOverview({ group, onOpen, hrefOf, place, onPlace, livePools }: MarketOverviewProps) {
  const id = useId();
  const { initial, sort, setSort, query, setQuery, scrollRef } = useOverviewPlace(place);
  const [shown, setShown] = useState<readonly string[]>([]);
  const [filtering, setFiltering] = useState(query !== '');
  const { list, rows, sorted, names, incomplete, numbersOf, spreads } = useOverviewRows(group, {
    query,
    sort,
    shown,
    livePools,
    filtering,
  });
  const { spreadMinTvl } = useTraderSettings();
  const marketStatus = useQuery(marketStatusQueryOptions(useApi()));
  const noSpreads = spreads.error instanceof GatewayError && spreads.error.status === 404;
  const savePlace = useKeptPlace({
    initial,
    sort,
    query,
    scrollRef,
    rowCount: sorted.length,
    ready: list.isSuccess,
    onPlace,
  });

  // Performance marks: the first rows on screen; a sort from the click to its rows rendered.
  const marked = useRef(false);
  const firstRows = useCallback(() => {
    if (marked.current) return;
    marked.current = true;
    performance.mark(OVERVIEW_ROWS_MARK, { detail: { group, rows: sorted.length } });
  }, [group, sorted.length]);
  const sorting = useRef(false);
  useEffect(() => {
    if (!sorting.current) return;
    sorting.current = false;
    try {
      performance.measure(OVERVIEW_SORT_MEASURE, OVERVIEW_SORT_MARK);
    } catch {
      // No mark (cleared by a benchmark): nothing to measure.
    }
  }, [sorted]);
  const sortBy = (key: SortKey) => {
    performance.mark(OVERVIEW_SORT_MARK);
    sorting.current = true;
    setSort((current) =>
      current.key === key
        ? { key, direction: current.direction === 'desc' ? 'asc' : 'desc' }
        : { key, direction: 'desc' },
    );
    scrollRef.current?.scrollTo?.({ top: 0 });
  };
  const open = (row: OverviewRow) => {
    savePlace();
    onOpen({ symbol: row.symbol, group: row.group });
  };

  const groupLabel = group === AGGREGATE_GROUP ? 'Aggregate (all DEXs)' : group;
  // Groups whose pool outputs the chain source could not all decode in the last hour: this one, or any for the Aggregate.
  const failing = (marketStatus.data?.groups ?? []).filter(
    (g) => (g.undecodable_1h ?? 0) > 0 && (group === AGGREGATE_GROUP || g.group === group),
  );
  const status = list.isError ? 'error' : list.data ? 'ready' : 'loading';
  return (
    <section
      className="overview"
      aria-labelledby={`${id}-title`}
      data-testid="market-overview"
      data-group={list.data?.group ?? group}
      data-status={status}
      data-count={sorted.length}
      data-sort={sort.key}
      data-direction={sort.direction}
    >
      <OverviewHead
        titleId={`${id}-title`}
        groupLabel={groupLabel}
        count={list.data ? sorted.length : undefined}
        query={query}
        onQuery={(next) => {
          setQuery(next);
          scrollRef.current?.scrollTo?.({ top: 0 });
        }}
        onFiltering={() => setFiltering(true)}
      />
      {incomplete ? (
        <p className="overview__note" data-testid="overview-note">
          This data source has no market overview route: each pair’s numbers are fetched when it is shown, within its
          rate limit, so rows fill in over a few seconds and sort by what is known.
        </p>
      ) : null}
      {failing.length > 0 ? (
        <p className="overview__note" data-testid="overview-decode-note">
          {failing
            .map(
              (g) =>
                `${g.group}: ${g.undecodable_1h} pool output${g.undecodable_1h === 1 ? '' : 's'} of the last hour could not be decoded (${g.decoded_1h} were)`,
            )
            .join('; ')}
          . Those pools keep their last known state: their prices may lag the chain.
        </p>
      ) : null}
      {noSpreads ? (
        <p className="overview__note" data-testid="overview-spread-note">
          This data source has no spreads route: the Spread column is empty (the chart page’s Spread view works from
          each pair’s pools).
        </p>
      ) : null}
      {list.isError ? (
        <ErrorState
          title="The pairs could not load"
          message={list.error.message}
          testId="overview-error"
          onRetry={() => void list.refetch()}
        />
      ) : !list.data ? (
        <p className="overview__loading" role="status" data-testid="overview-loading">
          Loading the pairs of {groupLabel}…
        </p>
      ) : (
        <div ref={scrollRef} className="overview__scroll" data-testid="overview-scroll">
          <OverviewTable
            rows={sorted}
            labelledBy={`${id}-title`}
            scrollRef={scrollRef}
            initialOffset={initial?.offset ?? 0}
            sort={sort}
            onSort={sortBy}
            numbersOf={numbersOf}
            names={names}
            hrefOf={(row) => hrefOf({ symbol: row.symbol, group: row.group })}
            onOpen={open}
            onShown={setShown}
            onFirstRows={firstRows}
            spreadNote={`The largest price gap between two DEX pools of the pair with at least ${formatCount(spreadMinTvl)} ADA TVL each (set in the chart’s Spread view)`}
          />
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
