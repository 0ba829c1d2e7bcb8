import { defineConfig, devices } from '@playwright/test';

/** Small seeded market for browser tests: fast to backfill, still realistic. */
const MARKET = '--pools 400 --days 3 --seed 7';
const PROD_PORT = 4173;
const DEV_PORT = 5174;

const chromium = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    // Debian's Chromium: Playwright cannot download its own browser here.
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  },
};

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'prod', use: { ...chromium, baseURL: `http://127.0.0.1:${PROD_PORT}` }, testIgnore: /dev-smoke/ },
    { name: 'dev', use: { ...chromium, baseURL: `http://127.0.0.1:${DEV_PORT}` }, testMatch: /dev-smoke/ },
  ],
  webServer: [
    {
      // The production build served by npm run serve (npm test builds first).
      command: `rm -rf .data-e2e && node --import tsx src/gateway/cli/serve.ts --port ${PROD_PORT} --data-dir .data-e2e ${MARKET} --test-controls`,
      url: `http://127.0.0.1:${PROD_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `rm -rf .data-e2e-dev && node_modules/.bin/vite --configLoader runner --port ${DEV_PORT} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${DEV_PORT}/healthz`,
      env: { DATA_DIR: '.data-e2e-dev', POOLS: '300', DAYS: '2', SEED: '7' },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
