import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { afterFirstCandles } from '@/app/lib/first-candles';
import { useDatafeed } from '@/app/providers/app-providers';
import { searchIndexQueryOptions } from '@/app/api/search-index';

/** Waits this long after the first candles before loading every group's symbols (the chart comes first). */
const PREFETCH_DELAY_MS = 1000;
/** ... or this long after start on a page that draws no candles. */
const PREFETCH_FALLBACK_MS = 3000;

/**
 * The search index: loaded when the search is first used, or shortly after the first candles,
 * whichever comes first, so the first keystroke rarely waits and the first chart never does.
 */
export function useSearchIndex(wanted: boolean) {
  const datafeed = useDatafeed();
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    return afterFirstCandles(() => setIdle(true), PREFETCH_DELAY_MS, PREFETCH_FALLBACK_MS);
  }, []);
  return useQuery({ ...searchIndexQueryOptions(datafeed), enabled: wanted || idle });
}
