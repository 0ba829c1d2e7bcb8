import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { UnknownSymbolError } from '@/app/api/resolve-symbol';
import { ErrorState } from '@/app/components/error-state';
import { PartBoundary } from '@/app/components/part-boundary';
import { ToggleButton } from '@/app/components/toggle-button';
import {
  PriceChart,
  type ChartAppearance,
  type ChartHandle,
  type ClickedCandle,
  type PrerenderedChart,
} from '@/app/features/chart';
import type { CompareHandle } from '@/app/features/compare';
import { SEARCH_INDEX_KEY } from '@/app/api/search-index';
import { TokenHeader, TokenHeaderPlaceholder } from '@/app/features/token-header';
// The storage check's own module: the drawings' code stays in its chunk until they are used.
import { hasDrawings } from '@/app/features/drawings/lib/storage-key';
// The placeholder's own module: the tape's code stays in its chunk.
import { TapePlaceholder } from '@/app/features/trades/components/tape-placeholder';
import { lazyPart } from '@/app/lib/lazy-part';
import { useApi, useDatafeed, usePreferences, useSelection } from '@/app/providers/app-providers';
import { ChartToolbar } from './chart-toolbar';
import { useExportSource } from './use-export-source';
import { useIndicators } from './use-indicators';
import type { PairState } from './use-pair';
import type { Prices } from './use-prices';

/** How long token metadata events are gathered into one reload (ms). */
const METADATA_COALESCE_MS = 500;
/** Compare mode, a chunk of its own: the first chart does not need it (start.tsx loads it first when compare mode is on). */
const comparePart = lazyPart(() => import('@/app/features/compare').then((m) => m.CompareChart));
const CompareChart = comparePart.Part;
export const preloadCompare = comparePart.preload;
/** Below the chart, once the pair is known: chunks loaded beside the first candles, not before them. */
const TradesTape = lazy(() => import('@/app/features/trades').then((m) => ({ default: m.TradesTape })));
/** Several charts, a chunk of its own: loaded when a layout beyond one chart is chosen. */
const ChartGrid = lazyPart(() => import('./chart-grid').then((m) => m.ChartGrid)).Part;
const PairPools = lazy(() => import('@/app/features/pair-pools').then((m) => ({ default: m.PairPools })));
/** The drawings, a chunk of their own: loaded when the Draw button is first pressed, or for a pair that has drawings kept. */
const DrawingTools = lazy(() => import('@/app/features/drawings').then((m) => ({ default: m.DrawingTools })));
/** A clicked candle's trades: a chunk loaded with the first click. */
const CandleTrades = lazy(() => import('@/app/features/candle-trades').then((m) => ({ default: m.CandleTrades })));
/** The pair on every DEX and its spread: a chunk loaded when first opened. */
const SpreadView = lazy(() => import('@/app/features/spread').then((m) => ({ default: m.SpreadView })));

/**
 * The chart page's main column: a notice, the pair's header (or why the pair could not load), the
 * toolbar, the chart (or compare mode), the trades tape and the pair's pools. `prerendered`: the chart
 * the page's first paint drew, which the chart takes over.
 */
export function ChartPage(props: {
  readonly pair: PairState;
  readonly prices: Prices;
  readonly notice: string | undefined;
  readonly title: string | undefined;
  readonly prerendered: PrerenderedChart | undefined;
}) {
  const { pair, prices, notice, title, prerendered } = props;
  const datafeed = useDatafeed();
  const queryClient = useQueryClient();
  const resolution = useSelection((s) => s.resolution);
  const select = useSelection((s) => s.select);
  const theme = usePreferences((s) => s.theme);
  const showVolume = usePreferences((s) => s.showVolume);
  const showTvl = usePreferences((s) => s.showTvl);
  const logScale = usePreferences((s) => s.logScale);
  const timeZone = usePreferences((s) => s.timeZone);
  const compare = usePreferences((s) => s.compare);
  const watchlist = usePreferences((s) => s.watchlist);
  const toggleWatch = usePreferences((s) => s.toggleWatch);
  const layout = useSelection((s) => s.layout);
  const [chartHandle, setChartHandle] = useState<ChartHandle | undefined>(undefined);
  const [compareHandle, setCompareHandle] = useState<CompareHandle | undefined>(undefined);
  const [drawing, setDrawing] = useState(false);
  const { resolved, current, fresh, chartInfo } = pair;
  // What the market knows of some tokens changed (names, tickers, decimals, logos), past the browser's HTTP cache
  // (the chart's live series reload themselves in the datafeed). When the pair shown is one of them, everything is
  // loaded again now, and the pair found again by its pool ID: a ticker that changed renames its pairs (the URL takes
  // the new name) and the chart takes its new symbol information (the price scale follows the decimals). Otherwise
  // answers are marked stale and loaded again when next used: a market naming thousands of tokens sends many such
  // events, and an open page does not ask for every list each time.
  const api = useApi();
  const shownRef = useRef(current);
  useEffect(() => {
    shownRef.current = current;
  }, [current]);
  useEffect(() => {
    // Events that come together (a token named, then its logo stored) are one reload.
    const units = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      timer = undefined;
      const shown = shownRef.current;
      const touched = shown !== undefined && (units.has(shown.row.baseUnit) || units.has(shown.row.quoteUnit));
      units.clear();
      if (touched && shown.info.ticker)
        select({ symbol: shown.info.ticker, group: shown.info.exchange }, { replace: true });
      void queryClient.invalidateQueries(touched ? undefined : { refetchType: 'none' });
    };
    const stop = datafeed.onMetadata((metadata) => {
      api.revalidate();
      for (const unit of metadata.units) units.add(unit);
      timer ??= setTimeout(reload, METADATA_COALESCE_MS);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [api, datafeed, queryClient, select]);
  const { indicators, changeIndicators } = useIndicators();
  const appearance: ChartAppearance = useMemo(
    () => ({ theme, showVolume, showTvl, logScale, timeZone }),
    [theme, showVolume, showTvl, logScale, timeZone],
  );
  const exportSource = useExportSource({
    compare,
    compareHandle,
    chartHandle,
    pair: current?.row,
    title,
    currency: prices.shownCurrency,
  });
  const watched = current
    ? watchlist.some((w) => w.symbol === current.info.name && w.group === current.info.exchange)
    : false;
  const [candle, setCandle] = useState<ClickedCandle | undefined>(undefined);
  const [spreadOpen, setSpreadOpen] = useState(false);
  // A tape row under the pointer marks its candle on the chart.
  const markTrade = useCallback((time: number | undefined) => chartHandle?.markTime(time), [chartHandle]);
  // The clicked candle's list, while the chart still shows that pool at that resolution.
  const shownCandle =
    candle && !compare && candle.resolution === resolution && candle.symbol.ticker === chartInfo?.ticker
      ? candle
      : undefined;

  const priceChart = (
    <PriceChart
      symbol={chartInfo}
      resolution={resolution}
      appearance={appearance}
      inverted={prices.shownInverted}
      indicators={indicators}
      usd={prices.usdRates}
      {...(title ? { title } : {})}
      prerendered={prerendered}
      onHandle={setChartHandle}
      onCandle={setCandle}
    />
  );

  if (resolved.isError) {
    return (
      <>
        {notice ? <Notice text={notice} /> : null}
        <ErrorState
          title={resolved.error instanceof UnknownSymbolError ? 'Unknown symbol' : 'The pair could not load'}
          message={resolved.error.message}
          testId="symbol-error"
          onRetry={() => {
            // An unknown symbol may exist by now: look again with fresh symbol lists.
            if (resolved.error instanceof UnknownSymbolError) {
              datafeed.refreshSymbols();
              void queryClient.invalidateQueries({ queryKey: SEARCH_INDEX_KEY });
            }
            void resolved.refetch();
          }}
          action={{
            label: 'Show the deepest Aggregate pair',
            onClick: () => select({ group: AGGREGATE_GROUP, symbol: undefined }),
          }}
        />
      </>
    );
  }
  return (
    <>
      {notice ? <Notice text={notice} /> : null}
      {current ? (
        <TokenHeader
          info={current.info}
          row={current.row}
          inverted={prices.shownInverted}
          currency={prices.shownCurrency}
          actions={
            <ToggleButton
              pressed={watched}
              onToggle={() => toggleWatch({ symbol: current.info.name, group: current.info.exchange })}
              label="Watch this pair"
              testId="watch-toggle"
            >
              {watched ? '★' : '☆'}
            </ToggleButton>
          }
        />
      ) : (
        <TokenHeaderPlaceholder />
      )}
      <ChartToolbar
        current={current}
        symbolName={chartInfo?.name}
        prices={prices}
        indicators={indicators}
        onIndicators={changeIndicators}
        exportSource={exportSource}
        spread={{ open: spreadOpen, onToggle: () => setSpreadOpen((open) => !open) }}
        drawing={drawing}
        onDrawing={() => setDrawing(!drawing)}
      />
      {!compare && current && (drawing || hasDrawings(current.info.exchange, current.info.name)) ? (
        <PartBoundary label="The drawing tools" testId="drawings-part-error">
          <Suspense fallback={null}>
            <DrawingTools
              host={chartHandle?.surface}
              group={current.info.exchange}
              symbol={current.info.name}
              open={drawing}
            />
          </Suspense>
        </PartBoundary>
      ) : null}
      {compare && current ? (
        <PartBoundary label="Compare mode" testId="compare-part-error">
          <Suspense
            fallback={
              <section className="chart" aria-label="Compare" aria-busy="true">
                <p className="chart__loading" role="status">
                  Loading the comparison…
                </p>
              </section>
            }
          >
            <CompareChart
              row={current.row}
              resolution={resolution}
              theme={theme}
              timeZone={timeZone}
              onHandle={setCompareHandle}
            />
          </Suspense>
        </PartBoundary>
      ) : layout.kind === '1' ? (
        priceChart
      ) : (
        <PartBoundary label="The charts of this layout" testId="grid-part-error">
          <Suspense
            fallback={
              <section className="chart" aria-label="Charts" aria-busy="true" data-testid="chart-grid-loading" />
            }
          >
            <ChartGrid appearance={appearance} firstTitle={title} firstHandle={chartHandle} first={priceChart} />
          </Suspense>
        </PartBoundary>
      )}
      {shownCandle && current ? (
        <PartBoundary
          label="The candle’s trades"
          testId="candle-trades-part-error"
          resetKey={`${shownCandle.symbol.ticker ?? ''}:${shownCandle.raw.time}`}
        >
          <Suspense fallback={<p role="status">Loading the candle’s trades…</p>}>
            <CandleTrades
              candle={shownCandle}
              pair={current.row}
              inverted={prices.shownInverted}
              onClose={() => setCandle(undefined)}
            />
          </Suspense>
        </PartBoundary>
      ) : null}
      {spreadOpen && current ? (
        <PartBoundary label="The spread" testId="spread-part-error" resetKey={current.row.ticker}>
          <Suspense fallback={<p role="status">Loading the spread…</p>}>
            <SpreadView
              row={current.row}
              resolution={resolution}
              inverted={prices.shownInverted}
              onOpen={(pool) => select({ symbol: pool.symbol, group: pool.group })}
              onClose={() => setSpreadOpen(false)}
            />
          </Suspense>
        </PartBoundary>
      ) : null}
      {fresh ? (
        <PartBoundary label="The trades" testId="tape-part-error" resetKey={fresh.row.ticker}>
          <Suspense fallback={<TapePlaceholder />}>
            <TradesTape
              info={fresh.info}
              base={fresh.row.base}
              quote={fresh.row.quote}
              baseUnit={fresh.row.baseUnit}
              inverted={prices.shownInverted}
              currency={prices.shownCurrency}
              onHoverTrade={markTrade}
            />
          </Suspense>
        </PartBoundary>
      ) : (
        <TapePlaceholder />
      )}
      {fresh && fresh.row.exchange === AGGREGATE_GROUP ? (
        <PartBoundary label="The pools of this pair" testId="pools-part-error" resetKey={fresh.row.ticker}>
          <Suspense fallback={null}>
            <PairPools
              row={fresh.row}
              inverted={prices.shownInverted}
              currency={prices.shownCurrency}
              onOpen={(pool) => select({ symbol: pool.symbol, group: pool.group })}
            />
          </Suspense>
        </PartBoundary>
      ) : null}
    </>
  );
}

function Notice({ text }: { readonly text: string }) {
  return (
    <p className="notice" role="status" data-testid="notice">
      {text}
    </p>
  );
}
