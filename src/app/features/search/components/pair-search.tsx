import { observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { SearchRow } from '@/datafeed';
import { TokenLogo } from '@/app/components/token-logo';
import { formatAmount } from '@/app/lib/format';
import { useSearchIndex } from '../hooks/use-search-index';
import { pairLabel } from '@/app/lib/orientation';

export interface RecentPick {
  readonly symbol: string;
  readonly group: string;
}

export interface PairSearchProps {
  readonly onSelect: (row: SearchRow) => void;
  /** Recent picks, most recent first: listed first when the query is empty. */
  readonly recent?: readonly RecentPick[];
}

/** Rows a query lists at most (the list is virtualized). */
export const SEARCH_LIMIT = 5000;
const ROW_HEIGHT = 44;
/** The list's CSS height; used when layout reports none (jsdom). */
const LIST_HEIGHT = 352;

/** Performance entries the benchmark reads: one measure per keystroke, input to rendered results. */
export const SEARCH_MARK = 'search:input';
export const SEARCH_MEASURE = 'search:keystroke';

interface ListItem {
  readonly row: SearchRow;
  readonly recent: boolean;
}

/**
 * Pair search: an ARIA combobox with a virtualized listbox. Results follow every keystroke (no Enter);
 * arrows move, Enter picks, Escape closes. Matches tickers, names, policy IDs, CIP-14 fingerprints and
 * pool IDs across every group.
 */
export function PairSearch({ onSelect, recent = [] }: PairSearchProps) {
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [used, setUsed] = useState(false);
  const index = useSearchIndex(used);
  const id = useId();
  const listId = `${id}-list`;
  const listRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const measuring = useRef(false);

  const items: ListItem[] = useMemo(() => {
    const idx = index.data;
    if (!idx) return [];
    const rows = idx.search(query, { limit: SEARCH_LIMIT });
    if (query.trim() !== '') return rows.map((row) => ({ row, recent: false }));
    const recentRows = recent.flatMap((r) => {
      const row = idx.find(r.symbol);
      return row ? [{ row, recent: true }] : [];
    });
    const seen = new Set(recentRows.map((r) => r.row.ticker));
    return [...recentRows, ...rows.filter((row) => !seen.has(row.ticker)).map((row) => ({ row, recent: false }))];
  }, [index.data, query, recent]);

  // The virtualizer's functions are only used inside this component (nothing memoized depends on them).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: open ? items.length : 0,
    getScrollElement: () => listRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    initialRect: { width: 320, height: LIST_HEIGHT },
    // The list has a fixed height: trust it when layout reports none.
    observeElementRect: (instance: Virtualizer<HTMLDivElement, Element>, cb) =>
      observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : { width: rect.width || 320, height: LIST_HEIGHT })),
  });

  // A passive effect of the list's owner runs after every row's effects (flushed synchronously for an
  // input event): the measure covers the whole of React's work for the keystroke.
  useEffect(() => {
    if (!measuring.current) return;
    measuring.current = false;
    try {
      performance.measure(SEARCH_MEASURE, SEARCH_MARK);
    } catch {
      // No mark (e.g. cleared by a benchmark): nothing to measure.
    }
  }, [items]);

  const choose = (item: ListItem | undefined) => {
    if (!item) return;
    onSelect(item.row);
    setOpen(false);
    setQuery('');
    inputRef.current?.blur();
  };

  const move = (to: number) => {
    if (items.length === 0) return;
    const next = Math.max(0, Math.min(items.length - 1, to));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!open) setOpen(true);
        else move(active + 1);
        break;
      case 'ArrowUp':
        event.preventDefault();
        move(active - 1);
        break;
      case 'PageDown':
        event.preventDefault();
        move(active + 8);
        break;
      case 'PageUp':
        event.preventDefault();
        move(active - 8);
        break;
      case 'Enter':
        if (open) {
          event.preventDefault();
          choose(items[active]);
        }
        break;
      case 'Escape':
        if (open) {
          event.preventDefault();
          setOpen(false);
        } else {
          setQuery('');
        }
        break;
      default:
    }
  };

  const activeId = open && items[active] ? `${id}-option-${active}` : undefined;
  const status = index.isError
    ? `Search is unavailable: ${index.error.message}`
    : !index.data
      ? 'Loading symbols…'
      : query.trim() === ''
        ? `${index.data.size.toLocaleString('en-US')} pairs`
        : `${items.length >= SEARCH_LIMIT ? `${SEARCH_LIMIT.toLocaleString('en-US')}+` : items.length.toLocaleString('en-US')} ${items.length === 1 ? 'match' : 'matches'}`;

  return (
    <div className="search" data-testid="pair-search" data-ready={index.data ? 'true' : 'false'}>
      <label className="visually-hidden" htmlFor={`${id}-input`}>
        Search pairs
      </label>
      <input
        ref={inputRef}
        id={`${id}-input`}
        className="search__input"
        type="search"
        role="combobox"
        placeholder="Search ticker, name, policy ID, fingerprint…"
        autoComplete="off"
        spellCheck={false}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeId}
        aria-describedby={`${id}-status`}
        data-testid="search-input"
        value={query}
        onFocus={() => {
          setUsed(true);
          setOpen(true);
        }}
        onBlur={(event) => {
          // Clicking an option keeps the list open long enough for the click.
          if (!listRef.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
        }}
        onChange={(event) => {
          performance.mark(SEARCH_MARK);
          measuring.current = true;
          setUsed(true);
          setQuery(event.target.value);
          setActive(0);
          setOpen(true);
          listRef.current?.scrollTo?.({ top: 0 });
        }}
        onKeyDown={onKeyDown}
      />
      <span id={`${id}-status`} className="visually-hidden" role="status" data-testid="search-status">
        {open ? status : ''}
      </span>
      <div className="search__popup" hidden={!open}>
        <div className="search__summary" aria-hidden="true">
          {status}
        </div>
        <div
          ref={listRef}
          id={listId}
          className="search__list"
          role="listbox"
          aria-label="Pairs"
          tabIndex={-1}
          data-testid="search-listbox"
          style={{ height: LIST_HEIGHT }}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((virtual) => {
              const item = items[virtual.index];
              if (!item) return null;
              const { row } = item;
              const selected = virtual.index === active;
              return (
                <div
                  key={virtual.index}
                  id={`${id}-option-${virtual.index}`}
                  role="option"
                  aria-selected={selected}
                  aria-setsize={items.length}
                  aria-posinset={virtual.index + 1}
                  aria-label={`${pairLabel(row)} on ${row.exchange}${row.tvl !== undefined ? `, TVL ${formatAmount(row.tvl)} ${row.base}` : ''}${item.recent ? ', recent' : ''}`}
                  className={`search__option${selected ? ' search__option--active' : ''}`}
                  data-testid="search-option"
                  data-symbol={row.symbol}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${virtual.start}px)` }}
                  onMouseDown={(event) => event.preventDefault()}
                  onMouseMove={() => {
                    if (!selected) setActive(virtual.index);
                  }}
                  onClick={() => choose(item)}
                >
                  <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={24} />
                  <span className="search__pair">
                    {pairLabel(row)}
                    {item.recent ? <span className="search__recent">Recent</span> : null}
                    {row.quoteName ? <span className="search__name">{row.quoteName}</span> : null}
                  </span>
                  <span className="search__dex">{row.exchange}</span>
                  <span className="search__tvl">{row.tvl !== undefined ? `${formatAmount(row.tvl)} ${row.base}` : '—'}</span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
