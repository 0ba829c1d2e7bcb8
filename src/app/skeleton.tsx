import { renderToString } from 'react-dom/server';
import type { StateStorage } from '@/app/stores/preferences-store';
import { App, preloadOverview } from './app';
import { parseSelection } from './lib/selection';
import { AppProviders } from './providers/app-providers';
import { createAppServices } from './providers/app-services';
import {
  DEFAULT_PREFERENCES,
  firstScreenPreferences,
  preferencesFromCookie,
  type FirstScreenPreferences,
} from './stores/preferences';

/** What the server knows of a page request: its query, the preferences its cookie carries, the gateway's /info. */
export interface SkeletonRequest {
  /** The page's path and query string (`?group=…&symbol=…`). */
  readonly pathname: string;
  readonly search: string;
  /** The preferences the page is laid out with (pagePreferences: the cookie the app wrote). */
  readonly preferences: PagePreferences;
  /** /gw/v1/info, the same answer the page carries; undefined when it did not come in time. */
  readonly info: unknown;
}

/** What a page is laid out with of the preferences: what its first screen shows. */
export type PagePreferences = FirstScreenPreferences;

/** The preferences a page is laid out with: those the request's preferences cookie carries (the app writes it), else the defaults. */
export function pagePreferences(cookie: string | undefined): PagePreferences {
  return firstScreenPreferences(preferencesFromCookie(cookie));
}

/**
 * The page's skeleton: the app's own first render, made on the server by React's renderer from the
 * same components (App in its providers, over the request's URL, the preferences its cookie carries and
 * /info), so the page the browser lays out before any script has run is the app's layout with nothing
 * loaded yet: the top bar, the pair's header while it loads, the toolbar, the chart's place. The
 * browser's first paint then draws the app's chart in that place (first-paint.ts), and the app's first
 * render replaces the skeleton with the same markup (start.tsx), taking the chart over: nothing moves.
 * Its controls are disabled until then.
 * Nothing is asked meanwhile: a render runs no effect, and the services' fetch refuses.
 */
export async function renderSkeleton(request: SkeletonRequest): Promise<string> {
  // The market overview's chunk in first, as the app's first render has it (start.tsx): the skeleton is the
  // overview loading its pairs, not a fallback (a server render does not wait for a lazy part).
  if (parseSelection(request.search).view === 'markets') await preloadOverview();
  // A server render reads the stores' initial states: the preferences are the cookie's from the start.
  const storage: StateStorage = { getItem: () => null, setItem: () => undefined, removeItem: () => undefined };
  const services = createAppServices({
    fetch: () => Promise.reject(new Error('The page skeleton asks nothing')),
    urlHost: {
      location: { search: request.search, pathname: request.pathname, hash: '' },
      history: { state: null, pushState: () => undefined, replaceState: () => undefined },
    },
    storage,
    // The watchlist and the recent picks are the browser's storage's: none on the server.
    preferences: { ...DEFAULT_PREFERENCES, ...request.preferences },
    online: true,
    info: request.info,
  });
  try {
    // Its controls disabled (a disabled fieldset, which does not lay anything out): a click or a keystroke
    // before the app's first render would be lost with the skeleton. The chart is not a control: it
    // answers the pointer as soon as the first paint has drawn it.
    return renderToString(
      <fieldset className="skeleton" disabled>
        <AppProviders services={services}>
          <App />
        </AppProviders>
      </fieldset>,
    );
  } finally {
    services.dispose();
    services.queryClient.clear();
  }
}
