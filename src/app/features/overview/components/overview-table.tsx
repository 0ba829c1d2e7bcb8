import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';
import type { SymbolSearchIndex } from '@/datafeed';
import { tokenLogoQueryOptions } from '@/app/api/token-logo';
import { useFixedRows } from '@/app/hooks/use-fixed-rows';
import { useApi } from '@/app/providers/app-providers';
import type { OverviewRow as Row, RowNumbers, SortKey, SortOrder } from '../lib/rows';
import { OverviewColumns } from './overview-columns';
import { OverviewRow } from './overview-row';

const ROW_HEIGHT = 44;
/** The sticky column headers' height (CSS): the rows start below it. */
const HEAD_HEIGHT = 36;
/** The list's height when layout reports none (jsdom). */
const FALLBACK_HEIGHT = 600;
/** Most rows whose numbers one request asks (the gateway's `pools` limit). */
const SHOWN_MAX = 100;
/** The rows shown settle this long after scrolling before live updates and numbers follow them. */
const SHOWN_SETTLE_MS = 250;

/**
 * The overview's table: sortable column headers and the rows, virtualised in `scrollRef`'s element
 * (6,000+ Aggregate pairs); the arrows, Page Up/Down, Home and End move between rows. Tells which rows
 * are on screen once scrolling settles (`onShown`, pool IDs: what is followed live), and when its
 * first rows are (`onFirstRows`).
 */
export function OverviewTable(props: {
  readonly rows: readonly Row[];
  readonly labelledBy: string;
  readonly scrollRef: RefObject<HTMLDivElement | null>;
  readonly initialOffset: number;
  readonly sort: SortOrder;
  readonly onSort: (key: SortKey) => void;
  readonly numbersOf: (row: Row) => RowNumbers;
  readonly names: SymbolSearchIndex | undefined;
  readonly hrefOf: (row: Row) => string;
  readonly onOpen: (row: Row) => void;
  readonly onShown: (pools: readonly string[]) => void;
  readonly onFirstRows: () => void;
  /** What the Spread column holds (its header's title). */
  readonly spreadNote?: string;
}) {
  const {
    rows,
    labelledBy,
    scrollRef,
    initialOffset,
    sort,
    onSort,
    numbersOf,
    names,
    hrefOf,
    onOpen,
    onShown,
    onFirstRows,
    spreadNote,
  } = props;
  const { items, range, total, scrollToIndex } = useFixedRows(scrollRef, {
    count: rows.length,
    rowHeight: ROW_HEIGHT,
    overscan: 8,
    // The rows start below the sticky column headers, and a row brought into view is not left under them.
    margin: HEAD_HEIGHT,
    paddingStart: HEAD_HEIGHT,
    initialOffset,
    fallbackHeight: FALLBACK_HEIGHT,
  });

  // The rows on screen (not the overscan), once scrolling settles.
  const onScreen = range ? rows.slice(range.startIndex, range.endIndex + 1).map((row) => row.ticker.toLowerCase()) : [];
  const onScreenKey = onScreen.slice(0, SHOWN_MAX).join(',');
  const hasItems = items.length > 0;
  useEffect(() => {
    if (hasItems) onFirstRows();
  }, [hasItems, onFirstRows]);
  // The first rows at once; after that, once the scrolling settles.
  const reported = useRef(false);
  useEffect(() => {
    const timer = setTimeout(
      () => {
        reported.current ||= onScreenKey !== '';
        onShown(onScreenKey === '' ? [] : onScreenKey.split(','));
      },
      reported.current ? SHOWN_SETTLE_MS : 0,
    );
    return () => clearTimeout(timer);
  }, [onScreenKey, onShown]);

  // The logos of the rows rendered, asked once they are painted: starting a fetch costs the page
  // about a millisecond, and a sort or the first rows bring some 25 new ones (the rows would wait
  // for them). A logo asked before is not asked again (kept for the session).
  const api = useApi();
  const queryClient = useQueryClient();
  const logosKey = items.map((item) => rows[item.index]?.quoteUnit ?? '').join(',');
  useEffect(() => {
    const units = logosKey.split(',').filter((unit) => unit !== '');
    if (units.length === 0) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () => {
      timer = setTimeout(() => {
        for (const unit of units) void queryClient.prefetchQuery(tokenLogoQueryOptions(api, unit));
      }, 0);
    };
    // After the next frame (the rows painted); without frames (a hidden page, jsdom), at once.
    const painting = typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible';
    const frame = painting ? requestAnimationFrame(ask) : undefined;
    if (!painting) ask();
    return () => {
      if (frame !== undefined) cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [logosKey, api, queryClient]);

  const focusRow = (index: number, tries = 4) => {
    const link = scrollRef.current?.querySelector<HTMLAnchorElement>(`tr[data-index="${index}"] a`);
    if (link) link.focus();
    else if (tries > 0) requestAnimationFrame(() => focusRow(index, tries - 1));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    const from = Number((event.target as HTMLElement).closest('tr')?.dataset.index);
    if (!Number.isInteger(from) || rows.length === 0) return;
    const pageRows = Math.max(
      1,
      Math.floor(((scrollRef.current?.clientHeight || FALLBACK_HEIGHT) - HEAD_HEIGHT) / ROW_HEIGHT) - 1,
    );
    const steps: Record<string, number> = {
      ArrowDown: 1,
      ArrowUp: -1,
      PageDown: pageRows,
      PageUp: -pageRows,
      Home: -rows.length,
      End: rows.length,
    };
    const step = steps[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const to = Math.max(0, Math.min(rows.length - 1, from + step));
    scrollToIndex(to);
    focusRow(to);
  };

  const first = items[0];
  const last = items.at(-1);
  const padTop = first ? first.start - HEAD_HEIGHT : 0;
  const padBottom = last ? total - last.end : 0;
  return (
    <table
      className="overview__table"
      aria-labelledby={labelledBy}
      aria-rowcount={rows.length + 1}
      onKeyDown={onKeyDown}
    >
      <OverviewColumns sort={sort} onSort={onSort} {...(spreadNote === undefined ? {} : { spreadNote })} />
      <tbody>
        {padTop > 0 ? (
          <tr aria-hidden="true" className="overview__pad" style={{ height: padTop }}>
            <td colSpan={5} />
          </tr>
        ) : null}
        {items.map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <OverviewRow
              key={row.ticker}
              row={row}
              index={item.index}
              numbers={numbersOf(row)}
              name={names?.find(row.symbol)?.quoteName}
              sortKey={sort.key}
              href={hrefOf(row)}
              onOpen={onOpen}
            />
          );
        })}
        {padBottom > 0 ? (
          <tr aria-hidden="true" className="overview__pad" style={{ height: padBottom }}>
            <td colSpan={5} />
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
