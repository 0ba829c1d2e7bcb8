import { expect, test } from '@playwright/test';

test('the dev server serves the page and the gateway', async ({ page, request }) => {
  await page.goto('/');
  await expect(page).toHaveTitle(/Cardano DEX Charts/);
  const info = await request.get('/gw/v1/info');
  expect(info.ok()).toBe(true);
  expect(await info.json()).toMatchObject({ source: 'embedded', simulated: true });
});
