import { violations } from './support/axe';
import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool } from './support/market';

/**
 * The spread (issue 27, part 3): the pair on every DEX, opened from the chart page in one click: a
 * line per pool, in percent from the Aggregate or in prices, a live table of the pools, and the pair's
 * spread over the pools with the chosen TVL; the overview's Spread column, sortable. Embedded mode
 * (`prod`) and through a remote gateway (`remote-flows`).
 */

interface Spreads {
  base: string[];
  quote: string[];
  aggregate: string[];
  spread_percent: (number | null)[];
}

test('spread: the pair on every DEX from the chart page, its table and spread, the TVL setting, the overview’s column', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const pair = await deepestPool(request, 'Aggregate');
  await page.goto(`/?group=Aggregate&symbol=${pair.symbol}`);
  await waitForCandles(page, { symbol: pair.symbol });

  const view = page.getByTestId('spread-view');
  await test.step('one click opens it: a line per pool, a row per DEX pool, the spread as the server computes it', async () => {
    await page.getByRole('button', { name: 'The pair on every DEX, and its spread' }).click();
    await expect(page.getByTestId('toggle-spread')).toHaveAttribute('aria-pressed', 'true');
    const pools = (await (await request.get(`/gw/v1/pair-pools?pool=${pair.ticker}`)).json()) as { pools: unknown[] };
    await expect(view.getByTestId('spread-row')).toHaveCount(pools.pools.length);
    // The Aggregate and each DEX pool of the pair, each a line.
    await expect(view.getByTestId('spread-chart')).toHaveAttribute('data-series', String(pools.pools.length + 1));
    await expect(view.getByTestId('spread-chart')).toHaveAttribute('data-mode', 'percent');
    const spreads = (await (await request.get('/gw/v1/spreads')).json()) as Spreads;
    const expected = spreads.spread_percent[spreads.aggregate.indexOf(pair.ticker)];
    expect(expected).not.toBeNull();
    // The table refreshes live: the server's spread of a moment later is within a trade's move.
    await expect
      .poll(async () => Math.abs(Number(await view.getAttribute('data-spread')) - (expected ?? NaN)))
      .toBeLessThan(0.5);
    await expect(view.getByTestId('spread-value')).toContainText('spread');
  });

  await test.step('prices instead of percent; a TVL no pool has leaves no spread, and the setting is kept', async () => {
    await view.getByTestId('spread-mode-price').click();
    await expect(view.getByTestId('spread-chart')).toHaveAttribute('data-mode', 'price');
    const input = view.getByRole('spinbutton', { name: 'Minimum TVL (ADA)' });
    await input.fill('1000000000000');
    await expect(view).toHaveAttribute('data-spread', '');
    await expect(view.getByTestId('spread-row').first()).toHaveAttribute('data-counts', 'false');
    await page.reload();
    await waitForCandles(page, { symbol: pair.symbol });
    await page.getByTestId('toggle-spread').click();
    await expect(page.getByRole('spinbutton', { name: 'Minimum TVL (ADA)' })).toHaveValue('1000000000000');
    await page.getByRole('spinbutton', { name: 'Minimum TVL (ADA)' }).fill('10000');
    await expect(view).not.toHaveAttribute('data-spread', '');
  });

  await test.step('no accessibility violation with the view open, in both themes', async () => {
    expect(await violations(page), 'dark theme').toEqual([]);
    await page.getByRole('button', { name: 'Light' }).click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    expect(await violations(page), 'light theme').toEqual([]);
    if (process.env.DOC_SCREENSHOTS) await view.screenshot({ path: 'docs/img/spread.png' });
  });

  await test.step('the overview has each pair’s spread, sortable', async () => {
    await page.getByRole('link', { name: 'Markets' }).click();
    const overview = page.getByTestId('market-overview');
    await expect(overview).toHaveAttribute('data-status', 'ready', { timeout: 15_000 });
    const header = overview.getByRole('columnheader', { name: /Spread/ });
    await header.getByRole('button').click();
    await expect(overview).toHaveAttribute('data-sort', 'spread');
    await expect(header).toHaveAttribute('aria-sort', 'descending');
    const values = async () =>
      (
        await overview
          .getByTestId('overview-row')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sort-value') ?? ''))
      )
        .filter((v) => v !== '')
        .map(Number);
    await expect.poll(async () => (await values()).length).toBeGreaterThan(1);
    const shown = await values();
    for (let i = 1; i < shown.length; i++) expect(shown[i - 1] ?? 0).toBeGreaterThanOrEqual(shown[i] ?? 0);
    // The top row's is the largest spread the server knows.
    const spreads = (await (await request.get('/gw/v1/spreads')).json()) as Spreads;
    const largest = Math.max(...spreads.spread_percent.filter((s): s is number => s !== null));
    expect(Math.abs((shown[0] ?? 0) - largest)).toBeLessThan(1);
  });
});
