import type { Page } from '@playwright/test';

/**
 * Before the page's scripts: the page's layout shifts without recent input, summed (`shiftsOf`). A shift counts when
 * something a user sees moved: an entry whose every source is where it was (previous and current rectangles equal)
 * is left out. Debian's Chromium 150 reports such entries for text nodes of the market overview that did not move
 * (value 1.6e-5, a 136 × 16 px text at the same place before and after); 156 does not.
 */
export async function watchShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __shifts?: number };
    w.__shifts = 0;
    const same = (a: DOMRectReadOnly, b: DOMRectReadOnly) =>
      a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources?: readonly { previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
      })[]) {
        if (entry.hadRecentInput) continue;
        const sources = entry.sources ?? [];
        if (sources.length > 0 && sources.every((s) => same(s.previousRect, s.currentRect))) continue;
        w.__shifts = (w.__shifts ?? 0) + entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** The layout shifts summed since the navigation (`watchShifts` installed before it). */
export function shiftsOf(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __shifts?: number }).__shifts ?? Number.NaN);
}
