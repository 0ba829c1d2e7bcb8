import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadCompare, preloadOverviewList } from './app';
import type { FirstPaint } from './first-paint';
import { AppProviders } from './providers/app-providers';
import { createAppServices } from './providers/app-services';
import { parseSelection } from './lib/selection';

/** Longest the first render waits for the first screen's own chunk. */
const FIRST_PART_WAIT_MS = 1_000;

/**
 * The app itself, loaded by main.tsx after the page's first paint: one datafeed and the React tree in
 * #root, which replaces the page's skeleton (the same first render, made by the server:
 * skeleton.tsx) and takes over the chart the first paint drew.
 */
export async function startApp(paint: FirstPaint): Promise<void> {
  performance.mark('app:start');
  const root = document.getElementById('root');
  if (!root) return;
  // One datafeed for the app, over the browser's fetch and EventSource, through the same-origin gateway.
  const services = createAppServices({
    // The first request of a URL the page answered or asked already (first-paint.ts) gets that answer.
    fetch: paint.early.first((input, init) => window.fetch(input, init)),
    ...(typeof window.EventSource === 'function' ? { EventSource: window.EventSource } : {}),
    info: paint.info,
    // The preferences the server lays out the next page with (skeleton.tsx).
    preferencesCookie: (value) => (document.cookie = value),
  });
  // The first screen's own chunk, when it has one, is in before the first render (main.tsx has been
  // fetching it beside this one): the page renders it at once rather than a fallback first; the
  // overview's, with its list (a page opened on it preloads both: src/server/first-paint.ts). A chunk
  // that cannot load is left to the part's boundary, which says so in its place; one that takes more
  // than a second does not hold the page back (the part shows its fallback meanwhile).
  const first = parseSelection(location.search);
  const part =
    first.view === 'markets'
      ? preloadOverviewList(services, first.group)
      : services.preferences.getState().compare
        ? preloadCompare()
        : undefined;
  if (part)
    await Promise.race([
      part.catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, FIRST_PART_WAIT_MS)),
    ]);
  const reactRoot = createRoot(root);
  const render = () =>
    reactRoot.render(
      <StrictMode>
        <AppProviders services={services}>
          <App prerendered={paint.chart} />
        </AppProviders>
      </StrictMode>,
    );
  // Beside a chart the first paint drew, rendered in slices that yield to the page (a transition): the
  // chart answers the pointer meanwhile. Without one (the market overview, a chart the app draws), at once.
  if (paint.chart) startTransition(render);
  else render();
}
