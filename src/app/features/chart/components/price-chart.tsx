import { useEffect, useEffectEvent, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Bar, LibrarySymbolInfo, ResolutionString } from '@/datafeed';
import { ErrorState } from '@/app/components/error-state';
import { ProgressBar } from '@/app/components/progress-bar';
import { useDatafeed } from '@/app/providers/app-providers';
import { parseIndicators } from '@/app/lib/indicators';
import type { UsdRates } from '@/app/api/ada-usd';
import { ChartController, type ChartAppearance } from '../lib/chart-controller';
import { takeBootChart } from '@/app/boot/boot-chart-handle';
import { ChartLegend } from './chart-legend';

/** What other features (export) may ask of the chart; handed to the shell through `onHandle`. */
export interface ChartHandle {
  readonly symbolName: string;
  visibleBars(): Bar[];
  screenshot(): HTMLCanvasElement;
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
  readonly onHandle?: (handle: ChartHandle | undefined) => void;
}

/**
 * The candlestick chart with volume and TVL, its legend, and its loading, empty and error states.
 * Container: data-testid="price-chart" with data-status, data-bars, data-last-time, data-last-close.
 */
export function PriceChart({ symbol, resolution, appearance, inverted = false, indicators = '', usd, title, onHandle }: PriceChartProps) {
  const datafeed = useDatafeed();
  const containerRef = useRef<HTMLDivElement>(null);
  const [controller, setController] = useState<ChartController | undefined>(undefined);
  // The props at creation time; later changes go through the effects below.
  const current = useEffectEvent(() => ({ appearance, inverted, usd, indicators, symbol, resolution }));

  // Created before the first paint and given its symbol at once: the first bars are asked in the same
  // task, not after a render for the controller (about 40 ms of a first load; the effects below then
  // find everything set already: each setter ignores a value it has).
  useLayoutEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const now = current();
    const created = new ChartController(container, datafeed, now.appearance);
    created.setInverted(now.inverted);
    created.setUsd(now.usd);
    created.setIndicators(parseIndicators(now.indicators));
    if (now.symbol) created.setSymbol(now.symbol, now.resolution);
    // The page's first picture of these bars (boot/boot-chart-handle.ts) stays over the chart until it
    // has drawn them itself.
    const uncover = cover(container, created, now);
    setController(created);
    return () => {
      uncover();
      created.dispose();
      setController(undefined);
    };
  }, [datafeed]);

  useEffect(() => {
    controller?.setIndicators(parseIndicators(indicators));
  }, [controller, indicators]);

  // Before the symbol: the first bars already come in the chosen orientation.
  useEffect(() => {
    controller?.setInverted(inverted);
  }, [controller, inverted]);

  useEffect(() => {
    controller?.setUsd(usd);
  }, [controller, usd]);

  useEffect(() => {
    if (controller && symbol) controller.setSymbol(symbol, resolution);
  }, [controller, symbol, resolution]);

  useEffect(() => {
    controller?.setAppearance(appearance);
  }, [controller, appearance]);

  useEffect(() => {
    if (!onHandle) return undefined;
    if (!controller || !symbol) {
      onHandle(undefined);
      return undefined;
    }
    onHandle({ symbolName: symbol.name, visibleBars: () => controller.visibleBars(), screenshot: () => controller.screenshot() });
    return () => onHandle(undefined);
  }, [controller, symbol, onHandle]);

  return (
    <section className="chart" aria-label={title ? `Price chart of ${title}` : 'Price chart'}>
      <div className="chart__canvas" ref={containerRef} data-testid="price-chart" role="img" aria-label={title ? `Candlestick chart of ${title}` : 'Candlestick chart'} />
      {controller ? <ChartOverlay controller={controller} resolving={!symbol} pricescale={inverted || usd ? undefined : symbol?.pricescale} title={title} /> : null}
    </section>
  );
}

/**
 * Puts the page's first picture of the chart, when it shows what this chart is about to draw (the same
 * symbol, resolution and orientation, in ADA, without indicators), over the chart until the chart has
 * drawn its own bars or says why not; any other picture is dropped. Returns the undo.
 */
function cover(
  container: HTMLElement,
  controller: ChartController,
  now: { symbol: LibrarySymbolInfo | undefined; resolution: ResolutionString; inverted: boolean; usd: UsdRates | undefined; indicators: string },
): () => void {
  const picture = takeBootChart();
  if (!picture) return () => undefined;
  const section = container.parentElement;
  const fits =
    section !== null &&
    (now.symbol === undefined || now.symbol.name === picture.target) &&
    picture.resolution === now.resolution &&
    picture.inverted === now.inverted &&
    now.usd === undefined &&
    parseIndicators(now.indicators).length === 0;
  if (!fits) {
    picture.dispose();
    return () => undefined;
  }
  section.append(picture.element);
  let stop: (() => void) | undefined;
  const done = () => {
    stop?.();
    stop = undefined;
    picture.dispose();
  };
  stop = controller.subscribe(() => {
    const { status } = controller.getState();
    if (status !== 'idle' && status !== 'loading') done();
  });
  return done;
}

function ChartOverlay({ controller, resolving, pricescale, title }: { controller: ChartController; resolving: boolean; pricescale: number | undefined; title: string | undefined }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState, controller.getState);
  const loading = resolving || state.status === 'loading' || state.status === 'idle';
  return (
    <>
      <ChartLegend controller={controller} pricescale={pricescale} title={title} />
      {loading ? (
        <div className="chart__overlay" data-testid="chart-loading">
          <ProgressBar label={resolving ? 'Finding the symbol…' : 'Loading bars…'} value={resolving ? 1 : 2} max={3} />
        </div>
      ) : null}
      {state.status === 'error' ? (
        <div className="chart__overlay">
          <ErrorState title="The chart could not load" message={state.error ?? 'Unknown error'} onRetry={() => controller.retry()} testId="chart-error" />
        </div>
      ) : null}
      {state.status === 'empty' ? (
        <div className="chart__overlay" data-testid="chart-empty" role="status">
          <p className="empty-state__title">No trades yet</p>
          <p className="empty-state__text">This pool has no trades at this resolution. New trades appear here as they happen.</p>
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
