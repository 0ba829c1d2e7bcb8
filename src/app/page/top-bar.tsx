import type { MouseEvent } from 'react';
import type { SearchRow } from '@/datafeed';
import { PairSearch } from '@/app/features/search';
import { ConnectionStatus, DisplayToggles, GroupPicker, SimulatedBadge } from '@/app/features/shell';
import { usePreferences, useSelection } from '@/app/providers/app-providers';
import type { View } from '@/app/stores/selection-store';
import { preloadOverview } from './overview-page';

/** A plain left click (a new tab or window is the link's own business). */
const plainClick = (event: MouseEvent) =>
  event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/**
 * The brand's mark, public/favicon.svg's picture drawn in the page itself: an SVG image (the favicon
 * as a CSS background, as it was) costs the page a document of its own, made on the main thread
 * before the first chart could be drawn (5-13 ms in a Chromium trace on two cores).
 */
function BrandLogo() {
  return (
    <svg className="topbar__logo" aria-hidden="true" focusable="false" viewBox="0 0 32 32" data-testid="brand-logo">
      <rect width="32" height="32" rx="7" fill="#0b1220" />
      <path
        d="M6 22 L12 14 L17 18 L26 8"
        stroke="#3ddc97"
        strokeWidth="3"
        fill="none"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * The top bar: the brand and the data's source, the views (chart, markets), the pair search, the
 * group, the live connection's status and the display toggles. `shownGroup`: the group the page
 * shows (the resolved pair's, on a chart).
 */
export function TopBar(props: {
  readonly shownGroup: string;
  readonly onPick: (row: SearchRow) => void;
  readonly onGroup: (group: string) => void;
  /** The alerts panel is open; its button opens and closes it. */
  readonly alertsOpen?: boolean;
  readonly onAlerts?: () => void;
}) {
  const { shownGroup, onPick, onGroup, alertsOpen = false, onAlerts } = props;
  const view = useSelection((s) => s.view);
  const select = useSelection((s) => s.select);
  const href = useSelection((s) => s.href);
  const recent = usePreferences((s) => s.recent);
  const showView = (next: View) => (event: MouseEvent) => {
    if (!plainClick(event)) return;
    event.preventDefault();
    select({ view: next });
  };
  const preload = () => void preloadOverview().catch(() => undefined);
  return (
    <header className="topbar">
      <div className="topbar__brand">
        <BrandLogo />
        <span className="topbar__name">Cardano DEX Charts</span>
        <SimulatedBadge />
      </div>
      <nav className="views" aria-label="Views">
        <a
          className="views__link"
          href={href({ view: 'chart' })}
          aria-current={view === 'chart' ? 'page' : undefined}
          onClick={showView('chart')}
          data-testid="view-chart"
        >
          Chart
        </a>
        <a
          className="views__link"
          href={href({ view: 'markets' })}
          aria-current={view === 'markets' ? 'page' : undefined}
          onClick={showView('markets')}
          onPointerEnter={preload}
          onFocus={preload}
          data-testid="view-markets"
        >
          Markets
        </a>
      </nav>
      <PairSearch onSelect={onPick} recent={recent} />
      <GroupPicker value={shownGroup} onChange={onGroup} />
      <div className="topbar__end">
        <ConnectionStatus />
        <button
          type="button"
          className="button"
          aria-expanded={alertsOpen}
          aria-controls={alertsOpen ? 'alerts-panel' : undefined}
          onClick={onAlerts}
          data-testid="alerts-toggle"
        >
          Alerts
        </button>
        <DisplayToggles />
      </div>
    </header>
  );
}
