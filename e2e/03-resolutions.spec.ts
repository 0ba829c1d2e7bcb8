import { STEP_SECONDS, close, exportVisibleBars, waitForCandles, type Bar } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory } from './support/market';

/** Every button; the resolutions /history does not serve with the finer one the datafeed folds them from. */
const RESOLUTIONS = [
  { res: '1', name: '1 minute' },
  { res: '5', name: '5 minutes' },
  { res: '15', name: '15 minutes' },
  { res: '30', name: '30 minutes', fold: '15' },
  { res: '60', name: '1 hour' },
  { res: '240', name: '4 hours', fold: '60' },
  { res: '1D', name: '1 day' },
  { res: '1W', name: '1 week', fold: '1D' },
] as const;

/** Weeks start on Monday 00:00 UTC (the Unix epoch was a Thursday). */
const FOLD_OF: Readonly<Record<string, string>> = Object.fromEntries(
  RESOLUTIONS.flatMap((r) => ('fold' in r ? [[r.res, r.fold]] : [])),
);

const offsetOf = (res: string) => (res === '1W' ? 4 * 86_400 : 0);

/** Fine bars folded by the bar rule into buckets of `step` seconds (as the datafeed must, written here from the rule). */
function fold(fine: readonly Bar[], step: number, offset: number): Bar[] {
  const out: Bar[] = [];
  for (const bar of fine) {
    const time = Math.floor((bar.time - offset) / step) * step + offset;
    const last = out.at(-1);
    if (last && last.time === time)
      out[out.length - 1] = {
        ...last,
        high: Math.max(last.high, bar.high),
        low: Math.min(last.low, bar.low),
        close: bar.close,
        volume: last.volume + bar.volume,
        tvl: bar.tvl,
      };
    else out.push({ ...bar, time });
  }
  return out;
}

test('every resolution renders bars at its spacing', async ({ page, request }) => {
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=60`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '60' });
  const buttons = page.getByRole('group', { name: 'Resolution' });

  for (const { res, name } of RESOLUTIONS) {
    await test.step(`${name} bars`, async () => {
      const step = STEP_SECONDS[res] ?? 0;
      const offset = offsetOf(res);
      await buttons.getByRole('button', { name, exact: true }).click();
      await expect(buttons.getByRole('button', { name, exact: true })).toHaveAttribute('aria-pressed', 'true');
      await expect(buttons.locator('[aria-pressed="true"]')).toHaveCount(1);
      await expect(page).toHaveURL(new RegExp(`[?&]res=${res}(&|$)`));
      const attrs = await waitForCandles(page, { symbol: pair.symbol, resolution: res });

      // The chart's bars (CSV of the bars in view): UTC-aligned buckets of this size, in order, never
      // closer than one step; gaps only where nothing traded.
      const bars = await exportVisibleBars(page);
      // The market has a few days: a week is a bar or two.
      expect(bars.length, 'bars in view').toBeGreaterThan(res === '1W' ? 0 : res === '1D' ? 1 : 12);
      const times = bars.map((b) => b.time);
      for (const t of times) expect((t - offset) % step, `bar ${t} starts a ${step}s bucket`).toBe(0);
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
      for (const gap of gaps) {
        expect(gap).toBeGreaterThanOrEqual(step);
        expect(gap % step).toBe(0);
      }
      if (res !== '1W') expect(Math.min(...gaps), 'neighbouring bars are one step apart somewhere').toBe(step);
      expect((attrs.lastTime - offset) % step).toBe(0);
      expect((attrs.firstTime - offset) % step).toBe(0);

      // ... and they are the server's bars of that resolution over the same span (folded from the finer
      // ones the datafeed builds them from), with the same prices.
      const first = times[0] ?? 0;
      const last = times.at(-1) ?? 0;
      const fine = FOLD_OF[res];
      const server =
        fine !== undefined
          ? fold(await gatewayHistory(request, pair.ticker, fine, first, last + step), step, offset)
          : await gatewayHistory(request, pair.ticker, res, first, last + step);
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
