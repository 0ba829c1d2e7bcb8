import type { LogicalRange } from 'lightweight-charts';
import type { Bar } from '@/datafeed';

/**
 * The chart's data attributes, on its place (the element `data-testid="price-chart"`), one job: what
 * tests and tools read of the chart without lightweight-charts' canvases (docs/app.md "Hooks for
 * browser tests"). Times in Unix seconds, prices as shown.
 */
export const chartAttributes = {
  /** data-status and data-live: the chart's state. */
  state(place: HTMLElement, state: { readonly status: string; readonly live: boolean }): void {
    place.dataset.status = state.status;
    place.dataset.live = String(state.live);
  },

  /** data-bars, data-first-time, data-last-time, data-last-close, data-symbol, data-resolution, data-currency, data-indicators; aria-valuemax and aria-valuenow. */
  bars(
    place: HTMLElement,
    shown: {
      readonly bars: readonly Bar[];
      readonly symbol: string;
      readonly resolution: string;
      readonly usd: boolean;
      readonly indicators: string;
    },
  ): void {
    const d = place.dataset;
    const first = shown.bars[0];
    const last = shown.bars.at(-1);
    d.bars = String(shown.bars.length);
    d.firstTime = first ? String(first.time) : '';
    d.lastTime = last ? String(last.time) : '';
    d.lastClose = last ? String(last.close) : '';
    d.symbol = shown.symbol;
    d.resolution = shown.resolution;
    d.currency = shown.usd ? 'usd' : 'ada';
    d.indicators = shown.indicators;
    // The place is a slider over the bars (components/price-chart.tsx), at the newest bar until the
    // keyboard's cursor (keyboard-cursor.ts) writes its own value after these.
    const count = String(Math.max(1, shown.bars.length));
    place.setAttribute('aria-valuemax', count);
    place.setAttribute('aria-valuenow', count);
  },

  /** data-visible-from / data-visible-to: the first and last bar in view. */
  visible(place: HTMLElement, bars: readonly Bar[], range: LogicalRange | null): void {
    const first = range ? bars[Math.max(0, Math.ceil(range.from))] : undefined;
    const last = range ? bars[Math.min(bars.length - 1, Math.floor(range.to))] : undefined;
    place.dataset.visibleFrom = first ? String(first.time) : '';
    place.dataset.visibleTo = last ? String(last.time) : '';
  },
};
