import { useEffect, useEffectEvent, useId, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Bar, LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { ErrorState } from '@/app/components/error-state';
import { ProgressBar } from '@/app/components/progress-bar';
import { useDatafeed } from '@/app/providers/app-providers';
import { parseIndicators } from '@/app/lib/indicators';
import type { UsdRates } from '@/app/api/usd-rates';
import { Chart, sameSymbol, type ChartLink, type ChartSurface, type ClickedCandle } from '../lib/chart';
import type { ChartAppearance } from '../lib/chart-style';
import type { PrerenderedChart } from '../lib/prerendered-chart';

/** What other features (export) may ask of the chart; handed to the shell through `onHandle`. */
export interface ChartHandle {
  readonly symbolName: string;
  visibleBars(): Bar[];
  screenshot(): HTMLCanvasElement;
  /** What drawing tools draw on (features/drawings). */
  readonly surface: ChartSurface;
  /** lightweight-charts' chart and candles (several charts kept in step). */
  link(): ChartLink;
  /** Marks the candle holding a trade's time (the tape's hovered row), or takes the mark away. */
  markTime(time: number | undefined): void;
}

export interface PriceChartProps {
  /** The symbol; undefined while it is being resolved. */
  readonly symbol: LibrarySymbolInfo | undefined;
  readonly resolution: ResolutionString;
  readonly appearance: ChartAppearance;
  /** Prices inverted (lib/orientation). */
  readonly inverted?: boolean;
  /** Indicators, canonical (lib/indicators). */
  readonly indicators?: string;
  /** Prices in USD with these rates (lib/usd); undefined: in ADA. */
  readonly usd?: UsdRates | undefined;
  /** Shown in the legend: `ADA/SNEK` ... */
  readonly title?: string;
  /** The chart the page's first paint drew, to take over when it shows this symbol and resolution. */
  readonly prerendered?: PrerenderedChart | undefined;
  readonly onHandle?: (handle: ChartHandle | undefined) => void;
  /** A candle clicked (its trades are listed). */
  readonly onCandle?: ((candle: ClickedCandle) => void) | undefined;
}

/**
 * The candlestick chart (lib/chart.ts) with its loading, empty and error states. Its place:
 * data-testid="price-chart" with the chart's data attributes (data-status, data-bars, ...).
 */
export function PriceChart({
  symbol,
  resolution,
  appearance,
  inverted = false,
  indicators = '',
  usd,
  title,
  prerendered,
  onHandle,
  onCandle,
}: PriceChartProps) {
  const datafeed = useDatafeed();
  const containerRef = useRef<HTMLDivElement>(null);
  const [chart, setChart] = useState<Chart | undefined>(undefined);
  const keysId = useId();
  // The props at creation time; later changes go through the effects below.
  const current = useEffectEvent(() => ({
    appearance,
    inverted,
    usd,
    indicators,
    symbol,
    resolution,
    title,
    prerendered,
  }));

  // Made (or taken over from the page's first paint) before the first paint and given everything at
  // once: the first bars are asked in the same task, and a chart taken over keeps what it drew (each
  // setter ignores a value it has).
  useLayoutEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const now = current();
    const adopted = now.prerendered?.take(
      (shows) =>
        shows.resolution === now.resolution &&
        (now.symbol === undefined || sameSymbol(now.symbol, { ...now.symbol, name: shows.target, ticker: undefined })),
    );
    const made = adopted ?? new Chart(container, now.appearance);
    made.place(container);
    made.setAppearance(now.appearance);
    made.setInverted(now.inverted);
    made.setUsd(now.usd);
    made.setTitle(now.title);
    if (now.symbol) made.setSymbol(now.symbol, now.resolution);
    made.connect(datafeed);
    made.setIndicators(parseIndicators(now.indicators));
    setChart(made);
    return () => {
      made.dispose();
      setChart(undefined);
    };
  }, [datafeed]);

  useEffect(() => {
    chart?.setIndicators(parseIndicators(indicators));
  }, [chart, indicators]);

  // Before the symbol: the first bars already come in the chosen orientation.
  useEffect(() => {
    chart?.setInverted(inverted);
  }, [chart, inverted]);

  useEffect(() => {
    chart?.setUsd(usd);
  }, [chart, usd]);

  useEffect(() => {
    if (chart && symbol) chart.setSymbol(symbol, resolution);
  }, [chart, symbol, resolution]);

  useEffect(() => {
    chart?.setAppearance(appearance);
  }, [chart, appearance]);

  useEffect(() => {
    chart?.setTitle(title);
  }, [chart, title]);

  useEffect(() => {
    chart?.onCandle(onCandle);
  }, [chart, onCandle]);

  useEffect(() => {
    if (!onHandle) return undefined;
    if (!chart || !symbol) {
      onHandle(undefined);
      return undefined;
    }
    onHandle({
      symbolName: symbol.name,
      visibleBars: () => chart.visibleBars(),
      screenshot: () => chart.screenshot(),
      surface: chart.surface(),
      link: () => chart.link(),
      markTime: (time) => chart.markTime(time),
    });
    return () => onHandle(undefined);
  }, [chart, symbol, onHandle]);

  return (
    <section className="chart" aria-label={title ? `Price chart of ${title}` : 'Price chart'}>
      {/*
        A slider, not an image: its keys (lib/keyboard-cursor.ts) are APG's slider pattern's; a widget role puts screen
        readers in focus mode, where keys reach it (browse mode keeps arrows over an image; "application" takes every key
        from the reader); its value, the candle under the cursor, is read out as it changes; its children are
        presentational, as an image's. The cursor writes the value (here: before it is loaded), the chart the count.
      */}
      <div
        className="chart__canvas"
        ref={containerRef}
        data-testid="price-chart"
        role="slider"
        tabIndex={0}
        aria-valuemin={1}
        aria-valuetext="No candle chosen"
        aria-label={title ? `Candlestick chart of ${title}` : 'Candlestick chart'}
        aria-describedby={keysId}
      />
      {/* Its description only (read with it, not again as the page's text). */}
      <p id={keysId} hidden>
        Arrow keys move between candles, Page Up and Page Down by ten, Home and End to the first and last; Enter lists
        the candle’s trades.
      </p>
      {chart ? <ChartOverlay chart={chart} resolving={!symbol} /> : null}
    </section>
  );
}

/** The chart's loading, error, empty and older-bars notes over it. */
function ChartOverlay({ chart, resolving }: { chart: Chart; resolving: boolean }) {
  const state = useSyncExternalStore(chart.subscribe, chart.getState, chart.getState);
  const loading = resolving || state.status === 'loading' || state.status === 'idle';
  return (
    <>
      {loading ? (
        <div className="chart__overlay" data-testid="chart-loading">
          <ProgressBar label={resolving ? 'Finding the symbol…' : 'Loading bars…'} value={resolving ? 1 : 2} max={3} />
        </div>
      ) : null}
      {state.status === 'error' ? (
        <div className="chart__overlay">
          <ErrorState
            title="The chart could not load"
            message={state.error ?? 'Unknown error'}
            onRetry={() => chart.retry()}
            testId="chart-error"
          />
        </div>
      ) : null}
      {state.status === 'empty' ? (
        <div className="chart__overlay" data-testid="chart-empty" role="status">
          <p className="empty-state__title">No trades yet</p>
          <p className="empty-state__text">
            This pool has no trades at this resolution. New trades appear here as they happen.
          </p>
        </div>
      ) : null}
      {state.loadingOlder ? (
        <div className="chart__older" role="status" data-testid="chart-loading-older">
          Loading older bars…
        </div>
      ) : null}
    </>
  );
}
