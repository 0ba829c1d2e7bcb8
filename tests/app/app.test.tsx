import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { formatPrice } from '../../src/app/lib/format';
import { gatewayInfoSchema } from '../../src/shared/api/gateway';
import { historyResponseSchema } from '../../src/shared/api/history';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { assetFingerprint } from '../../src/datafeed/fingerprint';
import { splitTokenUnit } from '../../src/shared/id-rules';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { appTestBed, chartElement, chartReady, type FetchFault, type RenderedApp, urlParams } from './render-app';

const bed = appTestBed();

function open(url = '/', fault?: FetchFault): RenderedApp {
  return bed.open(url, fault ? { fault } : {});
}

async function stats(pool: string) {
  return tokenStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/current?pool=${pool}`)).json());
}

async function aggregateInfo(name: string): Promise<{ ticker: string; pricescale: number; quoteUnit: string }> {
  const body = symbolInfoResponseSchema.parse(await (await bed.tp.fetch('/gw/v1/symbol_info?group=Aggregate')).json());
  const i = body.symbol.indexOf(name);
  if (i < 0) throw new Error(`no ${name}`);
  return {
    ticker: ensureDefined(body.ticker[i]),
    pricescale: ensureDefined(body.pricescale[i]),
    quoteUnit: ensureDefined(body.currency[i]),
  };
}

describe('the charting app', () => {
  it('opens on the deepest Aggregate pair and writes it into the URL', async () => {
    const rendered = open('/');
    const { container } = rendered;
    const chart = await chartReady(container, 'ADA.SNEK_Aggregate_Pool1');
    // Its bars were asked for by the pool ID the gateway's /info names.
    const firstHistory = rendered.fetched.findIndex((url) => url.includes('/history?'));
    const deepest = ensureDefined(
      gatewayInfoSchema.parse(await (await bed.tp.fetch('/gw/v1/info')).json()).deepest?.Aggregate,
    );
    expect(rendered.fetched[firstHistory]).toContain(`symbol=${deepest}&`);
    expect(Number(chart.dataset.bars)).toBeGreaterThan(10);
    await waitFor(() => expect(urlParams().get('symbol')).toBe('ADA.SNEK_Aggregate_Pool1'));
    expect(urlParams().get('group')).toBe('Aggregate');
    expect(urlParams().get('res')).toBe('60');
    expect(await screen.findByTestId('simulated-badge')).toHaveTextContent('Simulated market');
  });

  it('search selects a pair: results as you type, keyboard navigation, recent picks', async () => {
    const user = userEvent.setup();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(container, 'ADA.SNEK_Aggregate_Pool1');
    const input = screen.getByRole('combobox', { name: 'Search pairs' });
    await user.click(input);
    await waitFor(() => expect(screen.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true'), {
      timeout: 10_000,
    });
    await user.type(input, 'MIN');
    const listbox = screen.getByRole('listbox', { name: 'Pairs' });
    const options = await within(listbox).findAllByRole('option');
    expect(options.length).toBeGreaterThan(1);
    expect(options[0]).toHaveAttribute('data-symbol', 'ADA.MIN_Aggregate_Pool1');
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    expect(input).toHaveAttribute('aria-expanded', 'true');
    expect(input).toHaveAttribute('aria-activedescendant', options[0]?.id);
    // Arrow keys move the active option; Enter picks it.
    await user.keyboard('{ArrowDown}');
    const second = within(listbox).getAllByRole('option')[1];
    expect(input).toHaveAttribute('aria-activedescendant', second?.id);
    await user.keyboard('{ArrowUp}{Enter}');
    const chart = await chartReady(container, 'ADA.MIN_Aggregate_Pool1');
    expect(urlParams().get('symbol')).toBe('ADA.MIN_Aggregate_Pool1');
    expect(chart.dataset.symbol).toBe('ADA.MIN_Aggregate_Pool1');
    await waitFor(() => expect(screen.getByTestId('header-ticker')).toHaveTextContent('MIN'));
    expect(input).toHaveValue('');
    // The pick is remembered: first in the list when the query is empty.
    await user.click(input);
    const recent = (await within(screen.getByRole('listbox', { name: 'Pairs' })).findAllByRole('option'))[0];
    expect(recent).toHaveAttribute('data-symbol', 'ADA.MIN_Aggregate_Pool1');
    expect(recent).toHaveAccessibleName(/recent/);
  });

  it('search matches token names (the gateway’s GET /gw/v1/token-info)', async () => {
    const user = userEvent.setup();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(container);
    const input = screen.getByRole('combobox', { name: 'Search pairs' });
    await user.click(input);
    await waitFor(() => expect(screen.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true'), {
      timeout: 10_000,
    });
    await user.type(input, 'World Mobile');
    let options = await within(screen.getByRole('listbox')).findAllByRole('option');
    expect(options[0]).toHaveAttribute('data-symbol', 'ADA.WMT_Aggregate_Pool1');
    expect(options[0]).toHaveTextContent('World Mobile Token');
    expect(options.every((o) => /\.WMT_|^WMT\./.test(o.getAttribute('data-symbol') ?? ''))).toBe(true);
    await user.clear(input);
    await user.type(input, 'liqwid');
    options = await within(screen.getByRole('listbox')).findAllByRole('option');
    expect(options[0]).toHaveAttribute('data-symbol', 'ADA.LQ_Aggregate_Pool1');
  });

  it('search matches a policy ID and a CIP-14 fingerprint; a click picks a DEX pool', async () => {
    const user = userEvent.setup();
    const rendered = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    const { container } = rendered;
    await chartReady(container);
    const djed = await aggregateInfo('ADA.DJED_Aggregate_Pool1');
    const { policyId, assetName } = splitTokenUnit(djed.quoteUnit);
    const input = screen.getByRole('combobox', { name: 'Search pairs' });
    await user.click(input);
    await waitFor(() => expect(screen.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true'), {
      timeout: 10_000,
    });
    await user.type(input, assetFingerprint(policyId, assetName));
    let options = await within(screen.getByRole('listbox')).findAllByRole('option');
    expect(options[0]).toHaveAttribute('data-symbol', 'ADA.DJED_Aggregate_Pool1');
    await user.clear(input);
    await user.type(input, policyId);
    options = await within(screen.getByRole('listbox')).findAllByRole('option');
    // The same rows, in the same order, as the datafeed's own search (tokens sharing the policy included).
    const expected = await rendered.services.datafeed.search(policyId, undefined, options.length);
    expect(options.map((o) => o.getAttribute('data-symbol'))).toEqual(expected.map((r) => r.symbol));
    expect(options.some((o) => /DJED/.test(o.getAttribute('data-symbol') ?? ''))).toBe(true);
    options = options.filter((o) => /DJED/.test(o.getAttribute('data-symbol') ?? ''));
    const dex = ensureDefined(
      options.find((o) => !/_Aggregate_/.test(o.getAttribute('data-symbol') ?? '')),
      'a DEX pool of DJED',
    );
    const name = ensureDefined(dex.getAttribute('data-symbol'));
    await user.click(dex);
    await chartReady(container, name);
    expect(urlParams().get('group')).toBe(name.split('_')[1]);
    // DEX pools have history but no live updates.
    expect(chartElement(container).dataset.live).toBe('false');
  });

  it('a resolution switch refetches the bars', async () => {
    const user = userEvent.setup();
    const rendered = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    const chart = await chartReady(rendered.container, 'ADA.SNEK_Aggregate_Pool1');
    expect(screen.getByRole('button', { name: '1 hour' })).toHaveAttribute('aria-pressed', 'true');
    const before = rendered.fetched.length;
    await user.click(screen.getByRole('button', { name: '15 minutes' }));
    expect(screen.getByRole('button', { name: '15 minutes' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: '1 hour' })).toHaveAttribute('aria-pressed', 'false');
    await waitFor(() => expect(chart.dataset.resolution).toBe('15'));
    await chartReady(rendered.container);
    const history = rendered.fetched.slice(before).filter((url) => url.includes('/history'));
    expect(history.some((url) => url.includes('resolution=15min'))).toBe(true);
    expect(Number(chart.dataset.lastTime) % 900).toBe(0);
    expect(urlParams().get('res')).toBe('15');
  });

  it('stats render in the header: price from the pricescale, changes, TVL, volumes, policy ID and fingerprint', async () => {
    const snek = await aggregateInfo('ADA.SNEK_Aggregate_Pool1');
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(container);
    const price = await screen.findByTestId('header-price');
    const expected = await stats(snek.ticker);
    expect(price).toHaveTextContent(`${formatPrice(expected.current_price, snek.pricescale)} ADA`);
    // The registry's name (from the gateway's token metadata), not the decoded asset name.
    await waitFor(() => expect(screen.getByTestId('header-name')).toHaveTextContent(/^Snek$/));
    expect(screen.getByTestId('header-ticker')).toHaveTextContent(/^SNEK$/);
    for (const id of [
      'header-change-1h',
      'header-change-24h',
      'header-tvl',
      'header-tvl-change',
      'header-volume-1h',
      'header-volume-24h',
    ]) {
      expect(screen.getByTestId(id).textContent).toMatch(/\d/);
    }
    expect(screen.getByTestId('header-change-24h').textContent).toMatch(/%$/);
    const { policyId, assetName } = splitTokenUnit(snek.quoteUnit);
    expect(screen.getByTestId('header-policy-id')).toHaveTextContent(policyId);
    expect(screen.getByTestId('header-fingerprint')).toHaveTextContent(assetFingerprint(policyId, assetName));
    expect(screen.getByRole('button', { name: 'Copy policy ID' })).toBeEnabled();
  });

  it('a live event updates the header and the last candle', async () => {
    const [pool] = await aggregatesByActivity(bed.tp.runtime);
    const target = ensureDefined(pool);
    const rendered = open(`/?symbol=${target.poolId}&res=1`);
    const chart = await chartReady(rendered.container);
    await waitFor(() => expect(chart.dataset.live).toBe('true'), { timeout: 10_000 });
    await waitFor(() => expect(screen.getByTestId('connection-status')).toHaveAttribute('data-state', 'live'), {
      timeout: 10_000,
    });
    await screen.findByTestId('header-price');
    // Going live fetched the statistics again: let that settle, so that what moves next is the trade event.
    await waitFor(() => expect(rendered.services.queryClient.isFetching()).toBe(0));
    const statsFetches = () => rendered.fetched.filter((url) => url.includes('/tokens/current')).length;
    const fetchesBefore = statsFetches();
    const lastBefore = Number(chart.dataset.lastTime);
    await act(async () => {
      await forceTradesOn(bed.tp.runtime, [target], bed.tp.nowSeconds());
    });
    const now = await stats(target.poolId);
    await waitFor(() => expect(Number(chart.dataset.lastClose)).toBe(now.current_price), { timeout: 10_000 });
    // The last candle is the server's newest 1-minute bar, opened or updated by the trade.
    const newest = historyResponseSchema.parse(
      await (
        await bed.tp.fetch(
          `/gw/v1/history?symbol=${target.poolId}&resolution=1min&to=${Math.floor(Date.now() / 1000) + 60}&countback=1`,
        )
      ).json(),
    );
    expect(Number(chart.dataset.lastTime)).toBe(newest.t[0]);
    expect(Number(chart.dataset.lastTime)).toBeGreaterThanOrEqual(lastBefore);
    await waitFor(() => expect(Number(screen.getByTestId('header-price').dataset.value)).toBe(now.current_price), {
      timeout: 10_000,
    });
    // Moved by the trade event itself, not by fetching the statistics again.
    expect(statsFetches()).toBe(fetchesBefore);
    expect(rendered.sources.length).toBe(1);
  });

  it('URL state round-trips: shared links open as written, back and forward follow the selection', async () => {
    const user = userEvent.setup();
    const rendered = open('/?group=Aggregate&symbol=ADA.DJED_Aggregate_Pool1&res=15');
    const chart = await chartReady(rendered.container, 'ADA.DJED_Aggregate_Pool1');
    expect(chart.dataset.resolution).toBe('15');
    expect(screen.getByRole('button', { name: '15 minutes' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('button', { name: '1 day' }));
    await waitFor(() => expect(urlParams().get('res')).toBe('1D'));
    await chartReady(rendered.container);
    expect(chart.dataset.resolution).toBe('1D');
    act(() => window.history.back());
    await waitFor(() => expect(urlParams().get('res')).toBe('15'));
    await waitFor(() => expect(chart.dataset.resolution).toBe('15'));
    expect(screen.getByRole('button', { name: '15 minutes' })).toHaveAttribute('aria-pressed', 'true');
    act(() => window.history.forward());
    await waitFor(() => expect(chart.dataset.resolution).toBe('1D'));
    expect(urlParams().get('symbol')).toBe('ADA.DJED_Aggregate_Pool1');
  });

  it('accepts a token ticker or a pool ID in the URL and writes the symbol name back', async () => {
    const first = open('/?symbol=snek&res=5');
    await chartReady(first.container, 'ADA.SNEK_Aggregate_Pool1');
    await waitFor(() => expect(urlParams().get('symbol')).toBe('ADA.SNEK_Aggregate_Pool1'));
    expect(urlParams().get('res')).toBe('5');
    first.close();
    const min = await aggregateInfo('ADA.MIN_Aggregate_Pool1');
    const second = open(`/?symbol=${min.ticker}`);
    await waitFor(() => expect(urlParams().get('symbol')).toBe('ADA.MIN_Aggregate_Pool1'), { timeout: 10_000 });
    await chartReady(second.container);
  });

  it('an unknown symbol in the URL shows a clear message and a way out', async () => {
    const user = userEvent.setup();
    open('/?symbol=ADA.NOPE_Aggregate_Pool1');
    const alert = await screen.findByTestId('symbol-error', {}, { timeout: 10_000 });
    expect(alert).toHaveTextContent('Unknown symbol');
    expect(screen.getByTestId('symbol-error-message')).toHaveTextContent('ADA.NOPE_Aggregate_Pool1');
    await user.click(within(alert).getByRole('button', { name: 'Show the deepest Aggregate pair' }));
    await waitFor(() => expect(urlParams().get('symbol')).toBe('ADA.SNEK_Aggregate_Pool1'), { timeout: 10_000 });
    expect(screen.queryByTestId('symbol-error')).not.toBeInTheDocument();
  });

  it('errors show their message: the server’s for an unknown group, the gateway’s for failed bars, with a Retry', async () => {
    const user = userEvent.setup();
    const first = open('/?group=NoSuchDex');
    const alert = await screen.findByTestId('symbol-error', {}, { timeout: 10_000 });
    expect(alert).toHaveTextContent(/NoSuchDex/);
    expect(alert.textContent).toMatch(/Minswap/);
    first.close();

    const outage: FetchFault = (url) =>
      url.includes('/history')
        ? new Response(JSON.stringify({ s: 'error', errmsg: 'Upstream unavailable: test outage' }), {
            status: 502,
            headers: { 'Content-Type': 'application/json' },
          })
        : undefined;
    const second = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=5', outage);
    // The chart first loads from a stand-in (the symbol name) and, that having failed, loads again once
    // the symbol resolves: take the Retry of the error that stays.
    await screen.findByTestId('token-header', {}, { timeout: 10_000 });
    await waitFor(() => expect(second.fetched.some((url) => /\/history\?symbol=[0-9a-f]{16,}&/.test(url))).toBe(true), {
      timeout: 10_000,
    });
    await waitFor(() => expect(chartElement(second.container).dataset.status).toBe('error'), { timeout: 10_000 });
    const error = await screen.findByTestId('chart-error');
    expect(screen.getByTestId('chart-error-message')).toHaveTextContent('Upstream unavailable: test outage');
    second.fault = undefined;
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    await chartReady(second.container, 'ADA.SNEK_Aggregate_Pool1');
    expect(screen.queryByTestId('chart-error')).not.toBeInTheDocument();
  });
});
