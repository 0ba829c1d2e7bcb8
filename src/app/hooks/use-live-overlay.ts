import { useState } from 'react';
import type { LibrarySymbolInfo } from '@/datafeed';
import { applyTrade, EMPTY_OVERLAY, type LiveOverlay } from '@/app/lib/live-stats';
import { useLiveTrades } from './use-live-trades';

/**
 * Live price, TVL and volume of an Aggregate symbol from its trade events (the same live connection as
 * the chart's), for `liveStats`. `refresh` is called when the pool goes live and whenever events may
 * have been missed: the statistics should be fetched again then (they have the trades the page did
 * not see). After a chain rollback the overlay is dropped too (its trades may be undone) and
 * `refresh` called. DEX symbols have no live updates: the overlay stays empty.
 */
export function useLiveOverlay(info: LibrarySymbolInfo | undefined, refresh: () => void): LiveOverlay {
  const key = info ? (info.ticker ?? info.name) : '';
  const [state, setState] = useState<{ key: string; overlay: LiveOverlay }>({ key, overlay: EMPTY_OVERLAY });
  useLiveTrades(info, {
    onTrade: (trade) =>
      setState((s) => ({ key, overlay: applyTrade(s.key === key ? s.overlay : EMPTY_OVERLAY, trade, Date.now()) })),
    onLive: () => refresh(),
    onRollback: () => {
      setState({ key, overlay: EMPTY_OVERLAY });
      refresh();
    },
  });
  return state.key === key ? state.overlay : EMPTY_OVERLAY;
}
