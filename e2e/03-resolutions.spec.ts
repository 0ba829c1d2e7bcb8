import { STEP_SECONDS, close, exportVisibleBars, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory } from './support/market';

const RESOLUTIONS = [
  { res: '1', name: '1 minute' },
  { res: '5', name: '5 minutes' },
  { res: '15', name: '15 minutes' },
  { res: '60', name: '1 hour' },
  { res: '1D', name: '1 day' },
] as const;

test('every resolution renders bars at its spacing', async ({ page, request }) => {
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=60`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '60' });
  const buttons = page.getByRole('group', { name: 'Resolution' });

  for (const { res, name } of RESOLUTIONS) {
    await test.step(`${name} bars`, async () => {
      const step = STEP_SECONDS[res] ?? 0;
      await buttons.getByRole('button', { name, exact: true }).click();
      await expect(buttons.getByRole('button', { name, exact: true })).toHaveAttribute('aria-pressed', 'true');
      await expect(buttons.locator('[aria-pressed="true"]')).toHaveCount(1);
      await expect(page).toHaveURL(new RegExp(`[?&]res=${res}(&|$)`));
      const attrs = await waitForCandles(page, { symbol: pair.symbol, resolution: res });

      // The chart's bars (CSV of the bars in view): UTC-aligned buckets of this size, in order, never
      // closer than one step; gaps only where nothing traded.
      const bars = await exportVisibleBars(page);
      expect(bars.length, 'bars in view').toBeGreaterThan(res === '1D' ? 1 : 20);
      const times = bars.map((b) => b.time);
      for (const t of times) expect(t % step, `bar ${t} starts a ${step}s bucket`).toBe(0);
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
      for (const gap of gaps) {
        expect(gap).toBeGreaterThanOrEqual(step);
        expect(gap % step).toBe(0);
      }
      expect(Math.min(...gaps), 'neighbouring bars are one step apart somewhere').toBe(step);
      expect(attrs.lastTime % step).toBe(0);
      expect(attrs.firstTime % step).toBe(0);

      // ... and they are the server's bars of that resolution over the same span, with the same prices.
      const first = times[0] ?? 0;
      const last = times.at(-1) ?? 0;
      const server = await gatewayHistory(request, pair.ticker, res, first, last + step);
      // A live trade may have moved the newest bar in between: compare the bars before it exactly.
      const settled = bars.filter((b) => b.time < last);
      expect(server.map((b) => b.time).filter((t) => t < last)).toEqual(settled.map((b) => b.time));
      for (const [i, bar] of settled.entries()) {
        const other = server[i];
        expect(
          other &&
            close(other.open, bar.open) &&
            close(other.close, bar.close) &&
            close(other.high, bar.high) &&
            close(other.low, bar.low),
          `bar ${bar.time} OHLC`,
        ).toBe(true);
      }
    });
  }
});
