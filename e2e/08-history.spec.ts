import type { Route } from '@playwright/test';
import { chart, chartAttributes, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory } from './support/market';

test('history: dragging into the past loads older bars without a jump', async ({ page, request }) => {
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=1`);
  const initial = await waitForCandles(page, { symbol: pair.symbol, resolution: '1' });
  expect(initial.visibleFrom).toBeGreaterThan(initial.firstTime);

  // Older pages are held at the network until we have noted what is in view, then let through.
  const held: Route[] = [];
  await page.route('**/gw/v1/history?**', async (route) => {
    const to = Number(new URL(route.request().url()).searchParams.get('to'));
    if (to <= initial.firstTime) held.push(route);
    else await route.continue();
  });

  // Drag the chart to the right (into the past) with the mouse, a few bars at a time, until it asks
  // for older bars (fewer than 30 bars left of the view).
  const box = await chart(page).boundingBox();
  if (!box) throw new Error('the chart has no box');
  const y = box.y + box.height * 0.4;
  let from = initial.visibleFrom;
  const loadingOlder = page.getByTestId('chart-loading-older');
  for (let drag = 0; drag < 12 && held.length === 0 && !(await loadingOlder.isVisible()); drag++) {
    await page.mouse.move(box.x + box.width * 0.3, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.45, y, { steps: 6 });
    await page.mouse.up();
    const previous = from;
    await expect.poll(async () => (from = (await chartAttributes(page)).visibleFrom)).toBeLessThan(previous);
  }
  await expect.poll(() => held.length, { message: 'the chart asks for older bars' }).toBeGreaterThan(0);
  await expect(loadingOlder).toBeVisible();
  const before = await chartAttributes(page);
  expect(before.visibleFrom).toBeLessThan(initial.visibleFrom);
  // Still short of the oldest bar: every bar in view is a loaded one.
  expect(before.visibleFrom).toBeGreaterThan(before.firstTime);
  expect(before.firstTime).toBe(initial.firstTime);

  // Let the older page through: more bars, older ones, and the view stays on the same bars.
  for (const route of held.splice(0)) await route.continue();
  await page.unroute('**/gw/v1/history?**');
  await expect.poll(async () => (await chartAttributes(page)).bars).toBeGreaterThan(before.bars);
  await expect(loadingOlder).toHaveCount(0);
  const after = await chartAttributes(page);
  expect(after.firstTime).toBeLessThan(before.firstTime);
  // Exactly the same bars in view.
  expect(after.visibleFrom, 'first bar in view').toBe(before.visibleFrom);
  expect(after.visibleTo, 'last bar in view').toBe(before.visibleTo);
  expect(after.status).toBe('ready');

  // The seam is clean: the chart holds exactly the server's bars over its whole span.
  const server = await gatewayHistory(request, pair.ticker, '1', after.firstTime, after.lastTime + 60);
  expect(after.bars).toBe(server.length);
});
