import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatPrice } from '../../src/app/lib/format';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { ensureDefined } from '../support/ensure';
import { expectClose } from '../support/expect-close';
import { rateAtTime, rateNow as rateNowOf } from '../support/usd';
import { appTestBed, chartReady, memoryStorage, urlParams } from './render-app';

/**
 * USD prices in the app, against the real service in-process: the expected ADA/USD is computed here
 * from the gateway's own answers (the stablecoins' Aggregate pairs against ADA), not by the app's code.
 */
const bed = appTestBed();
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

async function json(url: string): Promise<unknown> {
  return (await bed.tp.fetch(url)).json();
}

const hourlyRate = (time: number) => rateAtTime(bed.tp.fetch, time);
const rateNow = () => rateNowOf(bed.tp.fetch);

async function poolOf(symbol: string): Promise<string> {
  const body = symbolInfoResponseSchema.parse(await json('/gw/v1/symbol_info?group=Aggregate'));
  return ensureDefined(body.ticker[body.symbol.indexOf(symbol)], symbol);
}

/** jsdom lays nothing out: the tape's list gets the height it has on screen, so its virtualizer shows rows. */
function showTapeRows(): void {
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.dataset.testid === 'tape-rows' ? 280 : 0;
  });
}

describe('the currency switch', () => {
  it('shows the chart, legend, header and tape in USD: each bar times ADA/USD of its hour, the header at ADA/USD now', async () => {
    const user = userEvent.setup();
    const blobs: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:test'),
        revokeObjectURL: () => {},
      }),
    );
    showTapeRows();
    const storage = memoryStorage();
    const { container } = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60', { storage });
    const chart = await chartReady(container, 'ADA.SNEK_Aggregate_Pool1');
    const switcher = screen.getByRole('group', { name: 'Currency' });
    expect(within(switcher).getByRole('button', { name: 'ADA' })).toHaveAttribute('aria-pressed', 'true');
    const usdButton = within(switcher).getByRole('button', { name: 'USD' });
    await waitFor(() => expect(usdButton).toBeEnabled());
    const adaClose = Number(chart.dataset.lastClose);
    const lastTime = Number(chart.dataset.lastTime);

    await user.click(usdButton);
    expect(urlParams().get('cur')).toBe('usd');
    expect(usdButton).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(chart.dataset.currency).toBe('usd'));
    await chartReady(container);
    // The newest bar in USD: its ADA close times ADA/USD of its hour (the stablecoins' bars of that hour or before).
    expect(Number(chart.dataset.lastTime)).toBe(lastTime);
    expectClose(Number(chart.dataset.lastClose), adaClose * (await hourlyRate(lastTime)), 1e-9);
    expect(screen.getByTestId('legend-close')).toHaveTextContent(formatPrice(Number(chart.dataset.lastClose)));
    expect(screen.getByRole('slider', { name: 'Candlestick chart of SNEK/USD on Aggregate' })).toBeInTheDocument();
    // In USD the price is the token's: the pair is not inverted meanwhile.
    expect(screen.getByTestId('invert-toggle')).toBeDisabled();

    const header = screen.getByTestId('token-header');
    expect(within(header).getByTestId('header-pair')).toHaveTextContent('SNEK/USD');
    const snek = tokenStatsSchema.parse(
      await json(`/gw/v1/tokens/current?pool=${await poolOf('ADA.SNEK_Aggregate_Pool1')}`),
    );
    const rate = await rateNow();
    await waitFor(() =>
      expectClose(Number(within(header).getByTestId('header-price').dataset.value), snek.current_price * rate, 1e-9),
    );
    expect(within(header).getByTestId('header-price')).toHaveTextContent(/USD$/);
    expect(within(header).getByText('TVL (USD)')).toBeInTheDocument();

    // The tape: each trade at ADA/USD of its hour, its value the ADA amount at that rate.
    const row = await screen.findAllByTestId('tape-row', {}, { timeout: 10_000 });
    const trades = (await json(`/gw/v1/trades?pool=${await poolOf('ADA.SNEK_Aggregate_Pool1')}&limit=1`)) as {
      trades: { time: number; price: number; base_amount: number }[];
    };
    const newest = ensureDefined(trades.trades[0]);
    const hour = newest.time - (newest.time % 3600);
    const tradeRate = await hourlyRate(hour);
    await waitFor(() =>
      expectClose(
        Number(within(ensureDefined(row[0])).getByTestId('tape-price').dataset.value),
        newest.price * tradeRate,
        1e-9,
      ),
    );
    expectClose(
      Number(within(ensureDefined(row[0])).getByTestId('tape-value').dataset.value),
      newest.base_amount * tradeRate,
      1e-9,
    );
    expect(within(screen.getByTestId('trades-tape')).getByText('Price (USD)')).toBeInTheDocument();

    // The CSV says its unit: every value column in USD.
    await user.click(screen.getByRole('button', { name: 'CSV' }));
    // The CSV maker is a chunk of its own, loaded on the first export.
    await waitFor(() => expect(blobs.length).toBeGreaterThan(0));
    const lines = (await ensureDefined(blobs.at(-1)).text()).trim().split('\r\n');
    expect(lines[0]).toBe('time_utc,unix_time,open_usd,high_usd,low_usd,close_usd,volume_usd,tvl_usd');
    expect(ensureDefined(lines.at(-1)).split(',')[5]).toBe(chart.dataset.lastClose);
    expect(screen.getByTestId('export-status')).toHaveTextContent(/Exported \d+ bars in USD/);

    // Back to ADA: the bars as the service has them.
    await user.click(within(switcher).getByRole('button', { name: 'ADA' }));
    expect(urlParams().get('cur')).toBeNull();
    await waitFor(() => expect(chart.dataset.currency).toBe('ada'));
    await waitFor(() => expect(Number(chart.dataset.lastClose)).toBe(adaClose));
    expect(screen.getByTestId('invert-toggle')).toBeEnabled();
  });

  it('exports a PNG titled with the pair in USD', async () => {
    const user = userEvent.setup();
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:test', revokeObjectURL: () => {} }));
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const toBlob = vi.mocked(HTMLCanvasElement.prototype.toBlob);
    toBlob.mockClear();
    const { container } = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60&cur=usd');
    const chart = await chartReady(container);
    await waitFor(() => expect(chart.dataset.currency).toBe('usd'));
    await chartReady(container);
    await user.click(screen.getByRole('button', { name: 'PNG' }));
    await waitFor(() => expect(screen.getByTestId('export-status')).toHaveTextContent('Exported the chart image'));
    expect(names.at(-1)).toMatch(/^ADA\.SNEK_Aggregate_Pool1-usd-60-\d{8}T\d{4}Z\.png$/);
    const canvas = ensureDefined(toBlob.mock.contexts.at(-1)) as HTMLCanvasElement;
    const events = (
      canvas.getContext('2d') as unknown as { __getEvents(): { type: string; props: { text?: string } }[] }
    ).__getEvents();
    expect(events.filter((e) => e.type === 'fillText').map((e) => e.props.text)).toContain(
      'SNEK/USD on Aggregate · 1 hour',
    );
  });

  it('is kept in the preferences: a URL without `cur` opens in the currency last chosen', async () => {
    const user = userEvent.setup();
    const storage = memoryStorage();
    const first = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1', { storage });
    await chartReady(first.container);
    const usdButton = screen.getByRole('button', { name: 'USD' });
    await waitFor(() => expect(usdButton).toBeEnabled());
    await user.click(usdButton);
    first.close();
    const second = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1&inv=1', { storage });
    await waitFor(() => expect(urlParams().get('cur')).toBe('usd'));
    expect(urlParams().get('inv')).toBeNull();
    const chart = await chartReady(second.container);
    await waitFor(() => expect(chart.dataset.currency).toBe('usd'));
  });

  it('is off for a pair not against ADA, and says why', async () => {
    const body = symbolInfoResponseSchema.parse(await json('/gw/v1/symbol_info?group=Aggregate'));
    const tokenPair = ensureDefined(
      body.symbol.find((_, i) => body['base-currency'][i] !== ''),
      'a token/token pair',
    );
    const { container } = bed.open(`/?symbol=${tokenPair}&cur=usd`);
    await chartReady(container);
    const usdButton = screen.getByRole('button', { name: 'USD' });
    await waitFor(() => expect(usdButton).toBeDisabled());
    expect(usdButton).toHaveAccessibleDescription(/USD prices are for pairs against ADA/);
    expect(screen.getByRole('button', { name: 'ADA' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('price-chart').dataset.currency).toBe('ada');
  });
});
