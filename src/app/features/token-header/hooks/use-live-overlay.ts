import { useState } from 'react';
import type { LibrarySymbolInfo } from '../../../../datafeed';
import { useLiveBars } from '../../../hooks/use-live-bars';
import { applyLiveBar, EMPTY_OVERLAY, type LiveOverlay } from '../../../lib/live-stats';

/**
 * Live price, TVL and volume of an Aggregate symbol from the datafeed's live 1-minute bars (the same
 * connection as the chart's). DEX symbols have no live updates: the overlay stays empty.
 */
export function useLiveOverlay(info: LibrarySymbolInfo): LiveOverlay {
  const key = info.ticker ?? info.name;
  const [state, setState] = useState<{ key: string; overlay: LiveOverlay }>({ key, overlay: EMPTY_OVERLAY });
  useLiveBars(
    info,
    '1',
    (bar) => setState((s) => ({ key, overlay: applyLiveBar(s.key === key ? s.overlay : EMPTY_OVERLAY, bar, Date.now()) })),
    () => setState({ key, overlay: EMPTY_OVERLAY }),
  );
  return state.key === key ? state.overlay : EMPTY_OVERLAY;
}
