import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useDatafeed } from '../../../providers/app-providers';
import { searchIndexQueryOptions } from '../api/search-index';

/** Waits this long after start before loading every group's symbols (the chart comes first). */
const PREFETCH_DELAY_MS = 1500;

/**
 * The search index: loaded when the search is first used, or shortly after start, whichever comes
 * first, so the first keystroke rarely waits.
 */
export function useSearchIndex(wanted: boolean) {
  const datafeed = useDatafeed();
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setIdle(true), PREFETCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  return useQuery({ ...searchIndexQueryOptions(datafeed), enabled: wanted || idle });
}
