import { createStore, type StoreApi } from 'zustand/vanilla';
import { formatSelection, parseSelection, sameSelection, type Selection } from '../lib/selection';

export { DEFAULT_RESOLUTION, RESOLUTION_CHOICES, formatSelection, normaliseResolution, parseSelection, sameSelection, type Selection } from '../lib/selection';

export interface SelectionState extends Selection {
  /** Changes the selection: a new history entry (`replace`: rewrite the current one, e.g. to canonicalise). */
  select(next: Partial<Selection>, options?: { replace?: boolean }): void;
  /** Re-reads the URL (popstate). */
  syncFromUrl(): void;
}

export type SelectionStore = StoreApi<SelectionState>;

/** The browser surface the store needs (window in the app, the same in jsdom tests). */
export interface UrlHost {
  readonly location: { readonly search: string; readonly pathname: string; readonly hash: string };
  readonly history: { pushState(data: unknown, unused: string, url?: string): void; replaceState(data: unknown, unused: string, url?: string): void };
}

export function createSelectionStore(host: UrlHost): SelectionStore {
  return createStore<SelectionState>()((set, get) => ({
    ...parseSelection(host.location.search),
    select: (next, options) => {
      const current = get();
      const merged: Selection = {
        group: next.group ?? current.group,
        symbol: 'symbol' in next ? next.symbol : current.symbol,
        resolution: next.resolution ?? current.resolution,
        inverted: next.inverted ?? current.inverted,
        indicators: next.indicators ?? current.indicators,
        currency: next.currency ?? current.currency,
      };
      const url = `${host.location.pathname}${formatSelection(merged, host.location.search)}${host.location.hash}`;
      if (options?.replace) host.history.replaceState(null, '', url);
      else if (!sameSelection(merged, current)) host.history.pushState(null, '', url);
      set(merged);
    },
    syncFromUrl: () => {
      const next = parseSelection(host.location.search);
      if (!sameSelection(next, get())) set(next);
    },
  }));
}
