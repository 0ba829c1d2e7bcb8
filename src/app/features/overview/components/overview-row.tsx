import type { MouseEvent } from 'react';
import { TokenLogo } from '@/app/components/token-logo';
import { formatAmount, formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import { pairLabel } from '@/app/lib/orientation';
import { sortValue, type OverviewRow as Row, type RowNumbers, type SortKey } from '../lib/rows';

/** One pair of the overview: its link (logo, pair, token name), price, 24 h change and volume, TVL. */
/**
 * A number not known yet. An element of its own, not the value's text: a right-aligned text node whose
 * text changed from "—" to the value would have moved its start, which the browser counts as a layout
 * shift (the Spread column's cells filling in when the spreads come after the rows).
 */
const PENDING = <span key="pending">—</span>;

export function OverviewRow(props: {
  readonly row: Row;
  readonly index: number;
  readonly numbers: RowNumbers;
  readonly name: string | undefined;
  readonly sortKey: SortKey;
  readonly href: string;
  readonly onOpen: (row: Row) => void;
}) {
  const { row, index, numbers, name, sortKey, href, onOpen } = props;
  const onClick = (event: MouseEvent<HTMLTableRowElement>) => {
    // A new tab or window (modifier keys, middle button) is the link's own business.
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    onOpen(row);
  };
  const unit = <span className="overview__unit"> {row.base}</span>;
  return (
    <tr
      className="overview__row"
      data-index={index}
      aria-rowindex={index + 2}
      data-testid="overview-row"
      data-symbol={row.symbol}
      data-pool={row.ticker}
      // What the row was sorted by (the numbers fetched; live trades move the cells, not the order).
      data-sort-value={sortValue(row, sortKey) ?? ''}
      onClick={onClick}
    >
      <th scope="row" className="overview__pair-cell">
        <a className="overview__pair" href={href} title={`Open the chart of ${pairLabel(row)} on ${row.group}`}>
          <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={22} ask={false} />
          <span className="overview__label">{pairLabel(row)}</span>
          {name ? <span className="overview__name">{name}</span> : null}
        </a>
      </th>
      <td className="overview__num" data-testid="overview-price" data-value={numbers.price ?? ''}>
        {numbers.price === undefined ? PENDING : <span key="value">{formatPrice(numbers.price)}</span>}
        {numbers.price === undefined ? null : unit}
      </td>
      <td
        className={`overview__num trend trend--${numbers.change === undefined ? 'flat' : percentTrend(numbers.change)}`}
        data-testid="overview-change"
        data-value={numbers.change ?? ''}
      >
        {numbers.change === undefined ? PENDING : <span key="value">{formatPercent(numbers.change)}</span>}
      </td>
      <td className="overview__num" data-testid="overview-volume" data-value={numbers.volume ?? ''}>
        {numbers.volume === undefined ? PENDING : <span key="value">{formatAmount(numbers.volume)}</span>}
        {numbers.volume === undefined ? null : unit}
      </td>
      <td className="overview__num" data-testid="overview-tvl" data-value={numbers.tvl ?? ''}>
        {numbers.tvl === undefined ? PENDING : <span key="value">{formatAmount(numbers.tvl)}</span>}
        {numbers.tvl === undefined ? null : unit}
      </td>
      <td className="overview__num" data-testid="overview-spread" data-value={row.spread ?? ''}>
        {row.spread === undefined ? PENDING : <span key="value">{formatPercent(row.spread)}</span>}
      </td>
    </tr>
  );
}
