import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { SearchRow } from '@/datafeed';
import { useSearchIndex } from '../hooks/use-search-index';
import { useSearchItems, type ListItem, type RecentPick } from '../hooks/use-search-items';
import { SearchList } from './search-list';

export interface PairSearchProps {
  readonly onSelect: (row: SearchRow) => void;
  /** Recent picks, most recent first: listed first when the query is empty. */
  readonly recent?: readonly RecentPick[];
  /** The input's name (default "Search pairs"): a chart of a layout names its own. */
  readonly label?: string;
}

/** Performance entries the benchmark reads: one measure per keystroke, input to rendered results. */
export const SEARCH_MARK = 'search:input';
export const SEARCH_MEASURE = 'search:keystroke';
/** Options a Page Up or Down moves by. */
const PAGE = 8;

/**
 * Pair search: an ARIA combobox with a virtualized listbox. Results follow every keystroke (no Enter);
 * arrows move, Enter picks, Escape closes. Matches tickers, names, policy IDs, CIP-14 fingerprints and
 * pool IDs across every group.
 */
export function PairSearch({ onSelect, recent = [], label = 'Search pairs' }: PairSearchProps) {
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [used, setUsed] = useState(false);
  const index = useSearchIndex(used);
  const { items, status } = useSearchItems(index, query, recent);
  const id = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const measuring = useRef(false);

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
    if (items.length > 0) setActive(Math.max(0, Math.min(items.length - 1, to)));
  };
  const keys: Record<string, () => boolean> = {
    ArrowDown: () => (open ? move(active + 1) : setOpen(true), true),
    ArrowUp: () => (move(active - 1), true),
    PageDown: () => (move(active + PAGE), true),
    PageUp: () => (move(active - PAGE), true),
    Enter: () => (open ? (choose(items[active]), true) : false),
    Escape: () => (open ? setOpen(false) : setQuery(''), open),
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (keys[event.key]?.()) event.preventDefault();
  };

  return (
    <div className="search" data-testid="pair-search" data-ready={index.data ? 'true' : 'false'}>
      <label className="visually-hidden" htmlFor={`${id}-input`}>
        {label}
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
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={open && items[active] ? `${id}-option-${active}` : undefined}
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
      <SearchList
        id={id}
        open={open}
        items={items}
        active={active}
        status={status}
        listRef={listRef}
        onActive={setActive}
        onChoose={choose}
      />
    </div>
  );
}
