import type { ResolutionString } from '@/datafeed';
import { pageChart, type PageChart } from '@/app/lib/first-chart';
import { formatIndicators, parseIndicators } from './indicators';
import { formatLayout, LAYOUT_PARAMS, parseLayout, sameLayout, type Layout } from './layout';
import type { Currency } from './usd';

/**
 * What the chart shows — group, symbol, resolution — lives in the URL
 * (`/?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60`), so a view can be shared and back/forward
 * work. The selection store (stores/selection-store.ts) mirrors the URL: actions write history entries,
 * popstate reads them back.
 */
export interface Selection {
  readonly group: string;
  /** Symbol name, pool ID or token ticker as written in the URL; undefined: the group's deepest pair. */
  readonly symbol: string | undefined;
  /** Library resolution: 1, 5, 15, 60 or 1D. */
  readonly resolution: ResolutionString;
  /**
   * Orientation: false (default) shows `SNEK/ADA`, the price of one SNEK in ADA, as trading screens do;
   * true shows `ADA/SNEK`, the price of one ADA in SNEK (every price inverted). URL: `inv=1`.
   */
  readonly inverted: boolean;
  /** Indicators drawn on the chart, canonical (`sma20,ema50,bb20-2,vwap,rsi14`; lib/indicators). URL: `ind`. */
  readonly indicators: string;
  /** Prices in ADA (default) or in USD (lib/usd; ADA pairs only, not inverted). URL: `cur=usd`. */
  readonly currency: Currency;
  /** The screen: the pair's chart (default), or the market overview of the group (URL: `view=markets`). */
  readonly view: View;
  /** The charts beside the first (lib/layout.ts). URL: `layout`, `c2` … `c4`, `sync`. */
  readonly layout: Layout;
}

/** The app's screens: a pair's chart, or the list of a group's pairs. */
export type View = PageChart['view'];

/** The resolution buttons, finest first. */
export const RESOLUTION_CHOICES: readonly {
  readonly value: ResolutionString;
  readonly label: string;
  readonly name: string;
}[] = [
  { value: '1', label: '1m', name: '1 minute' },
  { value: '5', label: '5m', name: '5 minutes' },
  { value: '15', label: '15m', name: '15 minutes' },
  { value: '60', label: '1h', name: '1 hour' },
  { value: '1D', label: '1D', name: '1 day' },
];

/** Reads a selection from a query string. */
export function parseSelection(search: string): Selection {
  const params = new URLSearchParams(search);
  const { group, symbol, resolution, view } = pageChart(search);
  const inverted = params.get('inv') === '1';
  const indicators = formatIndicators(parseIndicators(params.get('ind')));
  const currency: Currency = params.get('cur')?.trim().toLowerCase() === 'usd' ? 'usd' : 'ada';
  return {
    group,
    symbol,
    resolution,
    inverted,
    indicators,
    currency,
    view,
    layout: parseLayout(params, { group, symbol }),
  };
}

/** The query string of a selection (group, symbol, res first), keeping unrelated parameters of `base`. */
export function formatSelection(selection: Selection, base = ''): string {
  const params = new URLSearchParams();
  params.set('group', selection.group);
  if (selection.symbol !== undefined) params.set('symbol', selection.symbol);
  params.set('res', selection.resolution);
  if (selection.inverted) params.set('inv', '1');
  if (selection.indicators !== '') params.set('ind', selection.indicators);
  if (selection.currency === 'usd') params.set('cur', 'usd');
  if (selection.view === 'markets') params.set('view', 'markets');
  formatLayout(selection.layout, params);
  for (const [name, value] of new URLSearchParams(base))
    if (!['group', 'symbol', 'res', 'resolution', 'inv', 'ind', 'cur', 'view', ...LAYOUT_PARAMS].includes(name))
      params.append(name, value);
  return `?${params.toString()}`;
}

export function sameSelection(a: Selection, b: Selection): boolean {
  return (
    a.group === b.group &&
    a.symbol === b.symbol &&
    a.resolution === b.resolution &&
    a.inverted === b.inverted &&
    a.indicators === b.indicators &&
    a.currency === b.currency &&
    a.view === b.view &&
    sameLayout(a.layout, b.layout)
  );
}
