import type { Page } from '@playwright/test';
import { violations } from './support/axe';
import { chart, chartAttributes, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';

/**
 * Drawings (issue 27, part 1): placed on the chart with the tools, selected, moved by an end, coloured
 * and deleted; anchored to time and price, so they follow inversion and resolution changes; kept per
 * pair in the browser's storage; in the PNG export; and on a phone by touch.
 */

interface Drawn {
  readonly id: string;
  readonly kind: string;
  readonly color: string;
  readonly points: readonly { readonly x: number; readonly y: number; readonly price: number }[];
}

/** What the chart has drawn, where (its view's data-drawings: pane pixels and prices as shown). */
async function drawn(page: Page): Promise<Drawn[]> {
  const text = await chart(page).locator('.chart__view').getAttribute('data-drawings');
  return text ? (JSON.parse(text) as Drawn[]) : [];
}

/** The pair's drawings as kept in localStorage (prices as the datafeed has them). */
async function kept(page: Page): Promise<{ kind: string; color: string; points: { time: number; price: number }[] }[]> {
  return page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? '';
      if (key.startsWith('cardano-dex-charts:drawings:'))
        return (JSON.parse(localStorage.getItem(key) ?? '{}') as { drawings: never[] }).drawings;
    }
    return [];
  });
}

/** The chart's pane: its box on the page (the price scale at its right is left out). */
async function pane(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  // The whole chart on screen (on a phone the tools above it push it down).
  await chart(page).evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const box = await chart(page).locator('.chart__view').boundingBox();
  if (!box) throw new Error('no chart');
  return { x: box.x, y: box.y, width: box.width - 80, height: box.height - 60 };
}

test('drawings: placed, selected, moved by an end, coloured, deleted; they follow inversion and resolution, stay after a reload and are in the PNG', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.goto('/?res=60');
  await waitForCandles(page);
  // Nothing of the drawings is loaded before they are used.
  expect(
    await page.evaluate(() =>
      performance.getEntriesByType('resource').some((e) => /\/drawings-[\w-]+\.js$/.test(e.name)),
    ),
  ).toBe(false);
  await page.getByRole('button', { name: 'Drawing tools' }).click();
  const tools = page.getByTestId('drawing-tools');
  await expect(tools).toBeVisible();
  let box = await pane(page);

  // A horizontal line: one click.
  await page.getByRole('button', { name: 'Horizontal line' }).click();
  await expect(page.getByRole('button', { name: 'Horizontal line' })).toHaveAttribute('aria-pressed', 'true');
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await expect(tools).toHaveAttribute('data-drawings', '1');
  await expect.poll(async () => (await drawn(page)).length).toBe(1);
  const [line] = await drawn(page);
  expect(Math.abs((line?.points[0]?.y ?? 0) - box.height * 0.3)).toBeLessThan(2);

  // A trend line: two clicks; the chart does not scroll under them.
  const before = await chartAttributes(page);
  await page.getByRole('button', { name: 'Trend line' }).click();
  await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.7);
  await expect(page.getByTestId('drawing-hint')).toContainText('second point');
  await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.5);
  await expect(tools).toHaveAttribute('data-drawings', '2');
  await expect.poll(async () => (await drawn(page)).length).toBe(2);
  const trend = (await drawn(page)).find((d) => d.kind === 'trend');
  expect(trend?.points).toHaveLength(2);

  // Its second end dragged: that end moves, the first stays, and the chart does not pan.
  box = await pane(page);
  const end = trend?.points[1] ?? { x: 0, y: 0 };
  await page.mouse.move(box.x + end.x, box.y + end.y);
  await page.mouse.down();
  await page.mouse.move(box.x + end.x - 60, box.y + end.y - 40, { steps: 5 });
  await page.mouse.up();
  await expect
    .poll(async () => (await drawn(page)).find((d) => d.kind === 'trend')?.points[1]?.y)
    .toBeLessThan(end.y - 30);
  const moved = (await drawn(page)).find((d) => d.kind === 'trend');
  expect(Math.abs((moved?.points[0]?.x ?? 0) - (trend?.points[0]?.x ?? 0))).toBeLessThan(2);
  const after = await chartAttributes(page);
  expect(after.visibleFrom).toBe(before.visibleFrom);
  expect(after.visibleTo).toBe(before.visibleTo);

  // Colour: the selected drawing takes it, on screen and in storage.
  await page.getByLabel('Drawing colour').fill('#ff0000');
  await expect.poll(async () => (await drawn(page)).find((d) => d.kind === 'trend')?.color).toBe('#ff0000');
  expect((await kept(page)).find((d) => d.kind === 'trend')?.color).toBe('#ff0000');

  // A measure and a note.
  await page.getByRole('button', { name: 'Measure' }).click();
  await page.mouse.click(box.x + box.width * 0.2, box.y + box.height * 0.8);
  await page.mouse.click(box.x + box.width * 0.35, box.y + box.height * 0.6);
  await page.getByRole('button', { name: 'Text note' }).click();
  await page.getByLabel('Note text').fill('Support here');
  await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.85);
  await expect(tools).toHaveAttribute('data-drawings', '4');
  await expect(page.getByTestId('drawing-hint')).toContainText('Text note 1: Support here selected');
  if (process.env.DOC_SCREENSHOTS === '1') {
    // docs/app.md's picture: the tools and the chart with a drawing of each kind but the ray.
    await expect.poll(async () => (await drawn(page)).length).toBe(4);
    const top = await tools.boundingBox();
    const bottom = await chart(page).boundingBox();
    if (top && bottom)
      await page.screenshot({
        path: 'docs/img/drawings.png',
        clip: { x: top.x, y: top.y, width: bottom.width, height: bottom.y + bottom.height - top.y },
      });
  }

  // The PNG export has them: it differs from one without them (the drawings' chunk is already in).
  const png = async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()]);
    const path = await download.path();
    return (await import('node:fs')).readFileSync(path);
  };
  const withDrawings = await png();

  // Inverted: drawn at 1 / price, kept as they were.
  const keptBefore = await kept(page);
  const shownBefore = (await drawn(page)).find((d) => d.kind === 'hline')?.points[0]?.price ?? 0;
  await page.getByTestId('invert-toggle').click();
  await expect(chart(page)).toHaveAttribute('data-last-close', /\d/);
  await expect
    .poll(async () => (await drawn(page)).find((d) => d.kind === 'hline')?.points[0]?.price ?? 0)
    .toBeCloseTo(1 / shownBefore, 0);
  const invertedPrice = (await drawn(page)).find((d) => d.kind === 'hline')?.points[0]?.price ?? 0;
  expect(Math.abs(invertedPrice * shownBefore - 1)).toBeLessThan(1e-6);
  expect(await kept(page)).toEqual(keptBefore);
  await page.getByTestId('invert-toggle').click();

  // In USD: drawn at the ADA price times ADA/USD of its time, kept in ADA.
  await page.getByTestId('currency-usd').click();
  await expect(chart(page)).toHaveAttribute('data-currency', 'usd');
  await expect
    .poll(async () => (await drawn(page)).find((d) => d.kind === 'hline')?.points[0]?.price ?? shownBefore)
    .not.toBe(shownBefore);
  expect(await kept(page)).toEqual(keptBefore);
  await page.getByTestId('currency-ada').click();
  await expect(chart(page)).toHaveAttribute('data-currency', 'ada');

  // Another resolution: the same moments and prices (the line's price as before).
  await page.getByTestId('resolution-15').click();
  await waitForCandles(page, { resolution: '15' });
  await expect
    .poll(async () => (await drawn(page)).find((d) => d.kind === 'hline')?.points[0]?.price)
    .toBe(shownBefore);
  expect(await kept(page)).toEqual(keptBefore);

  // Delete key on the selected drawing, then the Delete button on one picked from the list.
  await page.getByText('Drawings (4)').click();
  await page.getByRole('button', { name: 'Trend line 1' }).click();
  await page.keyboard.press('Delete');
  await expect(tools).toHaveAttribute('data-drawings', '3');
  await page.getByRole('button', { name: 'Measure 1' }).click();
  await page.getByRole('button', { name: 'Delete the selected drawing' }).click();
  await expect(tools).toHaveAttribute('data-drawings', '2');

  // Kept for the pair: a reload draws them without the tools open.
  await page.reload();
  await waitForCandles(page);
  await expect.poll(async () => (await drawn(page)).map((d) => d.kind).sort()).toEqual(['hline', 'note']);
  await expect(page.getByTestId('drawing-tools')).toHaveCount(0);

  // The PNG without any: different from the one with them.
  await page.getByRole('button', { name: 'Drawing tools' }).click();
  await page.getByText('Drawings (2)').click();
  for (const name of ['Horizontal line 1', 'Text note 1: Support here']) {
    await page.getByRole('button', { name }).click();
    await page.keyboard.press('Delete');
  }
  await expect(tools).toHaveAttribute('data-drawings', '0');
  await page.getByTestId('resolution-60').click();
  await waitForCandles(page, { resolution: '60' });
  expect((await png()).equals(withDrawings)).toBe(false);
  expect(await kept(page)).toEqual([]);
});

test('drawing tools: named and axe clean in both themes', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto('/');
  await waitForCandles(page);
  await page.getByRole('button', { name: 'Drawing tools' }).click();
  await expect(page.getByRole('group', { name: 'Drawing tools' })).toBeVisible();
  const box = await pane(page);
  await page.getByRole('button', { name: 'Trend line' }).click();
  await page.mouse.click(box.x + 100, box.y + 100);
  await page.mouse.click(box.x + 200, box.y + 150);
  await page.getByText('Drawings (1)').click();
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light', exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await violations(page), 'light theme').toEqual([]);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('drawings by touch: tap to place, drag an end to move it; the page fits and is axe clean', async ({ page }) => {
    // An axe scan: several seconds on a busy 2-core machine.
    test.setTimeout(60_000);
    await page.goto('/');
    await waitForCandles(page);
    await page.getByRole('button', { name: 'Drawing tools' }).tap();
    await page.getByRole('button', { name: 'Trend line' }).tap();
    // After the tap: tapping a button scrolls it into view.
    let box = await pane(page);
    await page.touchscreen.tap(box.x + box.width * 0.2, box.y + box.height * 0.6);
    await page.touchscreen.tap(box.x + box.width * 0.7, box.y + box.height * 0.3);
    await expect(page.getByTestId('drawing-tools')).toHaveAttribute('data-drawings', '1');
    await expect.poll(async () => (await drawn(page)).length).toBe(1);
    const [trend] = await drawn(page);
    const end = trend?.points[1] ?? { x: 0, y: 0 };
    box = await pane(page);
    const before = await chartAttributes(page);

    // A finger on its end, dragged: the end follows, the chart stays.
    const cdp = await page.context().newCDPSession(page);
    const touch = async (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number, y: number) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
    await touch('touchStart', box.x + end.x, box.y + end.y);
    for (let i = 1; i <= 5; i++) await touch('touchMove', box.x + end.x - 8 * i, box.y + end.y + 10 * i);
    await touch('touchEnd', 0, 0);
    await expect.poll(async () => (await drawn(page))[0]?.points[1]?.y ?? 0).toBeGreaterThan(end.y + 40);
    expect(Math.abs(((await drawn(page))[0]?.points[0]?.x ?? 0) - (trend?.points[0]?.x ?? 0))).toBeLessThan(2);
    const after = await chartAttributes(page);
    expect(after.visibleFrom).toBe(before.visibleFrom);

    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await violations(page), 'phone width').toEqual([]);
  });
});
