import type { APIRequestContext } from '@playwright/test';
import { violations } from './support/axe';
import { chart, waitForCandles, WIRE_RESOLUTION, STEP_SECONDS } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory } from './support/market';

/**
 * Every candle traced to its trades (issue 27, part 5): a click on a candle lists its trades with the
 * candle checked against them; the explorer is a setting; a tape row under the pointer marks its
 * candle; the keyboard does the same from the chart (Tab, arrows, Enter). Embedded mode (`prod`) and
 * through a remote gateway (`remote-flows`).
 */

interface Trade {
  id: string;
  time: number;
}

/** The server's trades inside the candle of `time` (15 minutes), paged back independently of the app. */
async function tradesInside(request: APIRequestContext, ticker: string, time: number): Promise<Trade[]> {
  const step = STEP_SECONDS['15'] ?? 900;
  const inside: Trade[] = [];
  let before: string | null = `${time + step}.0`;
  while (before) {
    const page_ = (await (await request.get(`/gw/v1/trades?pool=${ticker}&before=${before}&limit=500`)).json()) as {
      trades: Trade[];
      next: string | null;
    };
    inside.push(...page_.trades.filter((t) => t.time >= time));
    before = page_.trades.some((t) => t.time < time) ? null : page_.next;
  }
  return inside;
}

test('candle trades: a click lists a candle’s trades, which agree with it; the explorer setting; a tape row marks its candle', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=15`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '15' });

  const panel = page.getByTestId('candle-trades');
  await test.step('a click on a candle lists its trades, every one of them, and they make that candle', async () => {
    const box = await chart(page).boundingBox();
    if (!box) throw new Error('no chart');
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.4);
    await expect(panel).toHaveAttribute('data-agree', 'true', { timeout: 10_000 });
    const time = Number(await panel.getAttribute('data-time'));
    const inside = await tradesInside(request, pair.ticker, time);
    expect(inside.length).toBeGreaterThan(0);
    await expect(panel).toHaveAttribute('data-count', String(inside.length));
    await expect(panel.getByTestId('candle-trade')).toHaveCount(inside.length);
    const [bar] = await gatewayHistory(request, pair.symbol, '15', time, time + 1);
    expect(bar?.time, `${WIRE_RESOLUTION['15']} bar`).toBe(time);
    await expect(panel.getByTestId('candle-check-row')).toHaveCount(5);
    // The simulator's trades have no transaction: the panel says so instead of linking.
    await expect(panel.getByTestId('candle-trades-simulated')).toBeVisible();
  });

  await test.step('the explorer is a setting, kept across reloads', async () => {
    const select = panel.getByRole('combobox', { name: 'Explorer' });
    await expect(select).toHaveValue('cexplorer');
    await select.selectOption('cardanoscan');
    await page.reload();
    await waitForCandles(page, { symbol: pair.symbol });
    const box = await chart(page).boundingBox();
    if (!box) throw new Error('no chart');
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.4);
    await expect(panel.getByRole('combobox', { name: 'Explorer' })).toHaveValue('cardanoscan');
  });

  await test.step('a tape row under the pointer marks its candle on the chart', async () => {
    const row = page.getByTestId('trades-tape').getByTestId('tape-row').nth(2);
    await row.hover();
    const trade = (
      (await (await request.get(`/gw/v1/trades?pool=${pair.ticker}&limit=3`)).json()) as { trades: Trade[] }
    ).trades[2];
    const step = STEP_SECONDS['15'] ?? 900;
    await expect(chart(page)).toHaveAttribute('data-marked', String((trade?.time ?? 0) - ((trade?.time ?? 0) % step)));
    await page.mouse.move(0, 0);
    await expect(chart(page)).toHaveAttribute('data-marked', '');
  });

  await test.step('no accessibility violation with the list open at phone width; Close closes it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(panel).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await violations(page), 'phone width').toEqual([]);
    if (process.env.DOC_SCREENSHOTS) {
      await page.setViewportSize({ width: 1100, height: 900 });
      await panel.screenshot({ path: 'docs/img/candle-trades.png' });
    }
    await panel.getByRole('button', { name: 'Close the candle’s trades' }).click();
    await expect(panel).toHaveCount(0);
  });
});

test('candle trades from the keyboard: Tab reaches the chart, arrows move its cursor, Enter lists the trades of the candle the legend shows; Close and Escape give the focus back', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}&res=15`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '15' });
  const place = chart(page);
  const panel = page.getByTestId('candle-trades');

  await test.step('Tab reaches the chart, a slider named with its keys', async () => {
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await place.evaluate((el) => el === document.activeElement);
    }
    expect(reached, 'the chart in the tab order').toBe(true);
    await expect(page.getByRole('slider', { name: /^Candlestick chart of .+ on Aggregate$/ })).toBeFocused();
    await expect(place).toHaveAccessibleDescription(/Arrow keys move between candles.*Enter lists the candle’s trades/);
    await expect(place).toHaveAttribute('aria-valuetext', 'No candle chosen');
    // Its keyboard cursor, a chunk loaded with the chart's first focus, is there (it writes data-cursor).
    await expect(place).toHaveAttribute('data-cursor', '');
  });

  let time = 0;
  await test.step('arrows move the cursor from the newest candle; the legend and the value read out show that candle', async () => {
    await page.keyboard.press('ArrowLeft');
    const newest = Number(await place.getAttribute('data-cursor'));
    expect(String(newest)).toBe(await place.getAttribute('data-last-time'));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    time = Number(await place.getAttribute('data-cursor'));
    expect(time).toBeLessThan(newest);
    const [bar] = await gatewayHistory(request, pair.symbol, '15', time, time + 1);
    expect(bar?.time).toBe(time);
    const close = bar?.close ?? Number.NaN;
    const legendText = await page.getByTestId('legend-close').innerText();
    const legend = Number(legendText.replace(/,/g, ''));
    expect(Math.abs(legend - close) / close, `legend ${legend}, candle ${close}`).toBeLessThan(1e-3);
    const spoken = (await place.getAttribute('aria-valuetext')) ?? '';
    expect(spoken).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: open .+, high .+, low .+, close /);
    expect(spoken.endsWith(`, close ${legendText}`), spoken).toBe(true);
  });

  await test.step('Enter lists that candle’s trades, every one, which agree with it; the list takes the focus', async () => {
    await page.keyboard.press('Enter');
    await expect(panel).toHaveAttribute('data-time', String(time));
    await expect(panel).toHaveAttribute('data-agree', 'true', { timeout: 10_000 });
    const inside = await tradesInside(request, pair.ticker, time);
    expect(inside.length).toBeGreaterThan(0);
    await expect(panel).toHaveAttribute('data-count', String(inside.length));
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    expect(await violations(page), 'the list open, the chart left').toEqual([]);
  });

  await test.step('Escape closes it and gives the focus back to the chart, its cursor on the same candle', async () => {
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    await expect(place).toBeFocused();
    await expect(place).toHaveAttribute('data-cursor', String(time));
  });

  await test.step('Space opens the next candle; Tab to Close and Enter give the focus back too', async () => {
    await page.keyboard.press('ArrowRight');
    const next = Number(await place.getAttribute('data-cursor'));
    expect(next).toBeGreaterThan(time);
    await page.keyboard.press('Space');
    await expect(panel).toHaveAttribute('data-time', String(next));
    await expect(panel.getByRole('heading', { level: 2 })).toBeFocused();
    const close = panel.getByRole('button', { name: 'Close the candle’s trades' });
    for (let i = 0; i < 5 && !(await close.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await expect(close).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(panel).toHaveCount(0);
    await expect(place).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(place).toHaveAttribute('data-cursor', '');
  });
});
