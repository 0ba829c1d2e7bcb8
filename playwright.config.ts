import { defineConfig, devices } from '@playwright/test';
import { E2E_API_KEY, E2E_API_KEYS, E2E_DATA_DIR, PREVIEW_DATA_DIR } from './e2e/support/keys';

/**
 * Browser tests (docs/e2e.md): one spec per user flow in e2e/, on Debian's Chromium, against the
 * production build served by `npm run serve`'s CLI with a small seeded market and the test-only market
 * control (`--test-controls`), plus one smoke run against `vite` (npm run dev) and one against `vite
 * preview` (npm run preview), and the main flows in remote mode (a gateway in front of a second server
 * process, `remote-mode.spec.ts`). Flows that stop or restart the server start their own
 * (e2e/support/server-process.ts).
 */

/** Small seeded market for browser tests: fast to backfill, still realistic. */
const MARKET = '--pools 400 --days 3 --seed 7';
/** E2E_PORT_OFFSET shifts the three servers' fixed ports, so two checkouts can run their flows side by side. */
const PORT_OFFSET = Number(process.env.E2E_PORT_OFFSET ?? 0);
const PROD_PORT = 4173 + PORT_OFFSET;
const DEV_PORT = 5174 + PORT_OFFSET;
const PREVIEW_PORT = 4175 + PORT_OFFSET;
const REMOTE_PORT = 4176 + PORT_OFFSET;

/**
 * The user flows that run again in remote mode (project `remote-flows`): the app served by a server
 * without a market whose gateway fronts the `prod` server over HTTP (UPSTREAM_URL), as it fronts the
 * hosted API. Flows that start servers of their own (live latency, reconnect, security, errors) or
 * measure the embedded page are left to `prod` and `remote`.
 */
const REMOTE_FLOWS =
  /\/(01-first-visit|02-group-search-select|03-resolutions|04-toggles|07-deep-link|08-history|11-accessibility-phone|12-trades-tape|13-orientation|14-indicators|15-overview|16-usd|20-drawings|21-spread|22-candle-trades|23-alerts|24-layouts)\.spec\.ts$/;

const chromium = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    // Debian's Chromium: Playwright cannot download its own browser here.
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
};

export default defineConfig({
  testDir: 'e2e',
  // Prints the Chromium the flows run on.
  globalSetup: './e2e/support/browser-version.ts',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  // A hang must not hold CI: each flow has its own timeout (above), and the whole suite this bound. The suite
  // takes about 7 minutes on two idle cores and twice that with other work beside it (a 14-minute bound cut
  // a loaded run short with 28 flows left), so the bound is a hang's, not a slow machine's.
  globalTimeout: 40 * 60_000,
  expect: { timeout: 5_000 },
  // test-results/ (traces, screenshots and server logs of failures, kept files such as the first
  // visit's screenshot) and playwright-report/ are the artifacts to keep.
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'prod',
      use: { ...chromium, baseURL: `http://127.0.0.1:${PROD_PORT}` },
      testIgnore: /(dev|preview)-smoke|remote-mode/,
    },
    // The app through a gateway in front of another server process (UPSTREAM_URL): it starts its own two.
    { name: 'remote', use: chromium, testMatch: /remote-mode/ },
    { name: 'remote-flows', use: { ...chromium, baseURL: `http://127.0.0.1:${REMOTE_PORT}` }, testMatch: REMOTE_FLOWS },
    { name: 'dev', use: { ...chromium, baseURL: `http://127.0.0.1:${DEV_PORT}` }, testMatch: /dev-smoke/ },
    { name: 'preview', use: { ...chromium, baseURL: `http://127.0.0.1:${PREVIEW_PORT}` }, testMatch: /preview-smoke/ },
  ],
  webServer: [
    {
      // The production build served by npm run serve (npm test builds first).
      command: `rm -rf ${E2E_DATA_DIR} && node --enable-source-maps dist-server/serve.js --port ${PROD_PORT} --data-dir ${E2E_DATA_DIR} ${MARKET} --test-controls`,
      url: `http://127.0.0.1:${PROD_PORT}/healthz`,
      // A real key the browser must never see (flow 09-security). Test controls are refused under
      // NODE_ENV=production: this server is a test server whatever the environment says.
      // The flows load a hundred pages a minute from one address, which is not a user: the per-address budget
      // of whole-market lists (GATEWAY_LIST_REQUESTS_PER_MINUTE_PER_ADDRESS, 30; GATEWAY_LIST_BYTES_PER_MINUTE_PER_ADDRESS,
      // 256 MiB) is off here, tested in tests/gateway.
      env: {
        TOKEN_API_KEYS: E2E_API_KEYS,
        NODE_ENV: 'test',
        GATEWAY_LIST_REQUESTS_PER_MINUTE_PER_ADDRESS: '0',
        GATEWAY_LIST_BYTES_PER_MINUTE_PER_ADDRESS: '0',
      },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // Remote mode (project `remote-flows`): no market here; the gateway fronts the prod server above
      // with its key, and passes the test control to it.
      command: `rm -rf .data-e2e-remote && node --enable-source-maps dist-server/serve.js --port ${REMOTE_PORT} --data-dir .data-e2e-remote --test-controls`,
      url: `http://127.0.0.1:${REMOTE_PORT}/gw/v1/info`,
      env: {
        UPSTREAM_URL: `http://127.0.0.1:${PROD_PORT}`,
        UPSTREAM_API_KEY: E2E_API_KEY,
        NODE_ENV: 'test',
        GATEWAY_LIST_REQUESTS_PER_MINUTE_PER_ADDRESS: '0',
        GATEWAY_LIST_BYTES_PER_MINUTE_PER_ADDRESS: '0',
      },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // npm run dev: Vite with the service and gateway mounted (project `dev`, one smoke test).
      command: `rm -rf .data-e2e-dev && node_modules/.bin/vite --configLoader runner --port ${DEV_PORT} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${DEV_PORT}/healthz`,
      env: { DATA_DIR: '.data-e2e-dev', POOLS: '300', DAYS: '2', SEED: '7' },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // npm run preview: the last build in Vite's preview server, the same plugin mounting the platform;
      // no key configured, so the first start makes the dev key (project `preview`, one smoke test).
      command: `rm -rf ${PREVIEW_DATA_DIR} && node_modules/.bin/vite preview --configLoader runner --port ${PREVIEW_PORT} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${PREVIEW_PORT}/healthz`,
      env: { DATA_DIR: PREVIEW_DATA_DIR, POOLS: '200', DAYS: '1', SEED: '7', TOKEN_API_KEYS: '' },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
