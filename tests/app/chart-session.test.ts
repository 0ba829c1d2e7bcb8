import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  Bar,
  BarListener,
  BarsAnswer,
  LibrarySymbolInfo,
  ResolutionString,
  UdfDatafeed,
} from '../../src/datafeed';
import { BarBook } from '../../src/app/features/chart/lib/bar-book';
import { BarLoader } from '../../src/app/features/chart/lib/bar-loader';
import { Chart } from '../../src/app/features/chart/lib/chart';
import { ChartSession, type SessionSink } from '../../src/app/features/chart/lib/chart-session';
import { asSeconds } from '../../src/shared/time';
import { ensureDefined } from '../support/ensure';

/**
 * A chart view's session (features/chart/lib/chart-session.ts) owns its loads and live bars; a change of
 * view disposes it, and nothing it asked for arrives afterwards: not a page, not a live bar.
 */

const aggregate = (name: string, ticker: string): LibrarySymbolInfo => ({
  name,
  ticker,
  description: name,
  type: 'spot',
  session: '24x7',
  timezone: 'Etc/UTC',
  exchange: 'Aggregate',
  listed_exchange: 'Aggregate',
  format: 'price',
  pricescale: 10_000,
  minmov: 1,
});
const SNEK = aggregate('ADA.SNEK_Aggregate_Pool1', 'aa'.repeat(28));
const HOSKY = aggregate('ADA.HOSKY_Aggregate_Pool1', 'bb'.repeat(28));

function bars(close: number, count = 5): Bar[] {
  const start = Math.floor(Date.now() / 3_600_000) * 3600 - count * 3600;
  return Array.from({ length: count }, (_, i) => ({
    time: asSeconds(start + i * 3600),
    open: close,
    high: close,
    low: close,
    close,
    volume: 1,
    tvl: 100,
  }));
}

/** A datafeed whose answers the test hands out when it wants, and whose live listeners it drives. */
function heldDatafeed() {
  const asked: { symbol: string; answer: (answer: BarsAnswer) => void }[] = [];
  const live: { symbol: string; listener: BarListener; stopped: boolean }[] = [];
  const source = {
    bars: (info: LibrarySymbolInfo) => new Promise<BarsAnswer>((answer) => asked.push({ symbol: info.name, answer })),
    onBars: (info: LibrarySymbolInfo, _resolution: ResolutionString, listener: BarListener) => {
      const entry = { symbol: info.name, listener, stopped: false };
      live.push(entry);
      return () => {
        entry.stopped = true;
      };
    },
  } as unknown as UdfDatafeed;
  return { source, asked, live };
}

/** Every call a session makes of its sink, by name. */
function recordingSink(): { sink: SessionSink; calls: string[] } {
  const calls: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      calls.push(args.length > 0 ? `${name}:${JSON.stringify(args[0])}` : name);
  const sink: SessionSink = {
    loading: record('loading'),
    failed: record('failed'),
    ready: record('ready'),
    olderLoading: record('olderLoading'),
    olderLoaded: record('olderLoaded'),
    live: record('live'),
    newest: record('newest'),
    replaced: record('replaced'),
    presented: record('presented'),
    reload: record('reload'),
  };
  return { sink, calls };
}

describe('a chart session', () => {
  it('loads its first page into the book, then follows the newest bars', async () => {
    const feed = heldDatafeed();
    const book = new BarBook();
    const { sink, calls } = recordingSink();
    const session = new ChartSession(
      { info: SNEK, resolution: '60' as ResolutionString, usd: undefined },
      book,
      sink,
      new BarLoader(feed.source, Date.now),
    );
    session.start();
    expect(calls).toEqual(['loading']);
    ensureDefined(feed.asked[0]).answer({ bars: bars(1), noData: false });
    await vi.waitFor(() => expect(calls).toEqual(['loading', 'ready:false', 'live:true']));
    expect(book.raw.map((bar) => bar.close)).toEqual([1, 1, 1, 1, 1]);
    const newest = ensureDefined(book.raw.at(-1));
    ensureDefined(feed.live[0]).listener.onBar({ ...newest, close: 2 });
    expect(book.raw.at(-1)?.close).toBe(2);
    expect(calls.at(-1)).toBe('newest:false');
  });

  it('once disposed, neither its page nor its live bars reach the book or the sink, and its subscription is stopped', async () => {
    const feed = heldDatafeed();
    const book = new BarBook();
    const { sink, calls } = recordingSink();
    const loader = new BarLoader(feed.source, Date.now);
    const view = { info: SNEK, resolution: '60' as ResolutionString, usd: undefined };
    const following = new ChartSession(view, book, sink, loader);
    following.start();
    ensureDefined(feed.asked[0]).answer({ bars: bars(1), noData: false });
    await vi.waitFor(() => expect(feed.live).toHaveLength(1));
    following.dispose();
    expect(feed.live[0]?.stopped).toBe(true);
    const listener = ensureDefined(feed.live[0]).listener;
    const before = calls.length;
    listener.onBar({ ...ensureDefined(book.raw.at(-1)), close: 9 });
    listener.onReset?.();
    expect(book.raw.at(-1)?.close).toBe(1);
    expect(calls).toHaveLength(before);

    // Disposed while its page is on its way: the answer is dropped when it comes.
    const loading = new ChartSession(view, new BarBook(), sink, loader);
    loading.start();
    loading.dispose();
    const count = calls.length;
    ensureDefined(feed.asked[1]).answer({ bars: bars(7), noData: false });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toHaveLength(count);
    expect(feed.live).toHaveLength(1);
  });
});

describe('a chart changing view', () => {
  const charts: Chart[] = [];
  afterEach(() => {
    for (const chart of charts.splice(0)) chart.dispose();
  });

  it('shows the last view asked for, whatever order the answers come in, and follows only it live', async () => {
    const feed = heldDatafeed();
    const place = document.createElement('div');
    document.body.append(place);
    const chart = new Chart(place, {
      theme: 'dark',
      showVolume: true,
      showTvl: false,
      logScale: false,
      timeZone: 'utc',
    });
    charts.push(chart);
    chart.connect(feed.source);
    chart.setSymbol(SNEK, '60' as ResolutionString);
    chart.setSymbol(HOSKY, '60' as ResolutionString);
    expect(feed.asked.map((a) => a.symbol)).toEqual([SNEK.name, HOSKY.name]);
    // HOSKY's answer first, then SNEK's late one: SNEK's never shows.
    ensureDefined(feed.asked[1]).answer({ bars: bars(2, 4), noData: false });
    await vi.waitFor(() => expect(place.dataset.status).toBe('ready'));
    ensureDefined(feed.asked[0]).answer({ bars: bars(1, 9), noData: false });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(place.dataset).toMatchObject({ symbol: HOSKY.name, bars: '4', lastClose: '2' });
    expect(feed.live.map((l) => l.symbol)).toEqual([HOSKY.name]);

    // Back to SNEK: HOSKY's subscription stops, and a late HOSKY bar changes nothing.
    chart.setSymbol(SNEK, '60' as ResolutionString);
    expect(feed.live[0]?.stopped).toBe(true);
    // (HOSKY's older page may have been asked meanwhile: its answer would be dropped too.)
    ensureDefined(feed.asked.findLast((a) => a.symbol === SNEK.name)).answer({ bars: bars(1, 3), noData: true });
    await vi.waitFor(() => expect(place.dataset).toMatchObject({ symbol: SNEK.name, bars: '3' }));
    const hosky = ensureDefined(feed.live[0]).listener;
    hosky.onBar({
      ...ensureDefined(bars(2, 4).at(-1)),
      time: asSeconds(Math.floor(Date.now() / 1000) + 7200),
      close: 5,
    });
    await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
    expect(place.dataset).toMatchObject({ bars: '3', lastClose: '1' });
  });
});
