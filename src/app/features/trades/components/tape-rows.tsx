import { useEffect, type RefObject } from 'react';
import { useFixedRows } from '@/app/hooks/use-fixed-rows';
import { formatAmount, formatPrice } from '@/app/lib/format';
import { formatDateTime, formatTimeOfDay } from '@/app/lib/time-format';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { TapeRow } from '../hooks/use-tape-rows';

const ROW_HEIGHT = 28;
/** The list's CSS height (styles/app.css, .tape__scroll); used when layout reports none (jsdom). */
const LIST_HEIGHT = 280;
/** Rows left below the view that ask for the next (older) page. */
const MORE_WITHIN = 20;
/** A trade of the Cardano chain (its event id is the transaction's hash and output), whatever the upstream: linked to an explorer. */
const CHAIN_ID = /^([0-9a-f]{64})#\d+$/i;

/** The tape's rows, virtualised in `scroller`; `onNearEnd` as the view nears the last row. */
export function TapeRows(props: {
  readonly rows: readonly TapeRow[];
  readonly scroller: RefObject<HTMLDivElement | null>;
  readonly zone: TimeZoneMode;
  readonly priceOf: (row: TapeRow) => number;
  readonly valueOf: (row: TapeRow) => number;
  readonly onNearEnd: () => void;
}) {
  const { rows, scroller, zone, priceOf, valueOf, onNearEnd } = props;
  const { items, total } = useFixedRows(scroller, { count: rows.length, rowHeight: ROW_HEIGHT, overscan: 10, fallbackHeight: LIST_HEIGHT });
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - MORE_WITHIN) onNearEnd();
  }, [lastIndex, rows.length, onNearEnd]);
  return (
    <div style={{ height: total, position: 'relative' }}>
      {items.map((item) => {
        const row = rows[item.index] as TapeRow;
        const tx = row.id ? CHAIN_ID.exec(row.id)?.[1]?.toLowerCase() : undefined;
        const price = priceOf(row);
        const value = valueOf(row);
        return (
          <div
            key={row.key}
            role="listitem"
            className={`tape__row tape__row--${row.side}`}
            data-testid="tape-row"
            data-side={row.side}
            style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
          >
            <span title={formatDateTime(row.time, zone, true)}>{formatTimeOfDay(row.time, zone)}</span>
            <span className="tape__side">{row.side === 'buy' ? 'Buy' : 'Sell'}</span>
            <span data-testid="tape-price" data-value={Number.isFinite(price) ? price : undefined}>
              {formatPrice(price)}
            </span>
            <span data-testid="tape-value" data-value={Number.isFinite(value) ? value : undefined}>
              {formatAmount(value)}
            </span>
            <span>{formatAmount(row.base_amount)}</span>
            <span>{formatAmount(row.quote_amount)}</span>
            <span data-testid="tape-dex">{row.group ?? ''}</span>
            <span>
              {tx ? (
                <a href={`https://cexplorer.io/tx/${tx}`} target="_blank" rel="noreferrer noopener" title="The transaction on a Cardano explorer" data-testid="tape-tx">
                  tx ↗
                </a>
              ) : null}
            </span>
          </div>
        );
      })}
    </div>
  );
}
