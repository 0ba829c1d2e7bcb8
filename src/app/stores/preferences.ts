import type { TimeZoneMode } from '@/app/lib/time-format';
import type { Currency } from '@/app/lib/usd';

/** A remembered symbol (recent picks, watchlist). */
export interface SymbolRef {
  readonly symbol: string;
  readonly group: string;
}

export type { Theme } from '@/app/lib/palette';
import type { Theme } from '@/app/lib/palette';

/** UI preferences that persist across reloads (localStorage). */
export interface Preferences {
  readonly theme: Theme;
  readonly showVolume: boolean;
  readonly showTvl: boolean;
  readonly logScale: boolean;
  readonly timeZone: TimeZoneMode;
  readonly compare: boolean;
  /** The indicators last chosen (lib/indicators), drawn when a URL names none. */
  readonly indicators: string;
  /** The currency last chosen (ADA or USD), applied to a URL that names none. */
  readonly currency: Currency;
  /** Most recent first. */
  readonly recent: readonly SymbolRef[];
  readonly watchlist: readonly SymbolRef[];
}

export const DEFAULT_PREFERENCES: Preferences = {
  theme: 'dark',
  showVolume: true,
  showTvl: true,
  logScale: false,
  timeZone: 'utc',
  compare: false,
  indicators: '',
  currency: 'ada',
  recent: [],
  watchlist: [],
};

export const PREFERENCES_KEY = 'cardano-dex-charts:preferences';

/** The version of the stored preferences' shape (`{"state": {...}, "version": 1}`, as zustand's persist wrote it before). */
export const PREFERENCES_VERSION = 1;

/**
 * The preferences as stored (preferences-store.ts keeps them under PREFERENCES_KEY:
 * `{"state": {...}, "version": 1}`), read by the store as it starts and, without the store, by the
 * page's first paint (src/app/first-paint.ts), which draws the app's chart in the user's theme and with
 * their chart options before the app's code has loaded. Anything missing or of the wrong type is the
 * default; unreadable storage is the defaults.
 */
export function storedPreferences(storage: Pick<Storage, 'getItem'> | undefined): Preferences {
  let state: unknown;
  try {
    state = (JSON.parse(storage?.getItem(PREFERENCES_KEY) ?? 'null') as { state?: unknown } | null)?.state;
  } catch {
    return DEFAULT_PREFERENCES;
  }
  return preferencesOf(state);
}

/** The name of the cookie that carries the preferences the first screen shows (preferencesCookie). */
export const PREFERENCES_COOKIE = 'preferences';

/** A year, in seconds: how long the preferences cookie lasts (each change writes it again). */
const COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/**
 * The cookie that tells the server the preferences the first screen shows (theme, time zone, chart
 * options, compare mode, indicators, currency), so the page it sends is laid out as the app will render
 * it (src/app/skeleton.tsx). Written by the app whenever they change; the browser's storage keeps them all.
 */
export function preferencesCookie(preferences: Preferences): string {
  const value = encodeURIComponent(JSON.stringify(firstScreenPreferences(preferences)));
  return `${PREFERENCES_COOKIE}=${value}; Path=/; Max-Age=${COOKIE_MAX_AGE_SECONDS}; SameSite=Lax`;
}

/** The preferences the first screen shows: all but the watchlist and the recent picks. */
export type FirstScreenPreferences = Omit<Preferences, 'recent' | 'watchlist'>;

/**
 * What the first screen shows of the preferences (the cookie's, the page's: src/server/first-paint.ts).
 * The watchlist and the recent picks stay in the browser's storage (the first screen's layout has no need of them).
 */
export function firstScreenPreferences(preferences: Preferences): FirstScreenPreferences {
  const { theme, showVolume, showTvl, logScale, timeZone, compare, indicators, currency } = preferences;
  return { theme, showVolume, showTvl, logScale, timeZone, compare, indicators, currency };
}

/** The preferences a request's Cookie header carries (preferencesCookie); the defaults without. */
export function preferencesFromCookie(header: string | undefined): Preferences {
  const entry = header
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${PREFERENCES_COOKIE}=`));
  if (entry === undefined) return DEFAULT_PREFERENCES;
  try {
    return preferencesOf(JSON.parse(decodeURIComponent(entry.slice(PREFERENCES_COOKIE.length + 1))) as unknown);
  } catch {
    return DEFAULT_PREFERENCES;
  }
}

/** Remembered symbols of unknown shape: those that have a symbol and a group. */
function symbolRefsOf(value: unknown): readonly SymbolRef[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const { symbol, group } = item as Record<string, unknown>;
    return typeof symbol === 'string' && typeof group === 'string' ? [{ symbol, group }] : [];
  });
}

/** Stored preferences of unknown shape, field by field (the default where one is missing or wrong). */
export function preferencesOf(state: unknown): Preferences {
  if (typeof state !== 'object' || state === null) return DEFAULT_PREFERENCES;
  const s = state as Record<string, unknown>;
  const flag = (name: 'showVolume' | 'showTvl' | 'logScale' | 'compare') =>
    typeof s[name] === 'boolean' ? s[name] : DEFAULT_PREFERENCES[name];
  return {
    ...DEFAULT_PREFERENCES,
    theme: s.theme === 'light' || s.theme === 'dark' ? s.theme : DEFAULT_PREFERENCES.theme,
    showVolume: flag('showVolume'),
    showTvl: flag('showTvl'),
    logScale: flag('logScale'),
    compare: flag('compare'),
    timeZone: s.timeZone === 'local' || s.timeZone === 'utc' ? s.timeZone : DEFAULT_PREFERENCES.timeZone,
    indicators: typeof s.indicators === 'string' ? s.indicators : DEFAULT_PREFERENCES.indicators,
    currency: s.currency === 'usd' || s.currency === 'ada' ? s.currency : DEFAULT_PREFERENCES.currency,
    recent: symbolRefsOf(s.recent),
    watchlist: symbolRefsOf(s.watchlist),
  };
}
