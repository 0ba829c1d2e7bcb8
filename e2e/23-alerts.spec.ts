import type { Page } from '@playwright/test';
import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, groupSymbols, poolStats, tradeUntilPoolMoves } from './support/market';

/**
 * The browser's Notification, wrapped before the page's scripts to record what the page asks of it
 * (observing the browser: the notifications are still the browser's own).
 */
const RECORD_NOTIFICATIONS = () => {
  const record = { shown: [] as { title: string; body: string }[], asked: 0 };
  (window as unknown as { __notifications: typeof record }).__notifications = record;
  const Original = window.Notification;
  if (!Original) return;
  class Recorded extends Original {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      record.shown.push({ title, body: options?.body ?? '' });
    }
    static override requestPermission(callback?: NotificationPermissionCallback): Promise<NotificationPermission> {
      record.asked++;
      return Original.requestPermission(callback);
    }
  }
  window.Notification = Recorded;
};

const notifications = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __notifications: { shown: { title: string; body: string }[]; asked: number } })
        .__notifications,
  );

/** An alert added in the open panel: `kind` and its price. */
async function addAlert(page: Page, kind: 'above' | 'below', price: number): Promise<void> {
  const panel = page.getByTestId('alerts-panel');
  const before = await panel.getByTestId('alert-row').count();
  await panel.getByTestId('alert-kind').selectOption(kind);
  await panel.getByTestId('alert-price').fill(String(price));
  await panel.getByTestId('alert-submit').click();
  await expect(panel.getByTestId('alert-row')).toHaveCount(before + 1);
}

/** Alert row `i` edited to `kind` at `price`. */
async function editAlert(page: Page, i: number, kind: 'above' | 'below', price: number): Promise<void> {
  const panel = page.getByTestId('alerts-panel');
  await panel.getByTestId('alert-row').nth(i).getByTestId('alert-edit').click();
  await panel.getByTestId('alert-kind').selectOption(kind);
  await panel.getByTestId('alert-price').fill(String(price));
  await panel.getByTestId('alert-submit').click();
  await expect(panel.getByTestId('alert-row').nth(i)).toHaveAttribute('data-status', 'armed');
}

/** A hair above and below the price: the next trade that moves the pool crosses one of them. */
const around = (price: number) => ({
  above: Number((price * (1 + 1e-7)).toPrecision(12)),
  below: Number((price * (1 - 1e-7)).toPrecision(12)),
});

test('alerts: made on the pair shown, fired by a trade (on the page and as a system notification), kept and armed again on the next visit, firing for a pair not shown', async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(['notifications']);
  await page.addInitScript(RECORD_NOTIFICATIONS);
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto('/');
  await waitForCandles(page, { symbol: pair.symbol });
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live', { timeout: 15_000 });

  await page.getByTestId('alerts-toggle').click();
  await expect(page.getByTestId('alerts-toggle')).toHaveAttribute('aria-expanded', 'true');
  const panel = page.getByTestId('alerts-panel');
  await expect(panel.getByTestId('alert-form')).toContainText('SNEK/ADA on Aggregate');
  // The threshold starts at the price now.
  const now = (await poolStats(request, pair.ticker)).current_price;
  await expect
    .poll(async () => Math.abs(Number(await panel.getByTestId('alert-price').inputValue()) / now - 1))
    .toBeLessThan(0.05);
  const first = around(now);
  await addAlert(page, 'above', first.above);
  await addAlert(page, 'below', first.below);
  await expect(panel.getByTestId('alert-row').nth(0)).toHaveAttribute('data-status', 'armed');
  // The live connection carries the alerts' pool.
  await expect(panel).toHaveAttribute('data-live', 'true');

  const move = await tradeUntilPoolMoves(request, pair.ticker);
  const up = move.after.current_price > move.before.current_price;
  // The alert on the side the trade moved fired. The market trades on its own too: a trade of its own that moved
  // the price back across the other (a hair away) fires that one as well, so each firing is checked for what it
  // shows, not their count.
  const fired = panel.locator('[data-testid="alert-row"][data-status="fired"]');
  const firedByMove = fired.filter({ hasText: up ? 'crosses above' : 'crosses below' });
  await expect(firedByMove).toHaveCount(1, { timeout: 10_000 });
  await expect(firedByMove.getByTestId('alert-status')).toContainText(/Fired \d{4}-\d\d-\d\d \d\d:\d\d at \d/);
  await expect(
    page
      .getByTestId('alert-notice')
      .filter({ hasText: `SNEK/ADA on Aggregate ${up ? 'crossed above' : 'crossed below'}` }),
  ).toHaveCount(1);
  // One system notification per firing.
  await expect
    .poll(async () => (await notifications(page)).shown.length === (await fired.count()) && (await fired.count()) > 0)
    .toBe(true);
  const { shown } = await notifications(page);
  expect(shown.every((n) => n.title === 'Alert: SNEK/ADA on Aggregate')).toBe(true);
  expect(shown.some((n) => n.body.includes(up ? 'crossed above' : 'crossed below'))).toBe(true);

  // The next visit, on another pair: the alerts are armed again from storage without opening the panel.
  const other = (await groupSymbols(request, 'Aggregate')).find(
    (row) => row.symbol !== pair.symbol && row.symbol.includes('_Aggregate_'),
  );
  await page.goto(`/?symbol=${encodeURIComponent(other?.symbol ?? '')}`);
  await waitForCandles(page, { symbol: other?.symbol ?? '' });
  await expect(page.getByTestId('alert-notices')).toBeAttached();
  await page.getByTestId('alerts-toggle').click();
  await expect(panel.getByTestId('alert-row')).toHaveCount(2);
  // Kept as they were: what had fired is still marked fired (one, or both when the market's own trade crossed the
  // other as well before the page was left).
  await expect.poll(() => fired.count()).toBeGreaterThanOrEqual(1);
  // Both edited around SNEK's price now (armed again), while another pair is shown: a trade of SNEK fires one.
  const second = around((await poolStats(request, pair.ticker)).current_price);
  await editAlert(page, 0, 'above', second.above);
  await editAlert(page, 1, 'below', second.below);
  // SNEK's pool joins the live connection beside the pair shown.
  await expect(panel).toHaveAttribute('data-live', 'true', { timeout: 15_000 });
  const again = await tradeUntilPoolMoves(request, pair.ticker);
  const againUp = again.after.current_price > again.before.current_price;
  const firedAgain = panel.locator('[data-testid="alert-row"][data-status="fired"]');
  await expect(firedAgain.filter({ hasText: againUp ? 'crosses above' : 'crosses below' })).toHaveCount(1, {
    timeout: 10_000,
  });
  await expect(page.getByTestId('alert-notice').first()).toContainText('SNEK/ADA on Aggregate');
  await expect
    .poll(
      async () =>
        (await notifications(page)).shown.length === (await firedAgain.count()) && (await firedAgain.count()) > 0,
    )
    .toBe(true);
  // Granted already: never asked.
  expect((await notifications(page)).asked).toBe(0);

  // Removed, one by one.
  await panel.getByTestId('alert-remove').first().click();
  await panel.getByTestId('alert-remove').first().click();
  await expect(panel.getByTestId('alerts-empty')).toBeVisible();
});

test('alerts: permission asked when the first alert is made, never on load; a bad threshold says why', async ({
  page,
}) => {
  await page.addInitScript(RECORD_NOTIFICATIONS);
  await page.goto('/');
  await waitForCandles(page);
  expect((await notifications(page)).asked).toBe(0);
  await page.getByTestId('alerts-toggle').click();
  const panel = page.getByTestId('alerts-panel');
  expect((await notifications(page)).asked).toBe(0);
  await panel.getByTestId('alert-price').fill('-1');
  await panel.getByTestId('alert-submit').click();
  await expect(panel.getByTestId('alert-problem')).toHaveText('The price must be a number above 0');
  await panel.getByTestId('alert-kind').selectOption('move');
  await panel.getByTestId('alert-percent').fill('2');
  await panel.getByTestId('alert-minutes').fill('30');
  await panel.getByTestId('alert-submit').click();
  await expect(panel.getByTestId('alert-row')).toHaveCount(1);
  await expect(panel.getByTestId('alert-row')).toContainText('moves more than 2 % within 30 min');
  await expect.poll(async () => (await notifications(page)).asked).toBe(1);
});

test('alerts: no WCAG A/AA violation with the panel open, in either theme and at phone width', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto('/');
  await waitForCandles(page);
  await page.getByTestId('alerts-toggle').click();
  const panel = page.getByTestId('alerts-panel');
  await panel.getByTestId('alert-submit').click();
  await expect(panel.getByTestId('alert-row')).toHaveCount(1);
  expect(await violations(page), 'dark theme').toEqual([]);
  await page.getByRole('button', { name: 'Light', exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(await violations(page), 'light theme').toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await violations(page), 'phone width').toEqual([]);
  if (process.env.DOC_SCREENSHOTS === '1') {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Dark', exact: true }).click();
    await page.screenshot({ path: 'docs/img/alerts.png' });
  }
});
