import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CSV_HEADER } from '../../src/app/features/export/lib/csv';
import { formatPercent } from '../../src/app/lib/format';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenLogoSchema, tokenStatsSchema } from '../../src/shared/api/tokens';
import { ensureDefined } from '../support/ensure';
import { appTestBed, chartElement, chartReady, memoryStorage, type RenderedApp, urlParams } from './render-app';

const bed = appTestBed();
afterEach(() => {
  vi.unstubAllGlobals();
});

function open(url: string, storage = memoryStorage()): RenderedApp {
  return bed.open(url, { storage });
}

async function symbols(group: string) {
  return symbolInfoResponseSchema.parse(await (await bed.tp.fetch(`/gw/v1/symbol_info?group=${group}`)).json());
}

describe('compare mode', () => {
  it('overlays the pair’s DEX pools against Aggregate in percent', async () => {
    const user = userEvent.setup();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    await chartReady(container);
    await user.click(screen.getByRole('button', { name: 'Compare DEX pools with Aggregate' }));
    expect(screen.getByRole('button', { name: 'Compare DEX pools with Aggregate' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    const legend = await screen.findByTestId('compare-legend', {}, { timeout: 10_000 });
    const items = within(legend).getAllByTestId('compare-legend-item');
    expect(items[0]).toHaveAttribute('data-group', 'Aggregate');
    expect(items.length).toBeGreaterThan(1);
    // Every DEX pool of ADA/SNEK is listed (up to the cap).
    const dexPools = (
      await Promise.all(
        [
          'Minswap',
          'MinswapV2',
          'SundaeSwap',
          'SundaeSwapV3',
          'WingRiders',
          'WingRidersV2',
          'Spectrum',
          'Splash',
          'MuesliSwap',
          'VyFi',
        ].map(symbols),
      )
    )
      .flatMap((body) => body.symbol)
      .filter((name) => name.startsWith('ADA.SNEK_'));
    expect(items.length).toBe(Math.min(8, dexPools.length + 1));
    await waitFor(() => expect(Number(screen.getByTestId('compare-chart').dataset.series)).toBeGreaterThan(1));
    expect(within(legend).getAllByText(/%$/).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('price-chart')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Compare DEX pools with Aggregate' }));
    await chartReady(container, 'ADA.SNEK_Aggregate_Pool1');
  });
});

describe('watchlist', () => {
  it('adds the current pair with its price, remembers it across reloads, and picks it', async () => {
    const user = userEvent.setup();
    const storage = memoryStorage();
    const first = open('/?symbol=ADA.DJED_Aggregate_Pool1', storage);
    await chartReady(first.container);
    expect(screen.getByTestId('watchlist-empty')).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Watch this pair' }));
    const item = await screen.findByTestId('watchlist-item');
    expect(item).toHaveAttribute('data-symbol', 'ADA.DJED_Aggregate_Pool1');
    const body = await symbols('Aggregate');
    const ticker = ensureDefined(body.ticker[body.symbol.indexOf('ADA.DJED_Aggregate_Pool1')]);
    const stats = tokenStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/current?pool=${ticker}`)).json());
    await waitFor(
      () => expect(Number(within(item).getByTestId('watchlist-price').dataset.value)).toBe(stats.current_price),
      { timeout: 10_000 },
    );
    first.close();

    const second = open('/?symbol=ADA.SNEK_Aggregate_Pool1', storage);
    await chartReady(second.container, 'ADA.SNEK_Aggregate_Pool1');
    const remembered = await screen.findByTestId('watchlist-item');
    // The watchlist's numbers come from quotes requests of the whole list (again when the live stream
    // connects), not from the pair's /tokens/current.
    await waitFor(() => expect(within(remembered).getByTestId('watchlist-price').dataset.value).toBeDefined());
    const quotes = second.fetched.filter((url) => url.includes('/gw/v1/udf/quotes?'));
    expect(quotes.length).toBeGreaterThan(0);
    expect(new Set(quotes)).toEqual(
      new Set([`/gw/v1/udf/quotes?symbols=${encodeURIComponent('Aggregate:ADA.DJED_Aggregate_Pool1')}`]),
    );
    expect(second.fetched.filter((url) => url.includes(`/tokens/current?pool=${ticker}`))).toEqual([]);
    await user.click(within(remembered).getByRole('button', { name: /Show DJED\/ADA on Aggregate/ }));
    await chartReady(second.container, 'ADA.DJED_Aggregate_Pool1');
    expect(urlParams().get('symbol')).toBe('ADA.DJED_Aggregate_Pool1');
    await user.click(within(remembered).getByRole('button', { name: /Remove/ }));
    expect(screen.queryByTestId('watchlist-item')).not.toBeInTheDocument();
  });
});

describe('watchlist over an upstream without /udf (the hosted API)', () => {
  it('asks each pair’s /tokens/current instead, and shows the same price', async () => {
    const user = userEvent.setup();
    const storage = memoryStorage();
    const first = open('/?symbol=ADA.DJED_Aggregate_Pool1', storage);
    await chartReady(first.container);
    await user.click(await screen.findByRole('button', { name: 'Watch this pair' }));
    first.close();
    const notFound = (url: string) =>
      url.includes('/gw/v1/udf/quotes?')
        ? new Response(JSON.stringify({ s: 'error', errmsg: 'Not Found' }), {
            status: 404,
            headers: { 'Content-Type': 'application/json' },
          })
        : undefined;
    const page = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1', { storage, fault: notFound });
    await chartReady(page.container, 'ADA.SNEK_Aggregate_Pool1');
    const item = await screen.findByTestId('watchlist-item');
    const body = await symbols('Aggregate');
    const ticker = ensureDefined(body.ticker[body.symbol.indexOf('ADA.DJED_Aggregate_Pool1')]);
    const stats = tokenStatsSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/current?pool=${ticker}`)).json());
    await waitFor(
      () => expect(Number(within(item).getByTestId('watchlist-price').dataset.value)).toBe(stats.current_price),
      { timeout: 10_000 },
    );
    expect(page.fetched.some((url) => url.includes(`/tokens/current?pool=${ticker}`))).toBe(true);
  });
});

describe('preferences', () => {
  it('theme, toggles and time zone persist across reloads; dark and UTC by default', async () => {
    const user = userEvent.setup();
    const storage = memoryStorage();
    const first = open('/?symbol=ADA.SNEK_Aggregate_Pool1', storage);
    await chartReady(first.container);
    expect(screen.getByRole('button', { name: 'Dark' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Light' })).toHaveAttribute('aria-pressed', 'false');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(screen.getByRole('button', { name: 'UTC' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('button', { name: 'Light' }));
    await user.click(screen.getByRole('button', { name: 'Local' }));
    await user.click(screen.getByRole('button', { name: 'Volume' }));
    await user.click(screen.getByRole('button', { name: 'Logarithmic price scale' }));
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(chartElement(first.container).dataset.theme).toBe('light');
    first.close();

    const second = open('/?symbol=ADA.SNEK_Aggregate_Pool1', storage);
    await chartReady(second.container);
    expect(screen.getByRole('button', { name: 'Light' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Local' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('timezone-toggle')).toHaveAttribute('data-timezone', 'local');
    expect(screen.getByRole('button', { name: 'Volume' })).toHaveAttribute('aria-pressed', 'false');
    expect(screen.getByRole('button', { name: 'Logarithmic price scale' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'TVL' })).toHaveAttribute('aria-pressed', 'true');
  });
});

describe('group picker', () => {
  it('switches to the same pair on another DEX, or says it has none there', async () => {
    const user = userEvent.setup();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(container);
    const picker = screen.getByRole('combobox', { name: 'Group' });
    await waitFor(() => expect(within(picker).getAllByRole('option')).toHaveLength(11));
    // A DEX group with a SNEK pool, and one without (if the market has one).
    const groups = [
      'Minswap',
      'MinswapV2',
      'SundaeSwap',
      'SundaeSwapV3',
      'WingRiders',
      'WingRidersV2',
      'Spectrum',
      'Splash',
      'MuesliSwap',
      'VyFi',
    ];
    const bodies = await Promise.all(groups.map(symbols));
    const withSnek = groups.find((_, i) => bodies[i]?.symbol.some((s) => s.startsWith('ADA.SNEK_')));
    const without = groups.find((_, i) => !bodies[i]?.symbol.some((s) => s.startsWith('ADA.SNEK_')));
    const target = ensureDefined(withSnek, 'a DEX with SNEK');
    await user.selectOptions(picker, target);
    await waitFor(() => expect(urlParams().get('group')).toBe(target));
    await waitFor(() => expect(urlParams().get('symbol')).toMatch(new RegExp(`^ADA\\.SNEK_${target}_Pool\\d$`)));
    await chartReady(container);
    // The Aggregate pool's live connection closes after the datafeed's short debounce.
    await waitFor(() => expect(screen.getByTestId('connection-status')).toHaveAttribute('data-state', 'idle'));
    if (without) {
      await user.selectOptions(screen.getByRole('combobox', { name: 'Group' }), without);
      expect(await screen.findByTestId('notice')).toHaveTextContent(`SNEK/ADA has no pool on ${without}`);
      await waitFor(() => expect(urlParams().get('symbol')).toMatch(new RegExp(`_${without}_Pool\\d$`)), {
        timeout: 10_000,
      });
    }
  });
});

describe('export', () => {
  it('exports the bars in view as CSV', async () => {
    const user = userEvent.setup();
    const blobs: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:test'),
        revokeObjectURL: () => {},
      }),
    );
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    const chart = await chartReady(container);
    await user.click(screen.getByRole('button', { name: 'CSV' }));
    // The CSV maker is a chunk of its own, loaded on the first export.
    await waitFor(() => expect(blobs).toHaveLength(1));
    const csv = await ensureDefined(blobs[0]).text();
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe(CSV_HEADER.join(','));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length - 1).toBeLessThanOrEqual(Number(chart.dataset.bars));
    expect(lines.at(-1)).toContain(`,${chart.dataset.lastTime},`);
    expect(screen.getByTestId('export-status')).toHaveTextContent(`Exported ${lines.length - 1} bars`);
    expect(screen.getByRole('button', { name: 'PNG' })).toBeEnabled();
  });
});

/** Downloads the app makes (blob URLs and file names), and the canvases turned into PNGs. */
function captureDownloads(): { blobs: Blob[]; names: string[]; canvases: () => HTMLCanvasElement[] } {
  const blobs: Blob[] = [];
  const names: string[] = [];
  vi.stubGlobal(
    'URL',
    Object.assign(URL, { createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:test'), revokeObjectURL: () => {} }),
  );
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    names.push(this.download);
  });
  const toBlob = vi.mocked(HTMLCanvasElement.prototype.toBlob);
  toBlob.mockClear();
  return { blobs, names, canvases: () => toBlob.mock.contexts as HTMLCanvasElement[] };
}

interface CanvasEvent {
  readonly type: string;
  readonly props: { readonly text?: string; readonly dy?: number; readonly img?: HTMLCanvasElement };
}

/** What was drawn on a (mocked) canvas. */
function canvasEvents(canvas: HTMLCanvasElement): CanvasEvent[] {
  return (canvas.getContext('2d') as unknown as { __getEvents(): CanvasEvent[] }).__getEvents();
}

function drawnText(canvas: HTMLCanvasElement): string {
  return canvasEvents(canvas)
    .flatMap((e) => (e.type === 'fillText' && e.props.text !== undefined ? [e.props.text] : []))
    .join(' | ');
}

describe('export with a title strip and in compare mode', () => {
  it('the PNG carries the pair, group and resolution above the chart', async () => {
    const user = userEvent.setup();
    const downloads = captureDownloads();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    await chartReady(container);
    await waitFor(() => expect(screen.getByRole('button', { name: 'PNG' })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'PNG' }));
    await waitFor(() => expect(screen.getByTestId('export-status')).toHaveTextContent('Exported the chart image'));
    expect(downloads.names.at(-1)).toMatch(/^ADA\.SNEK_Aggregate_Pool1-60-\d{8}T\d{4}Z\.png$/);
    const canvas = ensureDefined(downloads.canvases().at(-1));
    expect(drawnText(canvas)).toContain('SNEK/ADA on Aggregate · 1 hour');
    // The chart's screenshot sits below the strip, on a canvas taller than it by the strip.
    const shot = ensureDefined(canvasEvents(canvas).find((e) => e.type === 'drawImage'));
    expect(shot.props.dy).toBeGreaterThan(0);
    expect(canvas.height).toBe((shot.props.img?.height ?? 0) + (shot.props.dy ?? 0));
  });

  it('exports the compared lines as CSV (one column per pool) and the compare chart as PNG', async () => {
    const user = userEvent.setup();
    const downloads = captureDownloads();
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    await chartReady(container);
    await user.click(screen.getByRole('button', { name: 'Compare DEX pools with Aggregate' }));
    const legend = await screen.findByTestId('compare-legend', {}, { timeout: 10_000 });
    await waitFor(() => expect(Number(screen.getByTestId('compare-chart').dataset.series)).toBeGreaterThan(1));
    const csvButton = screen.getByRole('button', { name: 'CSV' });
    await waitFor(() => expect(csvButton).toBeEnabled());
    await user.click(csvButton);
    await waitFor(() => expect(screen.getByTestId('export-status')).toHaveTextContent(/^Exported/));
    expect(downloads.names.at(-1)).toMatch(/^ADA\.SNEK-compare-60-\d{8}T\d{4}Z\.csv$/);
    const lines = (await ensureDefined(downloads.blobs.at(-1)).text())
      .trim()
      .split('\r\n')
      .map((line) => line.split(','));
    const [header = [], ...rows] = lines;
    const drawnItems = within(legend)
      .getAllByTestId('compare-legend-item')
      .filter((item) => /%$/.test(item.textContent ?? ''));
    expect(header.slice(0, 2)).toEqual(['time_utc', 'unix_time']);
    expect(header).toHaveLength(2 + Number(screen.getByTestId('compare-chart').dataset.series));
    expect(header[2]).toBe('ADA.SNEK_Aggregate_Pool1 (%)');
    expect(header.slice(2).every((h) => /^ADA\.SNEK_\w+_Pool\d+ \(%\)$/.test(h))).toBe(true);
    expect(rows.length).toBeGreaterThan(1);
    // Times ascend; each column ends on the value its legend shows.
    const times = rows.map((r) => Number(r[1]));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    drawnItems.forEach((item, i) => {
      const column = rows.map((r) => r[2 + i] ?? '').filter((v) => v !== '');
      expect(formatPercent(Number(column.at(-1)))).toBe(within(item).getByText(/%$/).textContent);
    });
    expect(screen.getByTestId('export-status')).toHaveTextContent(
      `Exported ${rows.length} rows of ${header.length - 2} pools`,
    );

    await user.click(screen.getByRole('button', { name: 'PNG' }));
    await waitFor(() => expect(screen.getByTestId('export-status')).toHaveTextContent('Exported the chart image'));
    expect(downloads.names.at(-1)).toMatch(/^ADA\.SNEK-compare-60-\d{8}T\d{4}Z\.png$/);
    const text = drawnText(ensureDefined(downloads.canvases().at(-1)));
    expect(text).toContain('SNEK/ADA: Aggregate and DEX pools, % change · 1 hour');
    expect(text).toContain('Minswap');
  });
});

describe('token logo', () => {
  it('falls back to an avatar for a token without a logo', async () => {
    const body = await symbols('Aggregate');
    let name: string | undefined;
    for (let i = 0; i < body.symbol.length && name === undefined; i++) {
      const logo = tokenLogoSchema.parse(await (await bed.tp.fetch(`/gw/v1/tokens/logo/${body.currency[i]}`)).json());
      if (logo === null) name = body.symbol[i];
    }
    const symbol = ensureDefined(name, 'a token without a logo');
    open(`/?symbol=${symbol}`);
    await waitFor(
      () => expect(within(screen.getByTestId('token-header')).getByTestId('token-logo-fallback')).toBeInTheDocument(),
      { timeout: 10_000 },
    );
    const snek = open('/?symbol=ADA.SNEK_Aggregate_Pool1');
    await chartReady(snek.container, 'ADA.SNEK_Aggregate_Pool1');
    await waitFor(() =>
      expect(within(screen.getByTestId('token-header')).getByTestId('token-logo')).toHaveAttribute(
        'src',
        expect.stringMatching(/^data:image\/png;base64,/),
      ),
    );
  });
});

describe('empty state', () => {
  it('says so when a pair has no trades', async () => {
    // A pool that never traded (the long tail has some): no bar at any time.
    const now = Math.floor(Date.now() / 1000) + 86_400;
    let name: string | undefined;
    for (const group of ['VyFi', 'MuesliSwap', 'Splash', 'Spectrum', 'WingRiders', 'Minswap']) {
      const body = await symbols(group);
      for (let i = body.symbol.length - 1; i >= 0 && name === undefined; i--) {
        const history = (await (
          await bed.tp.fetch(`/gw/v1/history?symbol=${body.ticker[i]}&resolution=1d&to=${now}&countback=1`)
        ).json()) as { t: number[] };
        if (history.t.length === 0) name = body.symbol[i];
      }
      if (name !== undefined) break;
    }
    const symbol = ensureDefined(name, 'a pool without trades');
    const { container } = open(`/?symbol=${symbol}&res=60`);
    const empty = await screen.findByTestId('chart-empty', {}, { timeout: 10_000 });
    expect(empty).toHaveTextContent('No trades yet');
    expect(chartElement(container).dataset.bars).toBe('0');
  });
});

describe('connection status', () => {
  it('is live on an Aggregate pair and offline when the browser goes offline', async () => {
    const { container } = open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=1');
    await chartReady(container);
    const status = screen.getByTestId('connection-status');
    await waitFor(() => expect(status).toHaveAttribute('data-state', 'live'), { timeout: 10_000 });
    expect(status).toHaveTextContent('Live');
    window.dispatchEvent(new Event('offline'));
    await waitFor(() => expect(status).toHaveAttribute('data-state', 'offline'));
    expect(status).toHaveTextContent(/Offline/);
    window.dispatchEvent(new Event('online'));
    await waitFor(() => expect(status).toHaveAttribute('data-state', 'live'));
  });

  it('shows reconnecting, not "History only", while the live endpoint answers an HTTP error, then live', async () => {
    // A proxy's 503 (or Vite's dev proxy with the gateway down): the browser closes the EventSource.
    const outage = (url: string) =>
      url.includes('/live?')
        ? new Response('Service Unavailable', { status: 503, headers: { 'Content-Type': 'text/plain' } })
        : undefined;
    const rendered = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=1', { fault: outage });
    const states: string[] = [];
    rendered.services.liveStatus.subscribe(() => states.push(rendered.services.liveStatus.getSnapshot().state));
    await chartReady(rendered.container);
    const status = screen.getByTestId('connection-status');
    await waitFor(() => expect(status).toHaveAttribute('data-state', 'reconnecting'), { timeout: 10_000 });
    // The datafeed retries with backoff (1 s, 2 s, ...): still reconnecting after the first retry failed.
    await waitFor(() => expect(rendered.sources.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    await waitFor(() => expect(ensureDefined(rendered.sources.at(-1)).readyState).toBe(2));
    expect(status).toHaveAttribute('data-state', 'reconnecting');
    expect(status).toHaveTextContent('Reconnecting');
    rendered.fault = undefined;
    await waitFor(() => expect(status).toHaveAttribute('data-state', 'live'), { timeout: 10_000 });
    const outageStates = states.slice(states.indexOf('reconnecting'));
    expect(outageStates.filter((s) => s !== 'reconnecting' && s !== 'live')).toEqual([]);
  });
});
