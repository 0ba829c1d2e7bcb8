import { expect, type Locator, type Page } from '@playwright/test';

/** Seconds per bar of the app's resolutions (the `res` URL parameter / `data-resolution`). */
export const STEP_SECONDS: Readonly<Record<string, number>> = {
  '1': 60,
  '5': 300,
  '15': 900,
  '60': 3600,
  '1D': 86_400,
};

/** The /history spelling of the app's resolutions. */
export const WIRE_RESOLUTION: Readonly<Record<string, string>> = {
  '1': '1min',
  '5': '5min',
  '15': '15min',
  '60': '60min',
  '1D': '1d',
};

/** What the chart container says about itself (data-* attributes written by the chart, features/chart/lib/chart.ts). */
export interface ChartAttributes {
  readonly status: string;
  readonly bars: number;
  readonly firstTime: number;
  readonly lastTime: number;
  readonly lastClose: number;
  readonly visibleFrom: number;
  readonly visibleTo: number;
  readonly symbol: string;
  readonly resolution: string;
  readonly live: boolean;
}

export function chart(page: Page): Locator {
  return page.getByTestId('price-chart');
}

/** Reads the chart's data attributes in one round trip. */
export async function chartAttributes(page: Page): Promise<ChartAttributes> {
  return chart(page).evaluate((el: HTMLElement) => {
    const d = el.dataset;
    const num = (value: string | undefined) => (value === undefined || value === '' ? Number.NaN : Number(value));
    return {
      status: d.status ?? '',
      bars: num(d.bars),
      firstTime: num(d.firstTime),
      lastTime: num(d.lastTime),
      lastClose: num(d.lastClose),
      visibleFrom: num(d.visibleFrom),
      visibleTo: num(d.visibleTo),
      symbol: d.symbol ?? '',
      resolution: d.resolution ?? '',
      live: d.live === 'true',
    };
  });
}

/**
 * Waits until the chart has drawn candles (status `ready`, at least one bar), optionally of a given
 * symbol and resolution, and returns its attributes.
 */
export async function waitForCandles(
  page: Page,
  expected: { symbol?: string | RegExp; resolution?: string; timeout?: number } = {},
): Promise<ChartAttributes> {
  const el = chart(page);
  const timeout = expected.timeout ?? 15_000;
  if (expected.symbol !== undefined) await expect(el).toHaveAttribute('data-symbol', expected.symbol, { timeout });
  if (expected.resolution !== undefined)
    await expect(el).toHaveAttribute('data-resolution', expected.resolution, { timeout });
  await expect(el).toHaveAttribute('data-status', 'ready', { timeout });
  await expect(el).toHaveAttribute('data-bars', /^[1-9]\d*$/, { timeout });
  return chartAttributes(page);
}

/** Waits until the connection status says `state` (live, reconnecting, ...). */
export async function expectConnection(page: Page, state: string, timeout = 15_000): Promise<void> {
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', state, { timeout });
}

/** One bar, as /gw/v1/history and the app's CSV export both give it: `time` in Unix seconds. */
export interface Bar {
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly tvl: number;
}

export function parseCsv(text: string): Bar[] {
  const lines = text.trim().split(/\r?\n/);
  const header = lines.shift();
  expect(header).toBe('time_utc,unix_time,open,high,low,close,volume,tvl');
  return lines.map((line) => {
    const [, unix, open, high, low, close, volume, tvl] = line.split(',');
    return {
      time: Number(unix),
      open: Number(open),
      high: Number(high),
      low: Number(low),
      close: Number(close),
      volume: Number(volume),
      tvl: Number(tvl),
    };
  });
}

/**
 * The bars the chart has in view, read the way a user gets them: the CSV export (the chart's own
 * bars, as drawn, from its data; not a second request to the server).
 */
export async function exportVisibleBars(page: Page): Promise<Bar[]> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return parseCsv(Buffer.concat(chunks).toString('utf8'));
}

/** The header's price (`data-value`, the raw number), NaN while absent. */
export async function headerPrice(page: Page): Promise<number> {
  const value = await page
    .getByTestId('header-price')
    .getAttribute('data-value', { timeout: 1_000 })
    .catch(() => null);
  return value === null ? Number.NaN : Number(value);
}

/** Relative closeness for prices computed on two sides (float sums may differ in the last digits). */
export function close(a: number, b: number, relative = 1e-9): boolean {
  return a === b || Math.abs(a - b) <= relative * Math.max(Math.abs(a), Math.abs(b));
}
