import type { PairPool } from '@/shared/api/extensions';
import { formatAmount, formatPercent, formatPrice } from '@/app/lib/format';
import { invertPrice } from '@/app/lib/orientation';
import { formatDateTime, type TimeZoneMode } from '@/app/lib/time-format';
import type { SpreadRow } from '../lib/spread-lines';

/**
 * The live table of the pair's pools: price (as shown), its difference from the best price among the
 * pools deep enough, TVL, 24 h volume, latest trade; a pool too thin to count says so. A DEX opens its chart.
 */
export function SpreadTable(props: {
  readonly rows: readonly SpreadRow[];
  readonly priceUnit: string;
  readonly baseUnit: string;
  readonly inverted: boolean;
  readonly zone: TimeZoneMode;
  readonly minTvl: number;
  readonly onOpen: (pool: PairPool) => void;
}) {
  const { rows, priceUnit, baseUnit, inverted, zone, minTvl, onOpen } = props;
  return (
    <table data-testid="spread-table">
      <caption>
        Difference from the best: above the lowest price among the pools with at least {formatAmount(minTvl)} ADA TVL.
        Refreshed with each trade of the pair and every 15 s.
      </caption>
      <thead>
        <tr>
          <th scope="col">DEX</th>
          <th scope="col">Price ({priceUnit})</th>
          <th scope="col">From the best</th>
          <th scope="col">TVL ({baseUnit})</th>
          <th scope="col">24 h volume ({baseUnit})</th>
          <th scope="col">Latest trade</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.pool_id} data-testid="spread-row" data-pool={row.pool_id} data-counts={String(row.counts)}>
            <td>
              <button
                type="button"
                className="pair-pools__open"
                onClick={() => onOpen(row)}
                title={`Open ${row.symbol}`}
              >
                {row.group}
                {/_Pool([2-9]|\d\d+)$/.test(row.symbol) ? ` #${row.symbol.split('_Pool')[1]}` : ''}
              </button>
            </td>
            <td
              data-testid="spread-price"
              data-value={row.price > 0 ? (inverted ? invertPrice(row.price) : row.price) : undefined}
            >
              {row.price > 0 ? formatPrice(inverted ? invertPrice(row.price) : row.price) : '—'}
            </td>
            <td data-testid="spread-from-best" data-value={row.fromBest ?? undefined}>
              {row.fromBest === null ? '—' : formatPercent(row.fromBest)}
              {row.counts ? '' : ' (too thin to count)'}
            </td>
            <td>{formatAmount(row.tvl)}</td>
            <td>{formatAmount(row.volume_24h)}</td>
            <td>
              {row.last_trade ? formatDateTime(row.last_trade, zone, true) : row.last_trade === null ? 'none yet' : '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
