import { createJSONStorage, persist, type StateStorage } from 'zustand/middleware';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { TimeZoneMode } from '@/app/lib/time-format';
import type { Currency } from '@/app/lib/usd';

export { DEFAULT_PREFERENCES, PREFERENCES_KEY, preferencesCookie, storedPreferences, type Preferences, type SymbolRef, type Theme } from './preferences';
import { DEFAULT_PREFERENCES, PREFERENCES_KEY, type Preferences, type SymbolRef, type Theme } from './preferences';

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

/** Storage that does nothing (no localStorage, e.g. some private modes). */
const memoryStorage = (): StateStorage => {
  const values = new Map<string, string>();
  return { getItem: (k) => values.get(k) ?? null, setItem: (k, v) => void values.set(k, v), removeItem: (k) => void values.delete(k) };
};

/**
 * The preferences, persisted in `storage` (localStorage by default). `initial`: what they are before
 * the storage is read (the defaults), and what a server render sees (React asks zustand for the
 * store's initial state there: src/app/skeleton.tsx gives the request's cookie's).
 */
export function createPreferencesStore(storage?: StateStorage, initial: Preferences = DEFAULT_PREFERENCES): PreferencesStore {
  return createStore<PreferencesState>()(
    persist(
      (set) => ({
        ...initial,
        toggle: (name) => set((s) => ({ [name]: !s[name] })),
        setTheme: (theme) => set({ theme }),
        setTimeZone: (timeZone) => set({ timeZone }),
        setIndicators: (indicators) => set({ indicators }),
        setCurrency: (currency) => set({ currency }),
        addRecent: (ref) => set((s) => ({ recent: [ref, ...s.recent.filter((r) => !sameRef(r, ref))].slice(0, MAX_RECENT) })),
        toggleWatch: (ref) =>
          set((s) => ({
            watchlist: s.watchlist.some((r) => sameRef(r, ref)) ? s.watchlist.filter((r) => !sameRef(r, ref)) : [...s.watchlist, ref].slice(-MAX_WATCHLIST),
          })),
      }),
      {
        name: PREFERENCES_KEY,
        version: 1,
        storage: createJSONStorage(() => storage ?? (typeof localStorage === 'undefined' ? memoryStorage() : localStorage)),
        partialize: (s): Preferences => ({
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
        }),
      },
    ),
  );
}
