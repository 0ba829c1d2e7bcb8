import { QueryClientProvider } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { GatewayClient, UdfDatafeed } from '@/datafeed';
import type { UsdRateSource } from '@/app/api/usd-rates';
import type { PreferencesState, StateStorage } from '@/app/stores/preferences-store';
import type { SelectionState } from '@/app/stores/selection-store';
import type { AppServices } from './app-services';
import type { LiveStatusSnapshot } from './live-status';

const ServicesContext = createContext<AppServices | undefined>(undefined);

function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('AppProviders is missing above this component');
  return services;
}

/** The app's one datafeed (chart data, search, live bars and trades, the live connection's status). */
export function useDatafeed(): UdfDatafeed {
  return useServices().datafeed;
}

/** The gateway's HTTP client (the datafeed's), for React Query fetchers. */
export function useApi(): GatewayClient {
  return useServices().api;
}

/** ADA/USD through time (USD prices), shared by the chart, the header and the tape. */
export function useUsdRates(): UsdRateSource {
  return useServices().usdRates;
}

/** Where the app keeps things in the browser (localStorage, or the tests' stand-in). */
export function useStorage(): StateStorage {
  return useServices().storage;
}

/** Group, symbol and resolution (mirrors the URL). */
export function useSelection<T>(selector: (state: SelectionState) => T): T {
  return useStore(useServices().selection, selector);
}

/** Persisted UI preferences. */
export function usePreferences<T>(selector: (state: PreferencesState) => T): T {
  return useStore(useServices().preferences, selector);
}

/** live / reconnecting / offline ... of the live connection. */
export function useLiveStatus(): LiveStatusSnapshot {
  const { liveStatus } = useServices();
  return useSyncExternalStore(liveStatus.subscribe, liveStatus.getSnapshot, liveStatus.getSnapshot);
}

/** Provides the services and keeps the URL and the browser's online state in sync. */
export function AppProviders({ services, children }: { services: AppServices; children: ReactNode }) {
  useEffect(() => {
    const { selection, liveStatus } = services;
    const onPopState = () => selection.getState().syncFromUrl();
    window.addEventListener('popstate', onPopState);
    const stopWatching = liveStatus.watchBrowser(window);
    return () => {
      window.removeEventListener('popstate', onPopState);
      stopWatching();
    };
  }, [services]);
  return (
    <ServicesContext.Provider value={services}>
      <QueryClientProvider client={services.queryClient}>{children}</QueryClientProvider>
    </ServicesContext.Provider>
  );
}
