import { DEFAULT_SPREAD_MIN_TVL_ADA } from '@/shared/spread';
import { DEFAULT_EXPLORER, isExplorer, type Explorer } from './explorer';

/**
 * The trader tools' settings: the explorer chain trades link to, and the TVL (in ADA) a
 * pool needs to count in a pair's spread. Kept in the browser's storage under a key of their own, so
 * the page's preferences (and the cookie the server renders with) stay as they are: neither changes
 * the first screen.
 */
export interface TraderSettings {
  readonly explorer: Explorer;
  readonly spreadMinTvl: number;
}

export const TRADER_SETTINGS_KEY = 'cardano-dex-charts:trader-settings';

export const DEFAULT_TRADER_SETTINGS: TraderSettings = {
  explorer: DEFAULT_EXPLORER,
  spreadMinTvl: DEFAULT_SPREAD_MIN_TVL_ADA,
};

/** Most a spread's TVL threshold may be (the route's own bound). */
export const MAX_SPREAD_MIN_TVL = 1e15;

/** Settings read back from their stored text: each field checked, a bad or missing one at its default. */
export function parseTraderSettings(text: string | null): TraderSettings {
  let value: unknown;
  try {
    value = text === null ? undefined : JSON.parse(text);
  } catch {
    value = undefined;
  }
  const stored = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const tvl = stored.spreadMinTvl;
  return {
    explorer: isExplorer(stored.explorer) ? stored.explorer : DEFAULT_TRADER_SETTINGS.explorer,
    spreadMinTvl:
      typeof tvl === 'number' && Number.isFinite(tvl) && tvl >= 0 && tvl <= MAX_SPREAD_MIN_TVL
        ? tvl
        : DEFAULT_TRADER_SETTINGS.spreadMinTvl,
  };
}
