import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useState, type MouseEvent } from 'react';
import type { SearchRow } from '@/datafeed';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { findPairInGroup, provisionalSymbolInfo, resolvedSymbolQueryOptions, UnknownSymbolError } from './api/resolve-symbol';
import { dropBootChart } from './boot/boot-chart-handle';
import { ErrorState } from './components/error-state';
import { PartBoundary } from './components/part-boundary';
import { ToggleButton } from './components/toggle-button';
import type { CompareHandle } from './features/compare';
import { IndicatorMenu, PriceChart, type ChartAppearance, type ChartHandle } from './features/chart';
import { ExportMenu, type ExportSource } from './features/export';
import { PairSearch } from './features/search';
import { ChartToggles, ConnectionStatus, CurrencySwitch, deepestOf, DisplayToggles, gatewayInfoQueryOptions, GroupPicker, ResolutionButtons, SimulatedBadge } from './features/shell';
import { TokenHeader, TokenHeaderPlaceholder } from './features/token-header';
import { Watchlist } from './features/watchlist';
import { useApi, useDatafeed, usePreferences, useSelection, useUsdRates } from './providers/app-providers';
import { lazyPart } from './lib/lazy-part';
import { invertLabel, pairOfName } from './lib/invert-label';
import { pairLabel } from './lib/orientation';
import { usdPairLabel, type Currency } from './lib/usd';
import { useAdaUsd } from './hooks/use-ada-usd';
import { formatSelection, type View } from './stores/selection-store';

/**
 * The market overview, a chunk of its own: the chart page does not load it (start.tsx loads it before
 * the first render of a page opened on it; pointing at the Markets link loads it too).
 */
const overviewPart = lazyPart(() => import('./features/overview').then((m) => m.MarketOverview));
const MarketOverview = overviewPart.Part;
export const preloadOverview = overviewPart.preload;
/** Compare mode, a chunk of its own: the first chart does not need it (start.tsx loads it first when compare mode is on). */
const comparePart = lazyPart(() => import('./features/compare').then((m) => m.CompareChart));
const CompareChart = comparePart.Part;
export const preloadCompare = comparePart.preload;
/** Below the chart, once the pair is known: chunks loaded beside the first candles, not before them. */
const TradesTape = lazy(() => import('./features/trades').then((m) => ({ default: m.TradesTape })));
const PairPools = lazy(() => import('./features/pair-pools').then((m) => ({ default: m.PairPools })));

/** Key of the overview's place (sort, filter, scroll) in its history entry. */
const OVERVIEW_PLACE = 'overview';

/** A plain left click (a new tab or window is the link's own business). */
const plainClick = (event: MouseEvent) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/**
 * The shell: top bar (search, group, connection, display), the pair's header, the chart toolbar, the
 * chart (or compare mode), the watchlist. It composes the features and owns the flow between them:
 * the URL's selection is resolved here and handed down.
 */
export function App() {
  const datafeed = useDatafeed();
  const api = useApi();
  const queryClient = useQueryClient();
  const group = useSelection((s) => s.group);
  const symbol = useSelection((s) => s.symbol);
  const resolution = useSelection((s) => s.resolution);
  const inverted = useSelection((s) => s.inverted);
  const indicators = useSelection((s) => s.indicators);
  const savedIndicators = usePreferences((s) => s.indicators);
  const saveIndicators = usePreferences((s) => s.setIndicators);
  const currency = useSelection((s) => s.currency);
  const savedCurrency = usePreferences((s) => s.currency);
  const saveCurrency = usePreferences((s) => s.setCurrency);
  const select = useSelection((s) => s.select);
  const view = useSelection((s) => s.view);
  const placeOf = useSelection((s) => s.place);
  const keepPlace = useSelection((s) => s.keepPlace);
  const theme = usePreferences((s) => s.theme);
  const showVolume = usePreferences((s) => s.showVolume);
  const showTvl = usePreferences((s) => s.showTvl);
  const logScale = usePreferences((s) => s.logScale);
  const timeZone = usePreferences((s) => s.timeZone);
  const compare = usePreferences((s) => s.compare);
  const recent = usePreferences((s) => s.recent);
  const watchlist = usePreferences((s) => s.watchlist);
  const addRecent = usePreferences((s) => s.addRecent);
  const toggleWatch = usePreferences((s) => s.toggleWatch);
  const [chartHandle, setChartHandle] = useState<ChartHandle | undefined>(undefined);
  const [compareHandle, setCompareHandle] = useState<CompareHandle | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);

  // The overview needs no symbol: nothing is resolved (no symbol list loaded) while it is shown.
  const resolved = useQuery({ ...resolvedSymbolQueryOptions(datafeed, symbol, group), placeholderData: keepPreviousData, enabled: view === 'chart' });
  const current = resolved.isError ? undefined : resolved.data;
  const fresh = resolved.isPlaceholderData ? undefined : current;
  // Without a symbol in the URL, the group's deepest pool as the gateway names it (/info, a few hundred
  // bytes, instead of the group's symbol list); a gateway that does not know waits for the search.
  const info = useQuery(gatewayInfoQueryOptions(api));
  const deepest = symbol === undefined ? deepestOf(info.data, group) : undefined;
  // The chart starts on a stand-in while the symbol resolves (getBars only needs a name or pool ID).
  const provisional = useMemo(() => provisionalSymbolInfo(symbol ?? deepest), [symbol, deepest]);
  const chartInfo = fresh?.info ?? provisional;

  // USD prices (lib/usd, docs/app.md "USD prices"): for pairs against ADA, on a market with a USD
  // stablecoin pool; shown at once when asked (the stablecoins' statistics confirm it meanwhile). In ADA
  // the switch asks whether USD is available once the pair is there, not before the first candles.
  const usdRates = useUsdRates();
  const adaUsd = useAdaUsd({ enabled: currency === 'usd' || fresh !== undefined });
  const usdUnavailable =
    current && current.row.baseUnit !== ''
      ? `USD prices are for pairs against ADA (this one is priced in ${current.row.base})`
      : adaUsd.status === 'none' || adaUsd.status === 'error'
        ? adaUsd.reason
        : undefined;
  const usd = currency === 'usd' && usdUnavailable === undefined;
  // In USD the price is the token's: the pair is not inverted (the toggle is off meanwhile).
  const shownInverted = inverted && !usd;
  const shownCurrency: Currency = usd ? 'usd' : 'ada';
  const labelOf = useCallback((row: { base: string; quote: string }) => (usd ? usdPairLabel(row) : pairLabel(row, shownInverted)), [usd, shownInverted]);

  // The URL names the symbol canonically (a ticker or an empty symbol becomes the symbol's name).
  useEffect(() => {
    const data = resolved.data;
    if (!data || resolved.isPlaceholderData || view !== 'chart') return;
    if (symbol === data.info.name && group === data.info.exchange) return;
    queryClient.setQueryData(resolvedSymbolQueryOptions(datafeed, data.info.name, data.info.exchange).queryKey, data);
    select({ symbol: data.info.name, group: data.info.exchange }, { replace: true });
  }, [resolved.data, resolved.isPlaceholderData, symbol, group, datafeed, queryClient, select, view]);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  // The page's first picture of the chart (boot/boot-chart-handle.ts) is the chart's to take, in its
  // own layout effect (before this one): a first screen without that chart drops it.
  useLayoutEffect(() => dropBootChart(), []);

  // A URL without indicators gets the ones last chosen (preferences); a URL with some keeps its own.
  const [initialIndicators] = useState(() => ({ url: indicators, saved: savedIndicators }));
  useEffect(() => {
    if (initialIndicators.url === '' && initialIndicators.saved !== '') select({ indicators: initialIndicators.saved }, { replace: true });
  }, [initialIndicators, select]);
  // The same for the currency: a URL without `cur` gets the one last chosen.
  const [initialCurrency] = useState(() => ({ url: currency, saved: savedCurrency }));
  useEffect(() => {
    if (initialCurrency.url === 'ada' && initialCurrency.saved === 'usd') select({ currency: 'usd', inverted: false }, { replace: true });
  }, [initialCurrency, select]);
  const changeCurrency = (next: Currency) => {
    saveCurrency(next);
    select(next === 'usd' ? { currency: next, inverted: false } : { currency: next });
  };

  const pageTitle =
    view === 'markets' ? `Markets on ${group} · Cardano DEX Charts` : fresh ? `${labelOf(fresh.row)} on ${fresh.row.exchange} · Cardano DEX Charts` : 'Cardano DEX Charts';
  useEffect(() => {
    document.title = pageTitle;
  }, [pageTitle]);

  const appearance: ChartAppearance = useMemo(() => ({ theme, showVolume, showTvl, logScale, timeZone }), [theme, showVolume, showTvl, logScale, timeZone]);

  const pick = useCallback(
    (row: SearchRow) => {
      setNotice(undefined);
      addRecent({ symbol: row.symbol, group: row.exchange });
      select({ symbol: row.symbol, group: row.exchange, view: 'chart' });
    },
    [addRecent, select],
  );

  const changeGroup = async (next: string) => {
    setNotice(undefined);
    // The overview lists any group; the chart looks for the same pair there.
    if (view === 'markets') {
      select({ group: next });
      return;
    }
    const row = current?.row;
    if (!row) {
      select({ group: next, symbol: undefined });
      return;
    }
    const match = await findPairInGroup(datafeed, row, next).catch(() => undefined);
    if (match) {
      select({ group: next, symbol: match.symbol });
    } else {
      setNotice(`${pairLabel(row)} has no pool on ${next}: showing ${next}’s deepest pair.`);
      select({ group: next, symbol: undefined });
    }
  };

  const watched = current ? watchlist.some((w) => w.symbol === current.info.name && w.group === current.info.exchange) : false;
  const title = current ? `${labelOf(current.row)} on ${current.row.exchange}` : undefined;
  const pair = current?.row;
  const exportSource = useMemo((): ExportSource | undefined => {
    if (compare) {
      if (!compareHandle || !pair) return undefined;
      return {
        kind: 'series',
        fileStem: `${pair.base}.${pair.quote}-compare`,
        title: `${pairLabel(pair)}: Aggregate and DEX pools, % change`,
        visibleSeries: () => compareHandle.visibleLines().map((line) => ({ header: `${line.symbol} (%)`, points: line.points })),
        legend: () => compareHandle.visibleLines().map((line) => ({ label: line.group, color: line.color })),
        screenshot: () => compareHandle.screenshot(),
      };
    }
    if (!chartHandle) return undefined;
    return {
      kind: 'bars',
      fileStem: usd ? `${chartHandle.symbolName}-usd` : chartHandle.symbolName,
      title: title ?? chartHandle.symbolName,
      currency: shownCurrency,
      visibleBars: () => chartHandle.visibleBars(),
      screenshot: () => chartHandle.screenshot(),
    };
  }, [compare, compareHandle, chartHandle, pair, title, usd, shownCurrency]);

  const hrefOf = (next: { readonly symbol?: string | undefined; readonly group: string; readonly view: View }) =>
    `${location.pathname}${formatSelection({ group: next.group, symbol: next.symbol, resolution, inverted, indicators, currency, view: next.view }, location.search)}`;
  const showView = (next: View) => (event: MouseEvent) => {
    if (!plainClick(event)) return;
    event.preventDefault();
    select({ view: next });
  };
  const overview =
    view === 'markets' ? (
      <PartBoundary label="The market overview" testId="overview-part-error" resetKey={group}>
        <Suspense
          fallback={
            <p className="overview__loading" role="status">
              Loading the market overview…
            </p>
          }
        >
          <MarketOverview
            key={group}
            group={group}
            onOpen={(pair) => select({ symbol: pair.symbol, group: pair.group, view: 'chart' })}
            hrefOf={(pair) => hrefOf({ ...pair, view: 'chart' })}
            place={placeOf(OVERVIEW_PLACE)}
            onPlace={(place) => keepPlace(OVERVIEW_PLACE, place)}
            // The live connection's pool budget, less the watchlist's pools and one chart.
            livePools={Math.max(0, (info.data?.maxPoolsPerConnection ?? 50) - watchlist.length - 1)}
          />
        </Suspense>
      </PartBoundary>
    ) : undefined;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {view === 'markets' ? 'Skip to the market list' : 'Skip to the chart'}
      </a>
      <header className="topbar">
        <div className="topbar__brand">
          <span className="topbar__logo" aria-hidden="true" />
          <span className="topbar__name">Cardano DEX Charts</span>
          <SimulatedBadge />
        </div>
        <nav className="views" aria-label="Views">
          <a className="views__link" href={hrefOf({ symbol, group, view: 'chart' })} aria-current={view === 'chart' ? 'page' : undefined} onClick={showView('chart')} data-testid="view-chart">
            Chart
          </a>
          <a className="views__link" href={hrefOf({ symbol, group, view: 'markets' })} aria-current={view === 'markets' ? 'page' : undefined} onClick={showView('markets')} onPointerEnter={() => void preloadOverview().catch(() => undefined)} onFocus={() => void preloadOverview().catch(() => undefined)} data-testid="view-markets">
            Markets
          </a>
        </nav>
        <PairSearch onSelect={pick} recent={recent} />
        <GroupPicker value={view === 'markets' ? group : (current?.info.exchange ?? group)} onChange={(next) => void changeGroup(next)} />
        <div className="topbar__end">
          <ConnectionStatus />
          <DisplayToggles />
        </div>
      </header>
      <div className="layout">
        <main id="main" className="main" tabIndex={-1}>
          {/* The market overview, or the chart page below. */}
          {overview ?? (<>
          {notice ? (
            <p className="notice" role="status" data-testid="notice">
              {notice}
            </p>
          ) : null}
          {resolved.isError ? (
            <ErrorState
              title={resolved.error instanceof UnknownSymbolError ? 'Unknown symbol' : 'The pair could not load'}
              message={resolved.error.message}
              testId="symbol-error"
              onRetry={() => {
                // An unknown symbol may exist by now: look again with fresh symbol lists.
                if (resolved.error instanceof UnknownSymbolError) {
                  datafeed.refreshSymbols();
                  void queryClient.invalidateQueries({ queryKey: ['search-index'] });
                }
                void resolved.refetch();
              }}
              action={{ label: 'Show the deepest Aggregate pair', onClick: () => select({ group: AGGREGATE_GROUP, symbol: undefined }) }}
            />
          ) : current ? (
            <TokenHeader
              info={current.info}
              row={current.row}
              inverted={shownInverted}
              currency={shownCurrency}
              actions={
                <ToggleButton pressed={watched} onToggle={() => toggleWatch({ symbol: current.info.name, group: current.info.exchange })} label="Watch this pair" testId="watch-toggle">
                  {watched ? '★' : '☆'}
                </ToggleButton>
              }
            />
          ) : (
            <TokenHeaderPlaceholder />
          )}
          {resolved.isError ? null : (
            <>
              <div className="toolbar">
                <ResolutionButtons value={resolution} onChange={(next) => select({ resolution: next })} />
                {/* There before the pair is known (named from the URL's symbol meanwhile, disabled): the toolbar keeps its rows. */}
                <ToggleButton
                  pressed={shownInverted}
                  onToggle={() => select({ inverted: !inverted })}
                  label="Invert the pair"
                  testId="invert-toggle"
                  disabled={usd || !current}
                  {...(usd ? { title: 'In USD the price is the token’s: switch to ADA to invert the pair' } : {})}
                >
                  {invertLabel(current?.row ?? pairOfName(chartInfo?.name), shownInverted)}
                </ToggleButton>
                {compare ? null : <CurrencySwitch value={shownCurrency} onChange={changeCurrency} unavailable={usdUnavailable} />}
                <ChartToggles />
                {compare ? null : (
                  <IndicatorMenu
                    value={indicators}
                    onChange={(next) => {
                      saveIndicators(next);
                      select({ indicators: next }, { replace: true });
                    }}
                  />
                )}
                <ExportMenu source={exportSource} resolution={resolution} />
              </div>
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
                    <CompareChart row={current.row} resolution={resolution} theme={theme} timeZone={timeZone} onHandle={setCompareHandle} />
                  </Suspense>
                </PartBoundary>
              ) : (
                <PriceChart
                  symbol={chartInfo}
                  resolution={resolution}
                  appearance={appearance}
                  inverted={shownInverted}
                  indicators={indicators}
                  usd={usd ? usdRates : undefined}
                  {...(title ? { title } : {})}
                  onHandle={setChartHandle}
                />
              )}
              {fresh ? (
                <PartBoundary label="The trades" testId="tape-part-error" resetKey={fresh.row.ticker}>
                  <Suspense fallback={null}>
                    <TradesTape info={fresh.info} base={fresh.row.base} quote={fresh.row.quote} baseUnit={fresh.row.baseUnit} inverted={shownInverted} currency={shownCurrency} />
                  </Suspense>
                </PartBoundary>
              ) : null}
              {fresh && fresh.row.exchange === AGGREGATE_GROUP ? (
                <PartBoundary label="The pools of this pair" testId="pools-part-error" resetKey={fresh.row.ticker}>
                  <Suspense fallback={null}>
                    <PairPools row={fresh.row} inverted={shownInverted} currency={shownCurrency} onOpen={(pool) => select({ symbol: pool.symbol, group: pool.group })} />
                  </Suspense>
                </PartBoundary>
              ) : null}
            </>
          )}
          </>)}
        </main>
        {/* Not a landmark of its own: the watchlist inside is the region "Watchlist". */}
        <div className="sidebar">
          <Watchlist
            items={watchlist}
            {...(current ? { current: current.info.name } : {})}
            onSelect={(item) => select({ symbol: item.symbol, group: item.group, view: 'chart' })}
            onRemove={(item) => toggleWatch(item)}
          />
        </div>
      </div>
      <footer className="footer">
        {/* lightweight-charts' licence: its NOTICE and a link to TradingView, shown to users (the chart's own logo is off). */}
        <p>
          <a href="https://www.tradingview.com/">Charts by TradingView</a>: TradingView Lightweight Charts, Copyright © 2023 TradingView, Inc.
        </p>
      </footer>
    </div>
  );
}
