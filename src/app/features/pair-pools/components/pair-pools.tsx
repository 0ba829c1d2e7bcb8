import { useQuery } from '@tanstack/react-query';
import type { SearchRow } from '@/datafeed';
import type { PairPool } from '@/shared/api/extensions';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { formatAmount, formatPercent, formatPrice } from '@/app/lib/format';
import { useApi, useDatafeed } from '@/app/providers/app-providers';
import { useAdaUsd } from '@/app/hooks/use-ada-usd';
import { invertPercent, invertPrice, priceUnit } from '@/app/lib/orientation';
import type { Currency } from '@/app/lib/usd';
import { pairPoolsQueryOptions } from '@/app/api/pair-pools';

export interface PairPoolsProps {
  readonly row: SearchRow;
  readonly onOpen: (pool: PairPool) => void;
  /** Prices inverted (lib/orientation): each pool's price and its deviation turned. */
  readonly inverted?: boolean;
  /** Prices, TVL and volumes in USD at ADA/USD now (lib/usd; an ADA pair, not inverted). */
  readonly currency?: Currency;
}

/**
 * Where an Aggregate comes from: its pair's pools with DEX, TVL and share, price and its deviation
 * from the Aggregate, 24 h volume, as the chart shows prices (inverted, or in USD). A click opens that
 * pool's chart. Refreshed every 15 s.
 */
export function PairPools({ row, onOpen, inverted = false, currency = 'ada' }: PairPoolsProps) {
  const api = useApi();
  const datafeed = useDatafeed();
  const query = useQuery(pairPoolsQueryOptions(api, datafeed, row));
  const usd = currency === 'usd';
  const adaUsd = useAdaUsd({ live: usd, enabled: usd });
  if (row.exchange !== AGGREGATE_GROUP) return null;
  const data = query.data;
  // USD: at ADA/USD now (NaN, shown as a dash, until it is known).
  const rate = !usd ? 1 : adaUsd.status === 'ready' ? adaUsd.now.rate : Number.NaN;
  const unit = usd ? 'USD' : row.base;
  const price = (value: number) => (usd ? value * rate : inverted ? invertPrice(value) : value);
  const deviation = (percent: number) => (inverted && !usd ? invertPercent(percent) : percent);
  return (
    <section className="pair-pools" aria-label="Pools of this pair" data-testid="pair-pools">
      <h2 className="pair-pools__title">
        Where the Aggregate comes from{data ? ` · ${data.pools.length} pool${data.pools.length === 1 ? '' : 's'}` : ''}
      </h2>
      {query.isError ? <p className="pair-pools__empty">The pools could not load: {query.error.message}</p> : null}
      {data ? (
        <table className="pair-pools__table">
          <thead>
            <tr>
              <th scope="col">DEX</th>
              <th scope="col">TVL ({unit})</th>
              <th scope="col">Share</th>
              <th scope="col">Price ({usd ? 'USD' : priceUnit(row, inverted)})</th>
              <th scope="col">vs Aggregate</th>
              <th scope="col">24 h volume ({unit})</th>
            </tr>
          </thead>
          <tbody>
            {data.pools.map((pool) => (
              <tr key={pool.pool_id} data-testid="pair-pool" data-pool={pool.pool_id} data-symbol={pool.symbol}>
                <td>
                  <button
                    type="button"
                    className="pair-pools__open"
                    onClick={() => onOpen(pool)}
                    title={`Open ${pool.symbol}`}
                  >
                    {pool.group}
                    {/_Pool([2-9]|\d\d+)$/.test(pool.symbol) ? ` #${pool.symbol.split('_Pool')[1]}` : ''}
                  </button>
                </td>
                <td>{formatAmount(pool.tvl * rate)}</td>
                <td data-testid="pool-share">{(pool.share * 100).toFixed(1)}%</td>
                <td
                  data-testid="pool-price"
                  data-value={Number.isFinite(price(pool.price)) ? price(pool.price) : undefined}
                >
                  {formatPrice(price(pool.price))}
                </td>
                <td className={deviation(pool.deviation_percent) >= 0 ? 'up' : 'down'} data-testid="pool-deviation">
                  {formatPercent(deviation(pool.deviation_percent))}
                </td>
                <td>{formatAmount(pool.volume_24h * rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : query.isPending ? (
        <p className="pair-pools__empty">Loading the pools…</p>
      ) : null}
    </section>
  );
}
