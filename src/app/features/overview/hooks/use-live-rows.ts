import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { applyTrade, EMPTY_OVERLAY, type LiveOverlay } from '../../../lib/live-stats';
import { useDatafeed } from '../../../providers/app-providers';

/**
 * Trades of the Aggregate pools shown, through the app's one datafeed (one live connection for
 * everything on screen), folded per pool into what lib/live-stats adds to fetched numbers. `pools`
 * is the list shown (keep it short: the gateway caps pools per connection); `onResync` is called
 * when events may have been missed (fetch the numbers again); `onFollowed` once the pools that were
 * not followed before are live (their numbers, fetched earlier, miss the trades of the time they were
 * not followed: fetch them again). Overlays of pools no longer shown are dropped with the next trade.
 */
export function useLiveRows(pools: readonly string[], onResync: () => void, onFollowed: (pools: readonly string[]) => void): ReadonlyMap<string, LiveOverlay> {
  const datafeed = useDatafeed();
  const [overlays, setOverlays] = useState<ReadonlyMap<string, LiveOverlay>>(new Map());
  const resync = useEffectEvent(onResync);
  const followed = useEffectEvent(onFollowed);
  // The pools followed live by the last subscription that went live.
  const liveBefore = useRef<ReadonlySet<string>>(new Set());
  const key = pools.join(',');
  useEffect(() => {
    const shown = key === '' ? [] : key.split(',');
    if (shown.length === 0) return undefined;
    const added = shown.filter((pool) => !liveBefore.current.has(pool));
    return datafeed.onTrades(
      { aggregatePools: shown },
      {
        onTrade: (event) => {
          const pool = event.pool_id.toLowerCase();
          setOverlays((current) => {
            // Pools no longer shown missed their trades since: their overlays go.
            const next = new Map([...current].filter(([known]) => shown.includes(known)));
            return next.set(pool, applyTrade(current.get(pool) ?? EMPTY_OVERLAY, event, Date.now()));
          });
        },
        onLive: ({ resync: missed }) => {
          liveBefore.current = new Set(shown);
          if (missed) resync();
          else if (added.length > 0) followed(added);
        },
      },
    );
  }, [datafeed, key]);
  return overlays;
}
