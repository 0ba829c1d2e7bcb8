import { useEffect, useEffectEvent } from 'react';
import type { LibrarySymbolInfo, ResolutionString, TvlBar } from '../../datafeed';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { useDatafeed } from '../providers/app-providers';

let guidSeq = 0;

/** Whether the datafeed streams this symbol (Aggregate pools only). */
export function isLiveSymbol(info: LibrarySymbolInfo | undefined): info is LibrarySymbolInfo & { ticker: string } {
  return info !== undefined && info.exchange === AGGREGATE_GROUP && info.ticker !== undefined;
}

/**
 * Live bars of an Aggregate symbol through the app's one datafeed (one EventSource for everything on
 * screen). `onBar` gets the current bar after every trade; `onReset` when history changed under it.
 * Nothing happens for other symbols (DEX pools do not stream).
 */
export function useLiveBars(info: LibrarySymbolInfo | undefined, resolution: ResolutionString, onBar: (bar: TvlBar) => void, onReset?: () => void): void {
  const datafeed = useDatafeed();
  const bar = useEffectEvent(onBar);
  const reset = useEffectEvent(() => onReset?.());
  useEffect(() => {
    if (!isLiveSymbol(info)) return undefined;
    const guid = `live-${++guidSeq}`;
    datafeed.subscribeBars(info, resolution, (b) => bar(b as TvlBar), guid, () => reset());
    return () => datafeed.unsubscribeBars(guid);
  }, [datafeed, info, resolution]);
}
