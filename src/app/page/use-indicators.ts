import { useEffect, useState } from 'react';
import { usePreferences, useSelection } from '@/app/providers/app-providers';

/** The chart's indicators (the URL's `ind`): a URL without them gets the ones last chosen; a change is kept for next time. */
export function useIndicators() {
  const indicators = useSelection((s) => s.indicators);
  const select = useSelection((s) => s.select);
  const saved = usePreferences((s) => s.indicators);
  const save = usePreferences((s) => s.setIndicators);
  const [initial] = useState(() => ({ url: indicators, saved }));
  useEffect(() => {
    if (initial.url === '' && initial.saved !== '') select({ indicators: initial.saved }, { replace: true });
  }, [initial, select]);
  const changeIndicators = (next: string) => {
    save(next);
    select({ indicators: next }, { replace: true });
  };
  return { indicators, changeIndicators };
}
