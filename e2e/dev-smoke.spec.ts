import { expectConnection, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';

// One smoke run against `vite` (npm run dev): the same app, service and gateway mounted in Vite.
test('dev server: the app renders candles through the gateway and goes live', async ({ page, request }) => {
  const info = await request.get('/gw/v1/info');
  expect(info.ok()).toBe(true);
  expect(await info.json()).toMatchObject({ source: 'embedded', simulated: true });

  await page.goto('/');
  await expect(page).toHaveTitle(/Cardano DEX Charts/);
  await waitForCandles(page, { symbol: /_Aggregate_Pool\d+$/, timeout: 30_000 });
  await expect(page.getByTestId('token-header')).toBeVisible();
  await expectConnection(page, 'live', 30_000);
});
