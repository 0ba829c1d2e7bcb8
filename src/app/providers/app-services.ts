import { QueryClient } from '@tanstack/react-query';
import { safeParse } from 'zod/mini';
import type { StateStorage } from '@/app/stores/preferences-store';
import { UdfDatafeed, type EventSourceConstructor, type FetchLike, type GatewayClient } from '@/datafeed';
import { gatewayInfoSchema } from '@/shared/api/gateway';
import { UsdRatesOnDemand } from '@/app/api/ada-usd';
import type { UsdRateSource } from '@/app/api/usd-rates';
import { gatewayInfoQueryOptions } from '@/app/api/gateway-info';
import {
  createPreferencesStore,
  keptStorage,
  preferencesCookie,
  type Preferences,
  type PreferencesStore,
} from '@/app/stores/preferences-store';
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
  /** Where the browser keeps what the app keeps (localStorage): the preferences, the alerts. */
  readonly storage: StateStorage;
  /** ADA/USD through time from the stablecoins' pools (USD prices: chart, tape), over the datafeed. */
  readonly usdRates: UsdRateSource;
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
  /** The preferences before the storage is read (a server render's: the request's cookie's). */
  readonly preferences?: Preferences;
  /** Gateway base (default `/gw/v1`, same origin). */
  readonly baseUrl?: string;
  /** Tests: a QueryClient with `retry: false`. */
  readonly queryClient?: QueryClient;
  /** Datafeed problems without a callback of their own (default console.warn). */
  readonly onWarning?: (message: string) => void;
  readonly online?: boolean;
  /** /gw/v1/info as the page carries it (src/app/first-paint.ts), not checked yet: the app's first /info. */
  readonly info?: unknown;
  /** Where the preferences cookie goes (the browser: document.cookie), written now and at each change. */
  readonly preferencesCookie?: (cookie: string) => void;
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
  const liveStatus = new LiveStatusMonitor(
    datafeed,
    options.online ?? (typeof navigator === 'undefined' ? true : navigator.onLine !== false),
  );
  const queryClient = options.queryClient ?? createQueryClient();
  // The page's copy of /info is the app's first answer of it, once checked as the gateway's would be.
  const info = options.info === undefined ? undefined : safeParse(gatewayInfoSchema, options.info);
  if (info?.success) queryClient.setQueryData(gatewayInfoQueryOptions(datafeed.gateway).queryKey, info.data);
  const storage = keptStorage(options.storage);
  const preferences = createPreferencesStore(storage, options.preferences);
  const writeCookie = options.preferencesCookie;
  const stopCookie = writeCookie ? preferences.subscribe((state) => writeCookie(preferencesCookie(state))) : undefined;
  if (writeCookie) writeCookie(preferencesCookie(preferences.getState()));
  return {
    datafeed,
    api: datafeed.gateway,
    queryClient,
    liveStatus,
    selection: createSelectionStore(options.urlHost ?? window),
    preferences,
    storage,
    usdRates: new UsdRatesOnDemand(datafeed),
    dispose: () => {
      stopCookie?.();
      datafeed.close();
    },
  };
}
