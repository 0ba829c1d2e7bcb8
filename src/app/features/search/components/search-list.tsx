import { useEffect, type RefObject } from 'react';
import { TokenLogo } from '@/app/components/token-logo';
import { useFixedRows } from '@/app/hooks/use-fixed-rows';
import { formatAmount } from '@/app/lib/format';
import { pairLabel } from '@/app/lib/orientation';
import type { ListItem } from '../hooks/use-search-items';

const ROW_HEIGHT = 44;
/** The list's CSS height; used when layout reports none (jsdom). */
const LIST_HEIGHT = 352;

/**
 * The search's popup: its status and the listbox of pairs, virtualized (`listRef`: its scrolling
 * element); the active option in view. An option is picked with a click; a move over it makes it active.
 */
export function SearchList(props: {
  readonly id: string;
  readonly open: boolean;
  readonly items: readonly ListItem[];
  readonly active: number;
  readonly status: string;
  readonly listRef: RefObject<HTMLDivElement | null>;
  readonly onActive: (index: number) => void;
  readonly onChoose: (item: ListItem) => void;
}) {
  const { id, open, items, active, status, listRef, onActive, onChoose } = props;
  // The list has a fixed height: trusted when layout reports none.
  const rows = useFixedRows(listRef, {
    count: open ? items.length : 0,
    rowHeight: ROW_HEIGHT,
    overscan: 6,
    fallbackHeight: LIST_HEIGHT,
  });
  const { scrollToIndex } = rows;
  useEffect(() => {
    if (open && active < items.length) scrollToIndex(active);
  }, [open, active, items.length, scrollToIndex]);

  return (
    <div className="search__popup" hidden={!open}>
      <div className="search__summary" aria-hidden="true">
        {status}
      </div>
      <div
        ref={listRef}
        id={`${id}-list`}
        className="search__list"
        role="listbox"
        aria-label="Pairs"
        tabIndex={-1}
        data-testid="search-listbox"
        style={{ height: LIST_HEIGHT }}
      >
        <div style={{ height: rows.total, position: 'relative' }}>
          {rows.items.map((virtual) => {
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
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW_HEIGHT,
                  transform: `translateY(${virtual.start}px)`,
                }}
                onMouseDown={(event) => event.preventDefault()}
                onMouseMove={() => {
                  if (!selected) onActive(virtual.index);
                }}
                onClick={() => onChoose(item)}
              >
                <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={24} />
                <span className="search__pair">
                  {pairLabel(row)}
                  {item.recent ? <span className="search__recent">Recent</span> : null}
                  {row.quoteName ? <span className="search__name">{row.quoteName}</span> : null}
                </span>
                <span className="search__dex">{row.exchange}</span>
                <span className="search__tvl">
                  {row.tvl !== undefined ? `${formatAmount(row.tvl)} ${row.base}` : '—'}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
