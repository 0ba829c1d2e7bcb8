import { QueryClient } from '@tanstack/react-query';
import type { StateStorage } from 'zustand/middleware';
import { UdfDatafeed, type EventSourceConstructor, type FetchLike, type GatewayClient } from '@/datafeed';
import { UsdRateBook } from '@/app/api/ada-usd';
import { createPreferencesStore, type PreferencesStore } from '@/app/stores/preferences-store';
import { createSelectionStore, type SelectionStore, type UrlHost } from '@/app/stores/selection-store';
import { LiveStatusMonitor } from './live-status';

/** Everything the app talks to, created once: ONE datafeed, one query client, the stores. */
export interface AppServices {
  readonly datafeed: UdfDatafeed;
  /** The datafeed's HTTP client of the gateway: the app's one client for its own requests. */
  readonly api: GatewayClient;
  readonly queryClient: QueryClient;
  readonly liveStatus: LiveStatusMonitor;
  readonly selection: SelectionStore;
  readonly preferences: PreferencesStore;
  /** ADA/USD through time from the stablecoins' pools (USD prices: chart, tape), over the datafeed. */
  readonly usdRates: UsdRateBook;
  /** Closes the live connection. */
  dispose(): void;
}

export interface AppServicesOptions {
  /** The browser's fetch (tests: the in-process platform's). */
  readonly fetch: FetchLike;
  /** The browser's EventSource (tests: one over the in-process platform); none: no live updates. */
  readonly EventSource?: EventSourceConstructor;
  /** Where group, symbol and resolution live. Default: window. */
  readonly urlHost?: UrlHost;
  /** Where preferences persist. Default: localStorage. */
  readonly storage?: StateStorage;
  /** Gateway base (default `/gw/v1`, same origin). */
  readonly baseUrl?: string;
  /** Tests: a QueryClient with `retry: false`. */
  readonly queryClient?: QueryClient;
  /** Datafeed problems without a callback of their own (default console.warn). */
  readonly onWarning?: (message: string) => void;
  readonly online?: boolean;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 30_000 },
    },
  });
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const datafeed = new UdfDatafeed({
    fetch: options.fetch,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.EventSource ? { EventSource: options.EventSource } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const liveStatus = new LiveStatusMonitor(datafeed, options.online ?? (typeof navigator === 'undefined' ? true : navigator.onLine !== false));
  return {
    datafeed,
    api: datafeed.gateway,
    queryClient: options.queryClient ?? createQueryClient(),
    liveStatus,
    selection: createSelectionStore(options.urlHost ?? window),
    preferences: createPreferencesStore(options.storage),
    usdRates: new UsdRateBook(datafeed),
    dispose: () => datafeed.close(),
  };
}
