import { expect, test } from '@playwright/test';

test('the page loads', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/');
  await expect(page).toHaveTitle(/Cardano DEX Charts/);
  await expect(page.locator('#root')).not.toBeEmpty();
  expect(errors).toEqual([]);
});
