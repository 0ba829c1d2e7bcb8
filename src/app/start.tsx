import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadCompare, preloadOverview } from './app';
import { earlyFirst } from './boot/early-requests';
import { gatewayInfoQueryOptions } from './features/shell';
import { AppProviders } from './providers/app-providers';
import { createAppServices } from './providers/app-services';
import { parseSelection } from './lib/selection';

/** Longest the first render waits for the first screen's own chunk. */
const FIRST_PART_WAIT_MS = 1_000;

/**
 * The app itself, loaded by main.tsx once the boot requests are on their way: one datafeed and the
 * React tree in #root.
 */
export async function startApp(): Promise<void> {
  performance.mark('app:start');
  const root = document.getElementById('root');
  if (!root) return;
  // One datafeed for the app, over the browser's fetch and EventSource, through the same-origin gateway.
  const services = createAppServices({
    // The first request of a URL the boot script already asked (boot.ts) gets that answer.
    fetch: earlyFirst((input, init) => window.fetch(input, init)),
    ...(typeof window.EventSource === 'function' ? { EventSource: window.EventSource } : {}),
  });
  // Asked before the first render (the boot script has asked already): the default pair is known by
  // the time the chart mounts, so its bars load at once.
  void services.queryClient.prefetchQuery(gatewayInfoQueryOptions(services.api));
  // The first screen's own chunk, when it has one, is in before the first render (main.tsx has been
  // fetching it beside this one): the page renders it at once rather than a fallback first. A chunk
  // that cannot load is left to the part's boundary, which says so in its place; one that takes more
  // than a second does not hold the page back (the part shows its fallback meanwhile).
  const first = parseSelection(location.search);
  const part = first.view === 'markets' ? preloadOverview() : services.preferences.getState().compare ? preloadCompare() : undefined;
  if (part) await Promise.race([part.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, FIRST_PART_WAIT_MS))]);
  createRoot(root).render(
    <StrictMode>
      <AppProviders services={services}>
        <App />
      </AppProviders>
    </StrictMode>,
  );
}
