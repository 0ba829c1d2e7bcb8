import type { Browser, Page } from '@playwright/test';
import { benchContext, waitForChart } from './app-pages';
import { DRAWING_DRAWN_MEASURE } from '../src/app/features/drawings/lib/marks';
import { median, round, type BenchRow } from './measure';

/**
 * Issue 27's drawings: a drawing added, from the press that places it (the pointer event's time) to
 * the chart's frame that draws it (the app's `drawing:drawn` measure, taken in the animation frame
 * after lightweight-charts' own). Target: the next frame, one frame at 60 Hz (the wait for that frame
 * is in the figure, so a press just after a frame counts nearly all of it).
 */
const DRAWING_TARGET_MS = 16.7;
const VIEWPORT = { width: 1280, height: 800 } as const;

async function pressAt(page: Page, x: number, y: number): Promise<void> {
  await page.mouse.click(x, y);
}

/** `adds` measured adds of a horizontal line (one press) and of a trend line (its second press), after one unmeasured of each. */
export async function drawingAdds(browser: Browser, origin: string, adds = 8): Promise<BenchRow> {
  const context = await benchContext(browser, VIEWPORT);
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/?res=60`);
    await waitForChart(page);
    await page.getByRole('button', { name: 'Drawing tools' }).click();
    await page.waitForSelector('[data-testid="drawing-tools"]', { timeout: 10_000 });
    await page.locator('[data-testid="price-chart"]').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const box = await page.locator('[data-testid="price-chart"] .chart__view').boundingBox();
    if (!box) throw new Error('no chart');
    const at = (fx: number, fy: number) => [box.x + (box.width - 80) * fx, box.y + (box.height - 80) * fy] as const;
    const byKind: Record<string, number[]> = { hline: [], trend: [] };
    let bars = 0;
    for (const kind of ['hline', 'trend'] as const) {
      for (let i = 0; i <= adds; i++) {
        await page.evaluate((measure) => performance.clearMeasures(measure), DRAWING_DRAWN_MEASURE);
        await page.getByTestId(`drawing-tool-${kind}`).click();
        // The press on the chart comes once the tool is shown chosen (as a trader's does), not within
        // the same few milliseconds as the tool's click, whose render and frame it would wait for.
        await page.waitForSelector(`[data-testid="drawing-tool-${kind}"][aria-pressed="true"]`, { timeout: 10_000 });
        if (kind === 'trend') await pressAt(page, ...at(0.3, 0.6));
        await pressAt(page, ...at(0.6, 0.3 + 0.02 * i));
        await page.waitForFunction(
          (measure) => performance.getEntriesByName(measure).length > 0,
          DRAWING_DRAWN_MEASURE,
          { timeout: 10_000, polling: 10 },
        );
        const duration = await page.evaluate(
          (measure) => performance.getEntriesByName(measure)[0]?.duration ?? Number.NaN,
          DRAWING_DRAWN_MEASURE,
        );
        if (i > 0) byKind[kind]?.push(duration);
        bars = Number(await page.getAttribute('[data-testid="price-chart"]', 'data-bars'));
        await page.keyboard.press('Delete');
        await page.waitForSelector('[data-testid="drawing-tools"][data-drawings="0"]', { timeout: 10_000 });
      }
    }
    const all = [...(byKind.hline ?? []), ...(byKind.trend ?? [])];
    const value = median(all);
    const worst = Math.max(...all);
    const stats = (kind: string) =>
      `${kind} median ${round(median(byKind[kind] ?? []), 1)} ms, max ${round(Math.max(...(byKind[kind] ?? [])), 1)} ms`;
    return {
      suite: 'app',
      name: 'drawing add -> drawn',
      value: round(value, 1),
      unit: 'ms',
      target: `<= ${DRAWING_TARGET_MS} ms (the next frame)`,
      pass: value <= DRAWING_TARGET_MS,
      note: `median of ${all.length} adds over ${bars} bars (the press's event time -> the frame after lightweight-charts' that draws it, the wait for that frame included); ${stats('hline')}, ${stats('trend')} (its second press); worst ${round(worst, 1)} ms`,
    };
  } finally {
    await context.close();
  }
}
