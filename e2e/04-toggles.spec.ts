import type { Locator, Page } from '@playwright/test';
import { chart, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { meanLuminance, pixelDifference } from './support/pixels';

// A DEX pool: no live updates, so the chart only changes when we change it.
const DEEP_LINK = '/?group=MinswapV2&symbol=ADA.MIN_MinswapV2_Pool1&res=60';

async function shot(page: Page): Promise<Buffer> {
  return chart(page).screenshot({ animations: 'disabled' });
}

/** Waits until the chart's pixels differ from `before` by at least `share` (it redraws on the next frame). */
async function expectRedrawn(page: Page, before: Buffer, share = 0.002): Promise<Buffer> {
  let after = before;
  await expect
    .poll(async () => {
      after = await shot(page);
      return pixelDifference(before, after);
    })
    .toBeGreaterThan(share);
  return after;
}

async function expectPressed(button: Locator, pressed: boolean): Promise<void> {
  await expect(button).toHaveAttribute('aria-pressed', String(pressed));
}

test('volume, TVL, log scale and theme toggles work and survive a reload', async ({ page }) => {
  await page.goto(DEEP_LINK);
  await waitForCandles(page, { symbol: 'ADA.MIN_MinswapV2_Pool1' });
  // Keep the pointer off the chart: the crosshair would change pixels.
  await page.mouse.move(0, 0);

  const volume = page.getByRole('button', { name: 'Volume', exact: true });
  const tvl = page.getByRole('button', { name: 'TVL', exact: true });
  const log = page.getByRole('button', { name: 'Logarithmic price scale' });
  const light = page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'Light', exact: true });
  const dark = page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'Dark', exact: true });

  // Defaults: volume and TVL shown, linear scale, dark theme.
  await expectPressed(volume, true);
  await expectPressed(tvl, true);
  await expectPressed(log, false);
  await expectPressed(dark, true);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const original = await shot(page);

  // Each toggle redraws the chart; toggling back restores it.
  await volume.click();
  await expectPressed(volume, false);
  await expectRedrawn(page, original);
  await volume.click();
  await expectPressed(volume, true);
  await expect.poll(async () => pixelDifference(original, await shot(page))).toBeLessThan(0.001);

  await tvl.click();
  await expectPressed(tvl, false);
  const noTvl = await expectRedrawn(page, original, 0.01);
  await log.click();
  await expectPressed(log, true);
  const logShot = await expectRedrawn(page, noTvl);

  const darkLuminance = meanLuminance(logShot);
  await light.click();
  await expectPressed(light, true);
  await expectPressed(dark, false);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(chart(page)).toHaveAttribute('data-theme', 'light');
  await expect(page.getByTestId('theme-toggle')).toHaveAttribute('data-theme', 'light');
  await expect
    .poll(async () => meanLuminance(await shot(page)), 'the chart turns light')
    .toBeGreaterThan(darkLuminance + 80);
  const beforeReload = await shot(page);

  // Everything survives a reload: the buttons, the page's theme and the chart as drawn.
  await page.reload();
  await waitForCandles(page, { symbol: 'ADA.MIN_MinswapV2_Pool1' });
  await page.mouse.move(0, 0);
  await expectPressed(volume, true);
  await expectPressed(tvl, false);
  await expectPressed(log, true);
  await expectPressed(light, true);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(chart(page)).toHaveAttribute('data-theme', 'light');
  await expect
    .poll(async () => pixelDifference(beforeReload, await shot(page)), 'the chart looks as before the reload')
    .toBeLessThan(0.002);
  const stored = await page.evaluate(
    () =>
      JSON.parse(localStorage.getItem('cardano-dex-charts:preferences') ?? '{}') as { state?: Record<string, unknown> },
  );
  expect(stored.state).toMatchObject({ theme: 'light', showVolume: true, showTvl: false, logScale: true });

  // And back: the dark theme and linear scale, again after a reload.
  await dark.click();
  await log.click();
  await page.reload();
  await waitForCandles(page);
  await expectPressed(dark, true);
  await expectPressed(log, false);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});
