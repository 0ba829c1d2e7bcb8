import { test as base, expect } from '@playwright/test';

/**
 * `test` with an automatic check: no uncaught exception in the page (`pageerror`) during the test.
 * Failed requests (flows that stop the server) are expected and only logged by the browser.
 */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
      await use(errors);
      expect(errors, 'uncaught exceptions in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
