import { createStore, type StoreApi } from 'zustand/vanilla';
import { formatSelection, parseSelection, sameSelection, type Selection } from '@/app/lib/selection';

export { RESOLUTION_CHOICES, formatSelection, parseSelection, type View } from '@/app/lib/selection';

export interface SelectionState extends Selection {
  /** Changes the selection: a new history entry (`replace`: rewrite the current one, e.g. to canonicalise). */
  select(next: Partial<Selection>, options?: { replace?: boolean }): void;
  /** Re-reads the URL (popstate). */
  syncFromUrl(): void;
  /** The page's address (path and query) of the selection changed by `next`: a link's href. */
  href(next: Partial<Selection>): string;
  /** What the current history entry keeps under `key` (a screen's place: the overview's sort and scroll), if anything. */
  place(key: string): unknown;
  /** Keeps `value` under `key` in the current history entry (no new entry): Back to it finds the place again. */
  keepPlace(key: string, value: unknown): void;
}

export type SelectionStore = StoreApi<SelectionState>;

/** The browser surface the store needs (window in the app, the same in jsdom tests). */
export interface UrlHost {
  readonly location: { readonly search: string; readonly pathname: string; readonly hash: string };
  readonly history: {
    readonly state?: unknown;
    pushState(data: unknown, unused: string, url?: string): void;
    replaceState(data: unknown, unused: string, url?: string): void;
  };
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
        view: next.view ?? current.view,
        layout: next.layout ?? current.layout,
      };
      const url = `${host.location.pathname}${formatSelection(merged, host.location.search)}${host.location.hash}`;
      // A rewrite of the same entry keeps what the entry remembers (keepPlace).
      if (options?.replace) host.history.replaceState(host.history.state ?? null, '', url);
      else if (!sameSelection(merged, current)) host.history.pushState(null, '', url);
      set(merged);
    },
    href: (next) => `${host.location.pathname}${formatSelection({ ...get(), ...next }, host.location.search)}`,
    syncFromUrl: () => {
      const next = parseSelection(host.location.search);
      if (!sameSelection(next, get())) set(next);
    },
    place: (key) => {
      const state = host.history.state;
      return typeof state === 'object' && state !== null ? (state as Record<string, unknown>)[key] : undefined;
    },
    keepPlace: (key, value) => {
      const state = host.history.state;
      const kept = typeof state === 'object' && state !== null ? state : {};
      host.history.replaceState(
        { ...kept, [key]: value },
        '',
        `${host.location.pathname}${host.location.search}${host.location.hash}`,
      );
    },
  }));
}
