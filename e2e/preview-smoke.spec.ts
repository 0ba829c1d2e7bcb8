import { expectConnection, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { devKeyOf, PREVIEW_DATA_DIR } from './support/keys';

// One smoke run against `vite preview` (npm run preview): the built app, with the service and gateway
// mounted by the same Vite plugin, and the dev key its first start made (no key was configured).
test('preview server: the built app renders candles and goes live; the API answers with the dev key', async ({
  page,
  request,
}) => {
  const key = devKeyOf(PREVIEW_DATA_DIR);
  expect(key, `a dev key in ${PREVIEW_DATA_DIR}/dev-api-key.txt`).toBeDefined();
  const authorization = { Authorization: `Bearer ${key ?? ''}` };
  const groups = await request.get('/api/v1/groups', { headers: authorization });
  expect(groups.status()).toBe(200);
  expect(await groups.json()).toMatchObject({ s: 'ok' });
  expect((await request.get('/api/v1/groups')).status()).toBe(401);
  const unknown = await request.get('/api/v1/nope', { headers: authorization });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toEqual({ s: 'error', errmsg: 'Unknown endpoint: GET /api/v1/nope' });

  await page.goto('/');
  await expect(page).toHaveTitle(/Cardano DEX Charts/);
  await waitForCandles(page, { symbol: /_Aggregate_Pool\d+$/, timeout: 30_000 });
  await expectConnection(page, 'live', 30_000);
});
