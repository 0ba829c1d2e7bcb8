import { useId, useState, useSyncExternalStore } from 'react';
import { formatAmount, formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import type { LegendBar } from '../lib/chart-style';

/** What the legend reads of the chart (the ChartController): the bar under the crosshair, or the newest. */
export interface LegendSource {
  readonly subscribeLegend: (listener: () => void) => () => void;
  readonly getLegend: () => LegendBar | undefined;
}

/**
 * O H L C, volume, TVL and change of the bar under the crosshair (the newest bar otherwise). On narrow
 * screens (styles/app.css) it is compact: close and change on one line, the rest behind a button.
 * `pricescale` 0 or undefined (a symbol still being resolved): prices with significant digits.
 */
export function ChartLegend({ controller, pricescale, title }: { controller: LegendSource; pricescale: number | undefined; title: string | undefined }) {
  const bar = useSyncExternalStore(controller.subscribeLegend, controller.getLegend, controller.getLegend);
  const [expanded, setExpanded] = useState(false);
  const listId = useId();
  if (!bar) return null;
  // formatPrice takes a missing or 0 pricescale (a symbol still being resolved) as "significant digits".
  const price = (value: number) => formatPrice(value, pricescale);
  return (
    <div className="chart-legend" data-testid="chart-legend" data-expanded={expanded} role="group" aria-label="Bar values">
      {title ? <span className="chart-legend__title">{title}</span> : null}
      <dl className="chart-legend__values" id={listId}>
        <div className="chart-legend__extra">
          <dt>O</dt>
          <dd>{price(bar.open)}</dd>
        </div>
        <div className="chart-legend__extra">
          <dt>H</dt>
          <dd>{price(bar.high)}</dd>
        </div>
        <div className="chart-legend__extra">
          <dt>L</dt>
          <dd>{price(bar.low)}</dd>
        </div>
        <div>
          <dt>C</dt>
          <dd data-testid="legend-close">{price(bar.close)}</dd>
        </div>
        <div className="chart-legend__extra">
          <dt>Vol</dt>
          <dd>{formatAmount(bar.volume)}</dd>
        </div>
        <div className="chart-legend__extra">
          <dt>TVL</dt>
          <dd>{formatAmount(bar.tvl)}</dd>
        </div>
        <div>
          <dt className="visually-hidden">Change</dt>
          <dd className={`trend trend--${percentTrend(bar.change)}`}>{formatPercent(bar.change)}</dd>
        </div>
      </dl>
      <button type="button" className="chart-legend__more" aria-expanded={expanded} aria-controls={listId} aria-label="All bar values" onClick={() => setExpanded((e) => !e)}>
        {expanded ? '−' : '+'}
      </button>
    </div>
  );
}
