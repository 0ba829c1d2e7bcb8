import { waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { deepestPool, groupSymbols } from './support/market';

const GROUP = 'MinswapV2';
const TARGET = 'ADA.INDY_MinswapV2_Pool1';
const TYPED = 'ind';

test('group, search, select: a DEX group, part of a ticker, a keyboard pick; chart, URL and header follow', async ({
  page,
  request,
}) => {
  const symbols = await groupSymbols(request, GROUP);
  expect(
    symbols.map((s) => s.symbol),
    `the seeded market has ${TARGET}`,
  ).toContain(TARGET);
  const start = await deepestPool(request, 'Aggregate');

  await page.goto('/');
  await waitForCandles(page, { symbol: start.symbol });

  // 1. The group: the same pair on that DEX when it has one, else the DEX's deepest pair.
  await page.getByRole('combobox', { name: 'Group' }).selectOption(GROUP);
  await expect(page).toHaveURL(new RegExp(`[?&]group=${GROUP}(&|$)`));
  const onGroup = await waitForCandles(page, { symbol: new RegExp(`_${GROUP}_Pool\\d+$`) });
  expect(symbols.map((s) => s.symbol)).toContain(onGroup.symbol);
  await expect(page.getByRole('combobox', { name: 'Group' })).toHaveValue(GROUP);
  await expect(page.getByTestId('token-header')).toContainText(`· ${GROUP}`);
  // DEX pools have history only.
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'idle');

  // 2. Search: part of a ticker; results follow the keystrokes.
  const search = page.getByRole('combobox', { name: 'Search pairs' });
  await search.focus();
  await expect(page.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true');
  await search.pressSequentially(TYPED);
  await expect(search).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('search-status')).toHaveText(/^\d+ match(es)?$/);
  const listbox = page.getByRole('listbox', { name: 'Pairs' });
  await expect(listbox.getByRole('option').first()).toBeVisible();
  const target = listbox.locator(`[data-symbol="${TARGET}"]`);

  // 3. Pick with the keyboard: arrows down to the pair on that DEX, Enter.
  for (let i = 0; i < 60; i++) {
    const active = await search.getAttribute('aria-activedescendant');
    if (active && (await page.locator(`[id="${active}"]`).getAttribute('data-symbol')) === TARGET) break;
    await search.press('ArrowDown');
    await expect(search).not.toHaveAttribute('aria-activedescendant', active ?? '');
  }
  await expect(target).toHaveAttribute('aria-selected', 'true');
  await expect(target).toHaveAccessibleName(/^INDY\/ADA on MinswapV2, TVL /);
  await search.press('Enter');

  // Chart, URL and header follow; the search closes.
  await waitForCandles(page, { symbol: TARGET });
  await expect(search).toHaveAttribute('aria-expanded', 'false');
  await expect(search).toHaveValue('');
  const url = new URL(page.url());
  expect(url.searchParams.get('group')).toBe(GROUP);
  expect(url.searchParams.get('symbol')).toBe(TARGET);
  expect(url.searchParams.get('res')).toBe('60');
  const header = page.getByTestId('token-header');
  await expect(header.getByTestId('header-ticker')).toHaveText('INDY');
  await expect(header).toContainText(`INDY/ADA · ${GROUP}`);
  await expect(header.getByTestId('header-price')).toHaveAttribute('data-value', /^\d/);
  await expect(page).toHaveTitle(`INDY/ADA on ${GROUP} · Cardano DEX Charts`);
  await expect(page.getByRole('slider', { name: `Candlestick chart of INDY/ADA on ${GROUP}` })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Group' })).toHaveValue(GROUP);

  // The pick is remembered: an empty query lists it first, marked recent.
  await search.focus();
  await expect(listbox.getByRole('option').first()).toHaveAccessibleName(/^INDY\/ADA on MinswapV2, .*, recent$/);
  await search.press('Escape');
});
