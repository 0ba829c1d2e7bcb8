import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ALL_GROUPS } from '@/shared/groups';
import type { ResolutionString } from '@/datafeed';
import { provisionalSymbolInfo, resolvedSymbolQueryOptions } from '@/app/api/resolve-symbol';
import { ErrorState } from '@/app/components/error-state';
import { PriceChart, type ChartAppearance, type ChartHandle } from '@/app/features/chart';
import { ChartSync } from '@/app/features/layouts';
import { PairSearch } from '@/app/features/search';
import { groupsQueryOptions } from '@/app/features/shell/api/groups';
import type { LayoutCell } from '@/app/lib/layout';
import { withCell } from '@/app/lib/layout-edit';
import { pairLabel } from '@/app/lib/orientation';
import { RESOLUTION_CHOICES } from '@/app/lib/selection';
import { useApi, useDatafeed, usePreferences, useSelection } from '@/app/providers/app-providers';

/**
 * Several charts (a chunk of its own, loaded when a layout beyond one chart is chosen): the page's
 * first chart (`first`, with the page's toolbar, header and tape) and charts 2 … n of the URL's layout,
 * each with its own pair, group and resolution chosen in its own bar. All of them draw from the one
 * datafeed, so they share its one live connection. With `sync` on, ChartSync keeps their crosshair and
 * time range in step.
 */
export function ChartGrid(props: {
  readonly first: ReactNode;
  readonly firstTitle: string | undefined;
  readonly firstHandle: ChartHandle | undefined;
  readonly appearance: ChartAppearance;
}) {
  const { first, firstTitle, firstHandle, appearance } = props;
  const resolution = useSelection((s) => s.resolution);
  const layout = useSelection((s) => s.layout);
  const [handles, setHandles] = useState<readonly (ChartHandle | undefined)[]>([]);
  const [sync] = useState(() => new ChartSync());
  const onHandle = useCallback((index: number, handle: ChartHandle | undefined) => {
    setHandles((before) => {
      const next = [...before];
      next[index - 2] = handle;
      return next;
    });
  }, []);
  const count = layout.cells.length;
  const linked = useMemo(() => [firstHandle, ...handles.slice(0, count)], [firstHandle, handles, count]);

  useEffect(() => {
    if (!layout.sync) return undefined;
    const ready = linked.filter((handle): handle is ChartHandle => handle !== undefined);
    sync.set(ready.map((handle) => handle.link()));
    sync.align(0);
    return () => sync.clear();
  }, [layout.sync, linked, sync]);

  return (
    <div
      className={`chart-grid chart-grid--${layout.kind}`}
      data-testid="chart-grid"
      data-layout={layout.kind}
      data-sync={layout.sync ? 'true' : 'false'}
      data-linked={linked.filter(Boolean).length}
    >
      <section
        className="chart-grid__cell"
        aria-label={`Chart 1${firstTitle ? `: ${firstTitle}` : ''}`}
        data-testid="chart-cell"
        data-index="1"
      >
        {/* The first chart's pair, group and resolution are the page's (its header and toolbar). */}
        <div className="chart-cell__bar">
          <span className="chart-cell__title">
            {firstTitle ?? '…'} · {RESOLUTION_CHOICES.find((choice) => choice.value === resolution)?.name ?? resolution}
          </span>
        </div>
        {first}
      </section>
      {layout.cells.map((cell, i) => (
        <ExtraChart key={i + 2} index={i + 2} cell={cell} appearance={appearance} onHandle={onHandle} />
      ))}
    </div>
  );
}

/** Chart `index` (2 … 4) of the layout: its bar (pair, group, resolution) and its chart. */
function ExtraChart({
  index,
  cell,
  appearance,
  onHandle,
}: {
  index: number;
  cell: LayoutCell;
  appearance: ChartAppearance;
  onHandle: (index: number, handle: ChartHandle | undefined) => void;
}) {
  const datafeed = useDatafeed();
  const api = useApi();
  const select = useSelection((s) => s.select);
  const layout = useSelection((s) => s.layout);
  const recent = usePreferences((s) => s.recent);
  const groups = useQuery(groupsQueryOptions(api));
  const resolved = useQuery({
    ...resolvedSymbolQueryOptions(datafeed, cell.symbol, cell.group),
    placeholderData: keepPreviousData,
  });
  const current = resolved.isError ? undefined : resolved.data;
  const fresh = resolved.isPlaceholderData ? undefined : current;
  const provisional = useMemo(() => provisionalSymbolInfo(cell.symbol), [cell.symbol]);
  const info = fresh?.info ?? provisional;
  const title = current ? `${pairLabel(current.row)} on ${current.row.exchange}` : undefined;
  const change = (next: Partial<LayoutCell>, replace = false) =>
    select({ layout: withCell(layout, index, next) }, { replace });
  const handle = useCallback((h: ChartHandle | undefined) => onHandle(index, h), [index, onHandle]);

  // The URL names the chart's pair canonically (a group's deepest pair, a ticker: its symbol's name).
  useEffect(() => {
    if (!fresh) return;
    if (cell.symbol === fresh.info.name && cell.group === fresh.info.exchange) return;
    select(
      { layout: withCell(layout, index, { symbol: fresh.info.name, group: fresh.info.exchange }) },
      { replace: true },
    );
  }, [fresh, cell.symbol, cell.group, layout, index, select]);
  useEffect(() => () => onHandle(index, undefined), [index, onHandle]);

  const names: readonly string[] = groups.data ?? ALL_GROUPS;
  const groupOptions = names.includes(cell.group) ? names : [cell.group, ...names];
  return (
    <section
      className="chart-grid__cell"
      aria-label={`Chart ${index}${title ? `: ${title}` : ''}`}
      data-testid="chart-cell"
      data-index={index}
    >
      <div className="chart-cell__bar">
        <span className="chart-cell__title" data-testid="chart-cell-title">
          {title ?? cell.symbol ?? '…'}
        </span>
        <PairSearch
          label={`Search pairs for chart ${index}`}
          recent={recent}
          onSelect={(row) => change({ symbol: row.symbol, group: row.exchange })}
        />
        <select
          className="select"
          aria-label={`Group of chart ${index}`}
          value={cell.group}
          onChange={(event) => change({ group: event.target.value, symbol: undefined })}
          data-testid="chart-cell-group"
        >
          {groupOptions.map((group) => (
            <option key={group} value={group}>
              {group}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label={`Resolution of chart ${index}`}
          value={cell.resolution}
          onChange={(event) => change({ resolution: event.target.value as ResolutionString })}
          data-testid="chart-cell-resolution"
        >
          {RESOLUTION_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.name}
            </option>
          ))}
        </select>
      </div>
      {resolved.isError ? (
        <ErrorState
          title="The pair could not load"
          message={resolved.error.message}
          onRetry={() => void resolved.refetch()}
          testId="chart-cell-error"
        />
      ) : (
        <PriceChart
          symbol={info}
          resolution={cell.resolution}
          appearance={appearance}
          {...(title ? { title } : {})}
          onHandle={handle}
        />
      )}
    </section>
  );
}
