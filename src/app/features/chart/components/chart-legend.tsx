import { useSyncExternalStore } from 'react';
import { formatAmount, formatPercent, formatPrice, trendOf } from '../../../lib/format';
import type { ChartController } from '../lib/chart-controller';

/** O H L C, volume, TVL and change of the bar under the crosshair (the newest bar otherwise). */
export function ChartLegend({ controller, pricescale, title }: { controller: ChartController; pricescale: number | undefined; title: string | undefined }) {
  const bar = useSyncExternalStore(controller.subscribeLegend, controller.getLegend, controller.getLegend);
  if (!bar) return null;
  const price = (value: number) => formatPrice(value, pricescale);
  return (
    <dl className="chart-legend" data-testid="chart-legend" aria-label="Bar values">
      {title ? <span className="chart-legend__title">{title}</span> : null}
      <div>
        <dt>O</dt>
        <dd>{price(bar.open)}</dd>
      </div>
      <div>
        <dt>H</dt>
        <dd>{price(bar.high)}</dd>
      </div>
      <div>
        <dt>L</dt>
        <dd>{price(bar.low)}</dd>
      </div>
      <div>
        <dt>C</dt>
        <dd data-testid="legend-close">{price(bar.close)}</dd>
      </div>
      <div>
        <dt>Vol</dt>
        <dd>{formatAmount(bar.volume)}</dd>
      </div>
      <div>
        <dt>TVL</dt>
        <dd>{formatAmount(bar.tvl)}</dd>
      </div>
      <div>
        <dt className="visually-hidden">Change</dt>
        <dd className={`trend trend--${trendOf(bar.change)}`}>{formatPercent(bar.change)}</dd>
      </div>
    </dl>
  );
}
