import { useSyncExternalStore } from 'react';
import {
  DEFAULT_TRADER_SETTINGS,
  parseTraderSettings,
  TRADER_SETTINGS_KEY,
  type TraderSettings,
} from '@/app/lib/trader-settings';

const listeners = new Set<() => void>();
let cached: { readonly text: string | null; readonly settings: TraderSettings } | undefined;
/** Settings the storage refused (full, or no storage at all): they hold for this page. */
let unsaved: string | undefined;

function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

function read(): TraderSettings {
  const text = unsaved ?? storage()?.getItem(TRADER_SETTINGS_KEY) ?? null;
  if (cached?.text !== text) cached = { text, settings: parseTraderSettings(text) };
  return cached.settings;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab's change (the browser's storage event) too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === TRADER_SETTINGS_KEY) listener();
  };
  if (typeof window !== 'undefined') window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    if (typeof window !== 'undefined') window.removeEventListener('storage', onStorage);
  };
}

/** Changes some settings, kept in the browser's storage; every component reading them renders again. */
export function changeTraderSettings(patch: Partial<TraderSettings>): void {
  const text = JSON.stringify({ ...read(), ...patch });
  const kept = storage();
  try {
    if (!kept) throw new Error('no storage');
    kept.setItem(TRADER_SETTINGS_KEY, text);
    unsaved = undefined;
  } catch {
    unsaved = text;
  }
  for (const listener of [...listeners]) listener();
}

/** The trader tools' settings (lib/trader-settings.ts), live across components and tabs. */
export function useTraderSettings(): TraderSettings {
  return useSyncExternalStore(subscribe, read, () => DEFAULT_TRADER_SETTINGS);
}
