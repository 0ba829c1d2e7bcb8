import type { Page } from '@playwright/test';

/** Before the page's scripts: the page's layout shifts without recent input, summed (`shiftsOf`). */
export async function watchShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __shifts?: number };
    w.__shifts = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!entry.hadRecentInput) w.__shifts = (w.__shifts ?? 0) + entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** The layout shifts summed since the navigation (`watchShifts` installed before it). */
export function shiftsOf(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __shifts?: number }).__shifts ?? Number.NaN);
}
