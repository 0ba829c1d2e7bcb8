import { Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import type { SearchRow } from '@/datafeed';
import type { PrerenderedChart } from './features/chart';
import { Watchlist } from './features/watchlist';
import { ALERTS_KEY } from './features/alerts/lib/alerts-key';
import { findPairInGroup } from './api/resolve-symbol';
import { PartBoundary } from './components/part-boundary';
import { lazyPart } from './lib/lazy-part';
import { pairLabel } from './lib/orientation';
import { useDatafeed, usePreferences, useSelection, useStorage } from './providers/app-providers';
import { ChartPage } from './page/chart-page';
import { OverviewPage } from './page/overview-page';
import { TopBar } from './page/top-bar';
import { usePair } from './page/use-pair';
import { usePrices } from './page/use-prices';

/** The alerts, a chunk of their own: loaded when the panel is first opened, or on load when alerts are kept (to arm them again). */
const AlertsPart = lazyPart(() => import('./features/alerts').then((m) => m.AlertsHost)).Part;

export { preloadCompare } from './page/chart-page';
export { preloadOverview, preloadOverviewList } from './page/overview-page';

/**
 * The app: the top bar, the chart page or the market overview, the watchlist. It composes the
 * features (page/: the parts of the page and the hooks that choose what they show) and owns the flow
 * between them: the URL's selection is resolved here and handed down. `prerendered`: the chart the
 * page's first paint drew (first-paint.ts), for the chart to take over.
 */
export function App({ prerendered }: { readonly prerendered?: PrerenderedChart | undefined }) {
  const datafeed = useDatafeed();
  const group = useSelection((s) => s.group);
  const view = useSelection((s) => s.view);
  const select = useSelection((s) => s.select);
  const theme = usePreferences((s) => s.theme);
  const watchlist = usePreferences((s) => s.watchlist);
  const addRecent = usePreferences((s) => s.addRecent);
  const toggleWatch = usePreferences((s) => s.toggleWatch);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const storage = useStorage();
  const [alertsOpen, setAlertsOpen] = useState(false);
  const [alertsLoaded, setAlertsLoaded] = useState(() => (storage.getItem(ALERTS_KEY) ?? '[]') !== '[]');
  const pair = usePair();
  const { current, fresh, info } = pair;
  const prices = usePrices(current, fresh);
  const title = current ? `${prices.labelOf(current.row)} on ${current.row.exchange}` : undefined;
  // A new alert's pair: the one on screen, in its orientation (alerts are in the pair's quote, not USD).
  const alertPair = useMemo(
    () =>
      view === 'chart' && current
        ? {
            symbol: current.info.name,
            group: current.info.exchange,
            pool: current.info.ticker ?? current.row.ticker,
            label: `${pairLabel(current.row, prices.shownInverted)} on ${current.row.exchange}`,
            inverted: prices.shownInverted,
          }
        : undefined,
    [view, current, prices.shownInverted],
  );
  const toggleAlerts = () => {
    setAlertsLoaded(true);
    setAlertsOpen((open) => !open);
  };

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const pageTitle =
    view === 'markets'
      ? `Markets on ${group} · Cardano DEX Charts`
      : fresh
        ? `${prices.labelOf(fresh.row)} on ${fresh.row.exchange} · Cardano DEX Charts`
        : 'Cardano DEX Charts';
  useEffect(() => {
    document.title = pageTitle;
  }, [pageTitle]);
  // The first paint's chart is the chart's to take, in its own layout effect (before this one): a
  // first screen without that chart drops it.
  useLayoutEffect(() => prerendered?.drop(), [prerendered]);

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
    const row = current?.row;
    if (view === 'markets' || !row) {
      select(view === 'markets' ? { group: next } : { group: next, symbol: undefined });
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

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {view === 'markets' ? 'Skip to the market list' : 'Skip to the chart'}
      </a>
      <TopBar
        shownGroup={view === 'markets' ? group : (current?.info.exchange ?? group)}
        onPick={pick}
        onGroup={(next) => void changeGroup(next)}
        alertsOpen={alertsOpen}
        onAlerts={toggleAlerts}
      />
      <div className="layout">
        <main id="main" className="main" tabIndex={-1}>
          {view === 'markets' ? (
            // The live connection's pool budget, less the watchlist's pools and one chart.
            <OverviewPage livePools={Math.max(0, (info?.maxPoolsPerConnection ?? 50) - watchlist.length - 1)} />
          ) : (
            <ChartPage pair={pair} prices={prices} notice={notice} title={title} prerendered={prerendered} />
          )}
        </main>
        {/* Not a landmark of its own: the watchlist inside is the region "Watchlist". */}
        <div className="sidebar">
          {alertsLoaded ? (
            <PartBoundary label="The alerts" testId="alerts-part-error">
              <Suspense fallback={null}>
                <AlertsPart
                  open={alertsOpen}
                  onClose={() => setAlertsOpen(false)}
                  pair={alertPair}
                  onShow={(symbol, group) => select({ symbol, group, view: 'chart' })}
                />
              </Suspense>
            </PartBoundary>
          ) : null}
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
          <a href="https://www.tradingview.com/">Charts by TradingView</a>: TradingView Lightweight Charts, Copyright ©
          2023 TradingView, Inc.
        </p>
      </footer>
    </div>
  );
}
