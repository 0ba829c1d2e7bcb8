import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { applyTrade, EMPTY_OVERLAY, type LiveOverlay } from '@/app/lib/live-stats';
import { useDatafeed } from '@/app/providers/app-providers';

/**
 * Trades of the Aggregate pools shown, through the app's one datafeed (one live connection for
 * everything on screen), folded per pool into what lib/live-stats adds to fetched numbers. `pools`
 * is the list shown (keep it short: the gateway caps pools per connection); `onResync` is called
 * when events may have been missed (fetch the numbers again), with `onFollowed` for every pool shown;
 * `onFollowed` once the pools that were not followed before are live (their numbers, fetched
 * earlier, miss the trades of the time they were not followed: fetch them again).
 *
 * An overlay exists only while its pool has been followed without a break, so its newest trade is
 * the pool's newest state: it is dropped when the pool leaves `pools`, and every overlay is dropped
 * when trades were missed.
 */
export function useLiveRows(
  pools: readonly string[],
  onResync: () => void,
  onFollowed: (pools: readonly string[]) => void,
): ReadonlyMap<string, LiveOverlay> {
  const datafeed = useDatafeed();
  const [overlays, setOverlays] = useState<ReadonlyMap<string, LiveOverlay>>(new Map());
  const resync = useEffectEvent(onResync);
  const followed = useEffectEvent(onFollowed);
  // The pools followed without a break since their numbers were last asked: those of the last
  // subscription that went live, less every pool a later subscription left out (its trades while it
  // was left out were never heard, even if it is back before that subscription went live).
  const liveBefore = useRef<ReadonlySet<string>>(new Set());
  const key = pools.join(',');
  useEffect(() => {
    const shown = key === '' ? [] : key.split(',');
    liveBefore.current = new Set(shown.filter((pool) => liveBefore.current.has(pool)));
    if (shown.length === 0) return undefined;
    const added = new Set(shown.filter((pool) => !liveBefore.current.has(pool)));
    const startedAt = Date.now();
    /**
     * The overlays this subscription keeps: none of a pool left out (it missed trades since), nor one of
     * a pool followed again from before it was left out (it would pass for the newest trade).
     */
    const kept = (current: ReadonlyMap<string, LiveOverlay>): Map<string, LiveOverlay> =>
      new Map(
        [...current].filter(
          ([pool, overlay]) => shown.includes(pool) && !(added.has(pool) && (overlay.at ?? 0) < startedAt),
        ),
      );
    return datafeed.onTrades(
      { aggregatePools: shown },
      {
        onTrade: (event) => {
          const pool = event.pool_id.toLowerCase();
          setOverlays((current) => {
            const next = kept(current);
            return next.set(pool, applyTrade(next.get(pool) ?? EMPTY_OVERLAY, event, Date.now()));
          });
        },
        // A chain rollback undid trades of any pool: as when trades were missed, every row shown is asked again.
        onRollback: () => {
          setOverlays(new Map());
          resync();
          followed(shown);
        },
        onLive: ({ resync: missed }) => {
          liveBefore.current = new Set(shown);
          if (missed) {
            // Trades were missed: no overlay is the newest trade any more; every row shown is asked again.
            setOverlays(new Map());
            resync();
            followed(shown);
          } else {
            setOverlays(kept);
            if (added.size > 0) followed([...added]);
          }
        },
      },
    );
  }, [datafeed, key]);
  return overlays;
}
