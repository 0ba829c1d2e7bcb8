import { ColorType, createChart, type IChartApi, type ISeriesApi, type Time } from 'lightweight-charts';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { ChartTimes } from '@/app/lib/chart-time';
import type { Palette } from '@/app/lib/palette';
import type { TimeZoneMode } from '@/app/lib/time-format';

/** A chart of lines (compare mode, the spread view): lightweight-charts, its lines and its time labels. */
export interface LineChart {
  readonly containerRef: RefObject<HTMLDivElement | null>;
  /** The chart, once made (undefined before the first effect and after unmount). */
  readonly chart: IChartApi | undefined;
  /** The lines drawn, for the caller to replace. */
  readonly seriesRef: RefObject<ISeriesApi<'Line'>[]>;
  /**
   * The lines' times on one scale: configured and reset by `displayTimes`, read by the axis labels.
   */
  displayTimes(times: readonly number[]): Map<number, number>;
}

/**
 * Makes a line chart in the returned container (auto-sized where ResizeObserver exists, else
 * `fallbackHeight` tall), coloured by `palette`, its time labels in `timeZone` (daily bars labelled as days).
 */
export function useLineChart(options: {
  readonly palette: Palette;
  readonly timeZone: TimeZoneMode;
  readonly daily: boolean;
  readonly fallbackHeight: number;
}): LineChart {
  const { palette, timeZone, daily, fallbackHeight } = options;
  const containerRef = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<IChartApi | undefined>(undefined);
  const seriesRef = useRef<ISeriesApi<'Line'>[]>([]);
  const timesRef = useRef(new ChartTimes());

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const autoSize = typeof ResizeObserver === 'function';
    const created = createChart(container, {
      // The licence's attribution is in the page's footer (see chart-style.ts).
      layout: { attributionLogo: false },
      autoSize,
      ...(autoSize ? {} : { width: container.clientWidth || 800, height: container.clientHeight || fallbackHeight }),
      rightPriceScale: { borderVisible: false },
      timeScale: { borderVisible: false, timeVisible: true, secondsVisible: false },
    });
    setChart(created);
    return () => {
      seriesRef.current = [];
      created.remove();
      setChart(undefined);
    };
  }, [fallbackHeight]);

  useEffect(() => {
    const times = timesRef.current;
    chart?.applyOptions({
      layout: { background: { type: ColorType.Solid, color: palette.background }, textColor: palette.text },
      grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
      localization: { timeFormatter: (time: Time) => times.label(Number(time)) },
      timeScale: { tickMarkFormatter: (time: Time, tickType: number) => times.tick(Number(time), tickType) },
    });
  }, [chart, palette, timeZone, daily]);

  // Every line's times on one scale: display times of their union (lib/chart-time.ts); true times stay the caller's.
  const displayTimes = useCallback(
    (all: readonly number[]) => {
      const times = timesRef.current;
      times.configure(timeZone, daily);
      const union = [...new Set(all)].sort((a, b) => a - b);
      const shown = times.reset(union);
      return new Map(union.map((time, i) => [time, shown[i] ?? time]));
    },
    [timeZone, daily],
  );

  return { containerRef, chart, seriesRef, displayTimes };
}
