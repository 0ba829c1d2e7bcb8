import { violations } from './support/axe';
import { chart, waitForCandles, WIRE_RESOLUTION, STEP_SECONDS } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, gatewayHistory } from './support/market';

/**
 * Every candle traced to its trades (issue 27, part 5): a click on a candle lists its trades with the
 * candle checked against them; the explorer is a setting; a tape row under the pointer marks its
 * candle. Embedded mode (`prod`) and through a remote gateway (`remote-flows`).
 */

interface Trade {
  id: string;
  time: number;
}

test('candle trades: a click lists a candle’s trades, which agree with it; the explorer setting; a tape row marks its candle', async ({ page, request }) => {
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
    const step = STEP_SECONDS['15'] ?? 900;
    // The server's trades inside that candle, paged independently of the app.
    const inside: Trade[] = [];
    let before: string | null = `${time + step}.0`;
    while (before) {
      const page_ = (await (await request.get(`/gw/v1/trades?pool=${pair.ticker}&before=${before}&limit=500`)).json()) as { trades: Trade[]; next: string | null };
      inside.push(...page_.trades.filter((t) => t.time >= time));
      before = page_.trades.some((t) => t.time < time) ? null : page_.next;
    }
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
    const trade = ((await (await request.get(`/gw/v1/trades?pool=${pair.ticker}&limit=3`)).json()) as { trades: Trade[] }).trades[2];
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
