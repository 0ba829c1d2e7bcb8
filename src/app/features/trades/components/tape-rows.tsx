import { useEffect, type RefObject } from 'react';
import { useFixedRows } from '@/app/hooks/use-fixed-rows';
import { EXPLORERS, chainTxOf, type Explorer } from '@/app/lib/explorer';
import { formatAmount, formatPrice } from '@/app/lib/format';
import { formatDateTime, formatTimeOfDay } from '@/app/lib/time-format';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { TapeRow } from '../hooks/use-tape-rows';

const ROW_HEIGHT = 28;
/** The list's CSS height (styles/app.css, .tape__scroll); used when layout reports none (jsdom). */
const LIST_HEIGHT = 280;
/** Rows left below the view that ask for the next (older) page. */
const MORE_WITHIN = 20;

/** The tape's rows, virtualised in `scroller`; `onNearEnd` as the view nears the last row. */
export function TapeRows(props: {
  readonly rows: readonly TapeRow[];
  readonly scroller: RefObject<HTMLDivElement | null>;
  readonly zone: TimeZoneMode;
  readonly priceOf: (row: TapeRow) => number;
  readonly valueOf: (row: TapeRow) => number;
  readonly onNearEnd: () => void;
  /** Where a chain trade's transaction is shown (the trader settings' explorer). */
  readonly explorer: Explorer;
  /** The pointer is over a row (its trade's time) or left the rows (undefined): the chart marks its candle. */
  readonly onHoverTrade?: ((time: number | undefined) => void) | undefined;
}) {
  const { rows, scroller, zone, priceOf, valueOf, onNearEnd, explorer, onHoverTrade } = props;
  const { items, total } = useFixedRows(scroller, {
    count: rows.length,
    rowHeight: ROW_HEIGHT,
    overscan: 10,
    fallbackHeight: LIST_HEIGHT,
  });
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - MORE_WITHIN) onNearEnd();
  }, [lastIndex, rows.length, onNearEnd]);
  return (
    <div style={{ height: total, position: 'relative' }}>
      {items.map((item) => {
        const row = rows[item.index] as TapeRow;
        const tx = chainTxOf(row.id);
        const price = priceOf(row);
        const value = valueOf(row);
        return (
          <div
            key={row.key}
            role="listitem"
            className={`tape__row tape__row--${row.side}`}
            data-testid="tape-row"
            data-side={row.side}
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              height: ROW_HEIGHT,
              transform: `translateY(${item.start}px)`,
            }}
            onMouseEnter={onHoverTrade ? () => onHoverTrade(row.time) : undefined}
            onMouseLeave={onHoverTrade ? () => onHoverTrade(undefined) : undefined}
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
                <a
                  href={EXPLORERS[explorer].tx(tx)}
                  target="_blank"
                  rel="noreferrer noopener"
                  title={`The transaction on ${EXPLORERS[explorer].label}`}
                  data-testid="tape-tx"
                >
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
