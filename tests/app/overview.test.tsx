import { marketStatusSchema } from '../../src/shared/api/extensions';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { groupStatsSchema, type GroupStats } from '../../src/shared/api/extensions';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { appTestBed, chartReady, urlParams } from './render-app';

/** The market overview (features/overview) on the in-process platform: the real service and gateway. */
const bed = appTestBed({ pools: 300, days: 1 });

async function groupStats(group: string): Promise<GroupStats> {
  return groupStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/group-stats?group=${group}`)).json());
}

const overview = () => screen.getByTestId('market-overview');
const rows = () => within(overview()).getAllByTestId('overview-row');
const symbolsShown = () => rows().map((row) => row.dataset.symbol);

async function ready(): Promise<HTMLElement> {
  const element = await screen.findByTestId('market-overview', {}, { timeout: 10_000 });
  await waitFor(() => expect(element).toHaveAttribute('data-status', 'ready'), { timeout: 10_000 });
  await waitFor(() => expect(rows().length).toBeGreaterThan(0));
  return element;
}

/** The group's symbols in an order, by a value of the answer (unknowns last, ties by TVL in ADA then name). */
function expected(body: GroupStats, value: (i: number) => number, direction: 'asc' | 'desc'): string[] {
  return body.symbol
    .map((symbol, i) => ({ symbol, v: value(i), depth: body.tvl_ada[i] ?? -1 }))
    .sort(
      (a, b) => (direction === 'asc' ? a.v - b.v : b.v - a.v) || b.depth - a.depth || (a.symbol < b.symbol ? -1 : 1),
    )
    .map((r) => r.symbol);
}

describe('market overview', () => {
  it('is reached from the chart page by its link, lists every pair of the group deepest first, virtualised', async () => {
    const user = userEvent.setup();
    const { container } = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(container);
    await user.click(screen.getByRole('link', { name: 'Markets' }));
    expect(urlParams().get('view')).toBe('markets');
    const element = await ready();
    expect(screen.getByRole('link', { name: 'Markets' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Markets on Aggregate (all DEXs)');
    expect(document.title).toBe('Markets on Aggregate · Cardano DEX Charts');
    const body = await groupStats('Aggregate');
    expect(Number(element.dataset.count)).toBe(body.ticker.length);
    expect(screen.getByTestId('overview-count')).toHaveTextContent(`${body.ticker.length} pairs`);
    // Only a screenful (and overscan) of rows is in the page.
    expect(rows().length).toBeLessThan(40);
    expect(rows().length).toBeLessThan(body.ticker.length);
    const byTvl = expected(body, (i) => body.tvl_ada[i] ?? Number.NaN, 'desc');
    expect(symbolsShown()).toEqual(byTvl.slice(0, rows().length));
    // The pair reads as elsewhere in the app (SNEK/ADA, priced in ADA).
    const first = ensureDefined(rows()[0]);
    const i = body.symbol.indexOf(ensureDefined(first.dataset.symbol));
    expect(within(first).getByTestId('overview-price')).toHaveAttribute('data-value', String(body.price[i]));
    expect(within(first).getByTestId('overview-tvl')).toHaveTextContent(/ADA$/);
    expect(screen.getByRole('columnheader', { name: /TVL/ })).toHaveAttribute('aria-sort', 'descending');
  });

  it('sorts by each column, descending then ascending, with aria-sort on the column', async () => {
    const user = userEvent.setup();
    bed.open('/?view=markets&group=Aggregate');
    const element = await ready();
    const body = await groupStats('Aggregate');
    const adaPerBase = (i: number) => (body.base[i] === '' ? 1 : (body.tvl_ada[i] ?? 0) / (body.tvl[i] || 1));
    const values: Record<string, (i: number) => number> = {
      price: (i) => (body.price[i] ?? 0) * adaPerBase(i),
      change: (i) => body.change_24h[i] ?? 0,
      volume: (i) => (body.volume_24h[i] ?? 0) * adaPerBase(i),
      tvl: (i) => body.tvl_ada[i] ?? 0,
    };
    // TVL is the sort already (deepest first): a click turns it around, a second back.
    const tvlHeader = screen.getByRole('columnheader', { name: /TVL/ });
    await user.click(within(tvlHeader).getByRole('button'));
    await waitFor(() => expect(element).toHaveAttribute('data-direction', 'asc'));
    expect(tvlHeader).toHaveAttribute('aria-sort', 'ascending');
    await waitFor(() =>
      expect(symbolsShown()).toEqual(expected(body, ensureDefined(values.tvl), 'asc').slice(0, rows().length)),
    );
    // Another column starts high to low.
    for (const [key, name] of [
      ['price', 'Price'],
      ['change', '24 h change'],
      ['volume', '24 h volume'],
      ['tvl', 'TVL'],
    ] as const) {
      const header = screen.getByRole('columnheader', { name: new RegExp(name) });
      await user.click(within(header).getByRole('button'));
      await waitFor(() => expect(element).toHaveAttribute('data-sort', key));
      expect(element).toHaveAttribute('data-direction', 'desc');
      expect(header).toHaveAttribute('aria-sort', 'descending');
      expect(
        screen.getAllByRole('columnheader').filter((h) => (h.getAttribute('aria-sort') ?? 'none') !== 'none'),
      ).toEqual([header]);
      await waitFor(() =>
        expect(symbolsShown()).toEqual(expected(body, ensureDefined(values[key]), 'desc').slice(0, rows().length)),
      );
      await user.click(within(header).getByRole('button'));
      expect(header).toHaveAttribute('aria-sort', 'ascending');
      await waitFor(() =>
        expect(symbolsShown()).toEqual(expected(body, ensureDefined(values[key]), 'asc').slice(0, rows().length)),
      );
    }
    // Each sort left a measure for the benchmark.
    expect(performance.getEntriesByName('overview:sorted').length).toBeGreaterThanOrEqual(8);
  });

  it('filters by ticker and by token name, and says when nothing matches', async () => {
    const user = userEvent.setup();
    bed.open('/?view=markets&group=Aggregate');
    await ready();
    const filter = screen.getByRole('searchbox', { name: 'Filter pairs' });
    await user.type(filter, 'snek');
    await waitFor(() => expect(symbolsShown().length).toBeGreaterThan(0));
    await waitFor(() => expect(symbolsShown().every((s) => /SNEK/i.test(s ?? ''))).toBe(true));
    expect(symbolsShown()).toContain('ADA.SNEK_Aggregate_Pool1');
    await user.clear(filter);
    // A registry name (the search index's): World Mobile Token is WMT.
    await user.type(filter, 'world mobile');
    await waitFor(() => expect(symbolsShown()).toContain('ADA.WMT_Aggregate_Pool1'));
    await user.clear(filter);
    await user.type(filter, 'zzqqxx');
    expect(await screen.findByTestId('overview-empty')).toHaveTextContent('No pair matches “zzqqxx”');
    expect(screen.getByTestId('overview-count')).toHaveTextContent('0 pairs matching “zzqqxx”');
  });

  it('opens a pair’s chart on click, and Back returns to the list with its sort and filter', async () => {
    const user = userEvent.setup();
    const { container } = bed.open('/?view=markets&group=Aggregate&res=15');
    await ready();
    await user.click(within(screen.getByRole('columnheader', { name: /24 h volume/ })).getByRole('button'));
    await user.type(screen.getByRole('searchbox', { name: 'Filter pairs' }), 'ada');
    await waitFor(() => expect(overview()).toHaveAttribute('data-sort', 'volume'));
    const row = ensureDefined(rows()[1]);
    const symbol = ensureDefined(row.dataset.symbol);
    expect(within(row).getByRole('link')).toHaveAttribute('href', `/?group=Aggregate&symbol=${symbol}&res=15`);
    await user.click(within(row).getAllByRole('cell')[0] as HTMLElement);
    await chartReady(container, symbol);
    expect(urlParams().get('view')).toBeNull();
    expect(screen.queryByTestId('market-overview')).not.toBeInTheDocument();
    window.history.back();
    await ready();
    expect(overview()).toHaveAttribute('data-sort', 'volume');
    expect(screen.getByRole('searchbox', { name: 'Filter pairs' })).toHaveValue('ada');
    expect(urlParams().get('view')).toBe('markets');
  });

  it('opens a row with Enter on its link, and moves between rows with the arrow keys', async () => {
    const user = userEvent.setup();
    const { container } = bed.open('/?view=markets&group=Aggregate');
    await ready();
    const links = () => rows().map((row) => within(row).getByRole('link'));
    ensureDefined(links()[0]).focus();
    await user.keyboard('{ArrowDown}{ArrowDown}');
    await waitFor(() => expect(document.activeElement).toBe(links()[2]));
    const symbol = ensureDefined(rows()[2]?.dataset.symbol);
    await user.keyboard('{Enter}');
    await chartReady(container, symbol);
  });

  it('shows the live price of a row on screen when its pair trades', async () => {
    bed.open('/?view=markets&group=Aggregate');
    await ready();
    await waitFor(() => expect(screen.getByTestId('connection-status')).toHaveAttribute('data-state', 'live'), {
      timeout: 10_000,
    });
    const row = ensureDefined(rows()[0]);
    const pool = ensureDefined(row.dataset.pool);
    const before = within(row).getByTestId('overview-price').dataset.value;
    await forceTradesOn(bed.tp.runtime, [pool], bed.tp.nowSeconds() + 1);
    const stats = tokenStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/current?pool=${pool}`)).json());
    expect(String(stats.current_price)).not.toBe(before);
    await waitFor(
      () =>
        expect(within(ensureDefined(rows()[0])).getByTestId('overview-price')).toHaveAttribute(
          'data-value',
          String(stats.current_price),
        ),
      { timeout: 10_000 },
    );
    expect(within(ensureDefined(rows()[0])).getByTestId('overview-tvl')).toHaveAttribute(
      'data-value',
      String(stats.current_tvl),
    );
  });

  it('shows what a pair traded while off screen once its row comes on screen (before the list is fetched again)', async () => {
    const user = userEvent.setup();
    bed.open('/?view=markets&group=Aggregate');
    await ready();
    await waitFor(() => expect(screen.getByTestId('connection-status')).toHaveAttribute('data-state', 'live'), {
      timeout: 10_000,
    });
    // A busy pair whose row is not on screen, so not followed live.
    const body = await groupStats('Aggregate');
    const onScreen = new Set(rows().map((row) => row.dataset.pool?.toLowerCase()));
    const target = ensureDefined(
      (await aggregatesByActivity(bed.tp.runtime)).find(
        (p) => !onScreen.has(p.poolId.toLowerCase()) && body.ticker.includes(p.poolId),
      ),
    );
    const pool = target.poolId;
    const far = ensureDefined(body.symbol[body.ticker.indexOf(pool)]);
    expect(symbolsShown()).not.toContain(far);
    await forceTradesOn(bed.tp.runtime, [pool], bed.tp.nowSeconds() + 1);
    const stats = tokenStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/current?pool=${pool}`)).json());
    expect(stats.current_price).not.toBe(body.price[body.symbol.indexOf(far)]);
    // It comes on screen (filtered by its pool ID): its numbers are the pair's now, not the list's.
    await user.type(screen.getByRole('searchbox', { name: 'Filter pairs' }), pool);
    await waitFor(() => expect(symbolsShown()).toEqual([far]));
    await waitFor(
      () =>
        expect(within(ensureDefined(rows()[0])).getByTestId('overview-price')).toHaveAttribute(
          'data-value',
          String(stats.current_price),
        ),
      { timeout: 10_000 },
    );
    expect(within(ensureDefined(rows()[0])).getByTestId('overview-tvl')).toHaveAttribute(
      'data-value',
      String(stats.current_tvl),
    );
    // Shown, not sorted by: the row keeps the place the list gave it (by TVL in ADA as listed) until the
    // list is fetched again or sorted, so no row moves under the pointer.
    expect(stats.current_tvl).not.toBe(body.tvl[body.symbol.indexOf(far)]);
    expect(ensureDefined(rows()[0]).dataset.sortValue).toBe(String(body.tvl_ada[body.symbol.indexOf(far)]));
  });

  it('lists a DEX group picked in the top bar, and loads no symbol list of its own', async () => {
    const user = userEvent.setup();
    const app = bed.open('/?view=markets&group=Aggregate');
    await ready();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Group' }), 'MinswapV2');
    await waitFor(() => expect(overview()).toHaveAttribute('data-group', 'MinswapV2'));
    await ready();
    const body = await groupStats('MinswapV2');
    expect(Number(overview().dataset.count)).toBe(body.ticker.length);
    expect(symbolsShown().every((s) => s?.includes('_MinswapV2_'))).toBe(true);
    expect(urlParams().get('group')).toBe('MinswapV2');
    // The chart's symbol resolution (the group's symbol list) is not asked for the overview.
    expect(app.fetched.filter((url) => url.includes('/symbol_info')).length).toBe(0);
  });

  it('marks the groups whose pool outputs the chain source could not all decode in the last hour', async () => {
    const user = userEvent.setup();
    // The service's answer for this market, with MinswapV2 and Splash failing as a chain source would report them.
    const real = marketStatusSchema.parse(await (await bed.tp.fetch('/gw/v1/status')).json());
    const failing = {
      ...real,
      source: 'chain',
      state: 'live',
      groups: real.groups.map((g) => ({
        ...g,
        decoded_1h: g.group === 'MinswapV2' ? 40 : 10,
        undecodable_1h: g.group === 'MinswapV2' ? 3 : g.group === 'Splash' ? 1 : 0,
        decoded_24h: 500,
        undecodable_24h: 4,
      })),
    };
    const app = bed.open('/?view=markets&group=Aggregate', {
      fault: (url) =>
        url.includes('/gw/v1/status')
          ? new Response(JSON.stringify(failing), { headers: { 'Content-Type': 'application/json' } })
          : undefined,
    });
    await ready();
    const note = await screen.findByTestId('overview-decode-note');
    expect(note).toHaveTextContent('MinswapV2: 3 pool outputs of the last hour could not be decoded (40 were)');
    expect(note).toHaveTextContent('Splash: 1 pool output of the last hour could not be decoded (10 were)');
    // A group that decodes everything has no note; the failing group's own page has its own.
    await user.selectOptions(screen.getByRole('combobox', { name: 'Group' }), 'VyFi');
    await waitFor(() => expect(overview()).toHaveAttribute('data-group', 'VyFi'));
    await ready();
    expect(screen.queryByTestId('overview-decode-note')).toBeNull();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Group' }), 'Splash');
    await waitFor(() => expect(overview()).toHaveAttribute('data-group', 'Splash'));
    expect(await screen.findByTestId('overview-decode-note')).not.toHaveTextContent('MinswapV2');
    app.close();
  });

  it('has no such mark for the simulated market, which decodes nothing', async () => {
    const app = bed.open('/?view=markets&group=Aggregate');
    await ready();
    await waitFor(() => expect(app.fetched.some((url) => url.includes('/gw/v1/status'))).toBe(true));
    await app.services.queryClient.refetchQueries({ queryKey: ['market-status'] });
    expect(screen.queryByTestId('overview-decode-note')).toBeNull();
  });
});
