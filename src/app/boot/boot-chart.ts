import type { LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { barsOfHistory, type HistoryColumns } from '@/datafeed/history-bars';
import { addTvlSeries, createPriceChart, drawBars, showNewest, styleChart } from '@/app/features/chart/lib/chart-parts';
import { priceFormatOf, type ChartAppearance } from '@/app/features/chart/lib/chart-style';
import { ChartTimes } from '@/app/lib/chart-time';
import { invertBar } from '@/app/lib/orientation';
import { PALETTES } from '@/app/lib/palette';
import { PICTURE_MARK, type BootChart } from './boot-chart-handle';

export interface PictureRequest {
  /** The chart's place in the page frame (index.html), shown. */
  readonly slot: HTMLElement;
  /** The symbol name or pool ID the bars are of. */
  readonly target: string;
  /** Its stand-in symbol, as the app's chart first draws it (lib/provisional-symbol.ts). */
  readonly info: LibrarySymbolInfo;
  readonly resolution: ResolutionString;
  /** Seconds per bar of `resolution` (shared/first-chart.ts's resolutionSeconds, which the entry holds). */
  readonly barSeconds: number;
  readonly inverted: boolean;
  readonly appearance: ChartAppearance;
  /** The /history answer's body. */
  readonly body: unknown;
}

const numbers = (value: unknown): value is number[] => Array.isArray(value) && value.every((n) => typeof n === 'number' && Number.isFinite(n));

/** A /history body with bars (`s: "ok"`, columns of numbers of one length), else undefined. */
export function historyColumnsOf(body: unknown): HistoryColumns | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (b.s !== 'ok' || !numbers(b.t) || b.t.length === 0) return undefined;
  const n = b.t.length;
  const columns = [b.o, b.h, b.l, b.c, b.v];
  if (!columns.every((column) => numbers(column) && column.length === n)) return undefined;
  if (b.tvl !== undefined && !(numbers(b.tvl) && b.tvl.length === n)) return undefined;
  return body as HistoryColumns;
}

/**
 * The page's first picture of the chart (boot-chart-handle.ts): the first bars, as the boot script
 * asked them, drawn with the chart's own parts and style (chart-parts.ts: the same options, series,
 * panes, colours, price format and bars in view as the chart's first draw) into the page frame's
 * chart place, before React and the datafeed have loaded; made and drawn in one task (one paint).
 * Undefined (nothing drawn) when the frame is gone (the app rendered first) or the answer has no bars
 * (the app's chart says why).
 */
export function drawPicture(request: PictureRequest): BootChart | undefined {
  const { slot, target, info, resolution, barSeconds, inverted, appearance } = request;
  const columns = historyColumnsOf(request.body);
  if (!slot.isConnected || !columns) return undefined;
  const raw = barsOfHistory(columns);
  const bars = inverted ? raw.map(invertBar) : raw;
  const element = document.createElement('div');
  element.className = 'chart__picture';
  element.setAttribute('aria-hidden', 'true');
  element.dataset.testid = 'chart-picture';
  slot.append(element);
  const palette = PALETTES[appearance.theme];
  const times = new ChartTimes();
  times.configure(appearance.timeZone, barSeconds >= 86_400);
  const parts = createPriceChart(element);
  styleChart(parts, palette, times, appearance);
  const tvl = appearance.showTvl ? addTvlSeries(parts.chart, palette) : undefined;
  parts.candles.applyOptions({ priceFormat: priceFormatOf(info, bars.at(-1)?.close) });
  const display = times.reset(bars.map((b) => b.time));
  drawBars(parts, tvl, bars, palette, (i) => display[i] ?? bars[i]?.time ?? 0);
  showNewest(parts.chart, bars.length);
  performance.mark(PICTURE_MARK, { detail: { symbol: target, resolution, bars: bars.length } });
  let disposed = false;
  return {
    element,
    target,
    resolution,
    inverted,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      parts.chart.remove();
      element.remove();
    },
  };
}
