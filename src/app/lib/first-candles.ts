/** The performance mark the chart sets when it has drawn its first candles (the benchmark reads it too). */
export const FIRST_CANDLES_MARK = 'chart:candles';

/**
 * Calls `run` `delayMs` after the page's first candles were drawn, or after `fallbackMs` when no chart
 * draws any (the market overview, an error): work the first chart does not need (the search index's
 * megabyte of symbols) waits for it instead of competing with it. Returns a cancel function.
 */
export function afterFirstCandles(run: () => void, delayMs: number, fallbackMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let observer: PerformanceObserver | undefined;
  const later = () => {
    observer?.disconnect();
    observer = undefined;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
  };
  if (performance.getEntriesByName(FIRST_CANDLES_MARK, 'mark').length > 0) {
    later();
  } else {
    timer = setTimeout(run, fallbackMs);
    if (typeof PerformanceObserver === 'function') {
      observer = new PerformanceObserver((list) => {
        if (list.getEntriesByName(FIRST_CANDLES_MARK).length > 0) later();
      });
      try {
        observer.observe({ type: 'mark' });
      } catch {
        observer = undefined; // No mark observation here: the fallback timer stands.
      }
    }
  }
  return () => {
    observer?.disconnect();
    clearTimeout(timer);
  };
}
