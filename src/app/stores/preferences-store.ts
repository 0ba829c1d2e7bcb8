import { createStore, type StoreApi } from 'zustand/vanilla';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { Currency } from '@/app/lib/usd';

export { DEFAULT_PREFERENCES, PREFERENCES_KEY, preferencesCookie, type Preferences, type Theme } from './preferences';
import {
  DEFAULT_PREFERENCES,
  PREFERENCES_KEY,
  PREFERENCES_VERSION,
  storedPreferences,
  type Preferences,
  type SymbolRef,
  type Theme,
} from './preferences';

/** Where preferences are kept (localStorage, or a stand-in: tests, the server's render). */
export interface StateStorage {
  getItem(name: string): string | null;
  setItem(name: string, value: string): void;
  removeItem(name: string): void;
}

export const MAX_RECENT = 8;
/** The gateway lets one browser connection follow 50 pools; the chart and header need a few. */
export const MAX_WATCHLIST = 30;

export type BooleanPreference = 'showVolume' | 'showTvl' | 'logScale' | 'compare';

export interface PreferencesState extends Preferences {
  toggle(name: BooleanPreference): void;
  setTheme(theme: Theme): void;
  setTimeZone(zone: TimeZoneMode): void;
  setIndicators(indicators: string): void;
  setCurrency(currency: Currency): void;
  /** Puts a pick first in the recent list (deduplicated, at most MAX_RECENT). */
  addRecent(ref: SymbolRef): void;
  /** Adds or removes a symbol from the watchlist. */
  toggleWatch(ref: SymbolRef): void;
}

export type PreferencesStore = StoreApi<PreferencesState>;

const sameRef = (a: SymbolRef, b: SymbolRef) => a.symbol === b.symbol && a.group === b.group;

/** Storage in memory (no localStorage, e.g. some private modes). */
const memoryStorage = (): StateStorage => {
  const values = new Map<string, string>();
  return {
    getItem: (k) => values.get(k) ?? null,
    setItem: (k, v) => void values.set(k, v),
    removeItem: (k) => void values.delete(k),
  };
};

/** `storage`, or the browser's localStorage, or (without one, or refused) storage in memory. */
export function keptStorage(storage?: StateStorage): StateStorage {
  try {
    return storage ?? (typeof localStorage === 'undefined' ? memoryStorage() : localStorage);
  } catch {
    return memoryStorage();
  }
}

/** The preferences of a state (without its actions), as they are kept. */
const preferencesIn = (s: Preferences): Preferences => ({
  theme: s.theme,
  showVolume: s.showVolume,
  showTvl: s.showTvl,
  logScale: s.logScale,
  timeZone: s.timeZone,
  compare: s.compare,
  indicators: s.indicators,
  currency: s.currency,
  recent: s.recent,
  watchlist: s.watchlist,
});

/**
 * The preferences, kept in `storage` (localStorage by default) under PREFERENCES_KEY: read as the store
 * starts (stores/preferences.ts's storedPreferences), written at each change. Without a stored value,
 * `initial` (a server render's: the request's cookie's, src/app/skeleton.tsx).
 */
export function createPreferencesStore(
  storage?: StateStorage,
  initial: Preferences = DEFAULT_PREFERENCES,
): PreferencesStore {
  const kept = keptStorage(storage);
  const stored = kept.getItem(PREFERENCES_KEY) === null ? initial : storedPreferences(kept);
  const store = createStore<PreferencesState>()((set) => ({
    ...stored,
    toggle: (name) => set((s) => ({ [name]: !s[name] })),
    setTheme: (theme) => set({ theme }),
    setTimeZone: (timeZone) => set({ timeZone }),
    setIndicators: (indicators) => set({ indicators }),
    setCurrency: (currency) => set({ currency }),
    addRecent: (ref) =>
      set((s) => ({ recent: [ref, ...s.recent.filter((r) => !sameRef(r, ref))].slice(0, MAX_RECENT) })),
    toggleWatch: (ref) =>
      set((s) => ({
        watchlist: s.watchlist.some((r) => sameRef(r, ref))
          ? s.watchlist.filter((r) => !sameRef(r, ref))
          : [...s.watchlist, ref].slice(-MAX_WATCHLIST),
      })),
  }));
  store.subscribe((state) => {
    try {
      kept.setItem(PREFERENCES_KEY, JSON.stringify({ state: preferencesIn(state), version: PREFERENCES_VERSION }));
    } catch {
      // Storage full or refused: the preferences last for this page.
    }
  });
  return store;
}
