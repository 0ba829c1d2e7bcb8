import {
  chartAttributes,
  close,
  expectConnection,
  headerPrice,
  waitForCandles,
  WIRE_RESOLUTION,
} from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, poolStats, tradeUntilPoolMoves } from './support/market';
import { usdPerAdaAt, usdPerAdaNow } from './support/usd';
import type { APIRequestContext, Page } from '@playwright/test';

/**
 * USD prices: the currency switch turns the chart, legend, header, tape and export to USD. ADA/USD is
 * the market's own (the stablecoins' Aggregate pairs against ADA, TVL-weighted); a bar in USD is the
 * bar times ADA/USD of its bucket. Kept in the URL and the preferences. The expected values are
 * computed here from the gateway's answers.
 */

/** The pair's ADA close of the bar at `time`. */
async function adaClose(request: APIRequestContext, pool: string, time: number, resolution = '60'): Promise<number> {
  const response = await request.get(
    `/gw/v1/history?symbol=${pool}&resolution=${WIRE_RESOLUTION[resolution]}&to=${time + 1}&countback=1`,
  );
  const body = (await response.json()) as { t: number[]; c: number[] };
  expect(body.t[0]).toBe(time);
  return body.c[0] ?? Number.NaN;
}

/** The chart's newest bar in USD equals its ADA close times ADA/USD of its bucket (retried: the market trades on its own). */
async function expectUsdChart(page: Page, request: APIRequestContext, pool: string): Promise<void> {
  await expect(async () => {
    const chart = await chartAttributes(page);
    expect(chart.status).toBe('ready');
    const expected = (await adaClose(request, pool, chart.lastTime)) * (await usdPerAdaAt(request, chart.lastTime));
    expect(close(chart.lastClose, expected, 1e-9), `chart close ${chart.lastClose} vs ${expected}`).toBe(true);
  }).toPass({ timeout: 10_000 });
}

test('USD: the switch turns chart, legend, header, tape and export to USD at the market’s own ADA/USD, kept in the URL and preferences', async ({
  page,
  request,
}) => {
  const pair = await deepestPool(request, 'Aggregate');
  const [, quote] = pair.symbol.replace(/_.*$/, '').split('.');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=60`);
  await waitForCandles(page, { symbol: pair.symbol });
  const switcher = page.getByRole('group', { name: 'Currency' });
  await expect(switcher.getByRole('button', { name: 'ADA' })).toHaveAttribute('aria-pressed', 'true');
  const usd = switcher.getByRole('button', { name: 'USD' });
  await expect(usd).toBeEnabled();

  await usd.click();
  await expect(page).toHaveURL(/[?&]cur=usd(&|$)/);
  await expect(usd).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-currency', 'usd');
  await waitForCandles(page, { symbol: pair.symbol });
  await expectUsdChart(page, request, pair.ticker);
  await expect(page.getByRole('slider', { name: `Candlestick chart of ${quote}/USD on Aggregate` })).toBeVisible();
  await expect(page.getByTestId('invert-toggle')).toBeDisabled();

  // The header at ADA/USD now; the legend shows the chart's close.
  const header = page.getByTestId('token-header');
  await expect(header.getByTestId('header-pair')).toHaveText(`${quote}/USD`);
  await expect(header.getByTestId('header-price')).toContainText('USD');
  await expect(async () => {
    const stats = await poolStats(request, pair.ticker);
    expect(close(await headerPrice(page), stats.current_price * (await usdPerAdaNow(request)), 1e-9)).toBe(true);
  }).toPass({ timeout: 10_000 });
  await expect(header.getByText('TVL (USD)')).toBeVisible();

  // The tape: the newest trade at ADA/USD of its hour.
  const tape = page.getByTestId('trades-tape');
  await expect(tape.getByText('Price (USD)')).toBeVisible();
  await expect(async () => {
    const trades = (await (await request.get(`/gw/v1/trades?pool=${pair.ticker}&limit=1`)).json()) as {
      trades: { time: number; price: number; base_amount: number }[];
    };
    const newest = trades.trades[0];
    expect(newest).toBeDefined();
    const rate = await usdPerAdaAt(request, (newest?.time ?? 0) - ((newest?.time ?? 0) % 3600));
    const row = tape.getByTestId('tape-row').first();
    expect(
      close(Number(await row.getByTestId('tape-price').getAttribute('data-value')), (newest?.price ?? 0) * rate, 1e-9),
    ).toBe(true);
    expect(
      close(
        Number(await row.getByTestId('tape-value').getAttribute('data-value')),
        (newest?.base_amount ?? 0) * rate,
        1e-9,
      ),
    ).toBe(true);
  }).toPass({ timeout: 10_000 });

  // The CSV says USD in its header, and each bar is the ADA bar times ADA/USD of its hour.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
  expect(download.suggestedFilename()).toMatch(
    new RegExp(`^${pair.symbol.replace(/\./g, '\\.')}-usd-60-\\d{8}T\\d{4}Z\\.csv$`),
  );
  const text = await (
    await download.createReadStream()
  )
    .toArray()
    .then((chunks) =>
      Buffer.concat(chunks.map((c: Buffer | string) => (Buffer.isBuffer(c) ? c : Buffer.from(c)))).toString('utf8'),
    );
  const [head, ...lines] = text.trim().split(/\r?\n/);
  expect(head).toBe('time_utc,unix_time,open_usd,high_usd,low_usd,close_usd,volume_usd,tvl_usd');
  for (const line of [lines[0], lines[Math.floor(lines.length / 2)]]) {
    const [, unix, , , , closeUsd] = (line ?? '').split(',');
    const time = Number(unix);
    expect(
      close(Number(closeUsd), (await adaClose(request, pair.ticker, time)) * (await usdPerAdaAt(request, time)), 1e-9),
      `bar ${time}`,
    ).toBe(true);
  }

  // Live: a trade moves the last candle and the header, still in USD.
  await expectConnection(page, 'live');
  await tradeUntilPoolMoves(request, pair.ticker);
  await expectUsdChart(page, request, pair.ticker);
  await expect(async () => {
    const stats = await poolStats(request, pair.ticker);
    expect(close(await headerPrice(page), stats.current_price * (await usdPerAdaNow(request)), 1e-9)).toBe(true);
  }).toPass({ timeout: 10_000 });

  // Kept across a reload; a link without `cur` opens in USD too (the preference), until ADA is chosen.
  await page.reload();
  await waitForCandles(page, { symbol: pair.symbol });
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-currency', 'usd');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=60`);
  await expect(page).toHaveURL(/[?&]cur=usd(&|$)/);
  await waitForCandles(page, { symbol: pair.symbol });
  await switcher.getByRole('button', { name: 'ADA' }).click();
  await expect(page).not.toHaveURL(/cur=/);
  await expect(page.getByTestId('price-chart')).toHaveAttribute('data-currency', 'ada');
  await expect(async () => {
    const chart = await chartAttributes(page);
    expect(close(chart.lastClose, await adaClose(request, pair.ticker, chart.lastTime))).toBe(true);
  }).toPass({ timeout: 10_000 });
  await expect(page.getByTestId('invert-toggle')).toBeEnabled();
});
