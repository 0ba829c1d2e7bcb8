import type * as LightweightCharts from 'lightweight-charts';
import type { IChartApi, Time, TimeScaleOptions } from 'lightweight-charts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bar, LibrarySymbolInfo, ResolutionString, UdfDatafeed } from '../../src/datafeed';
import { Chart } from '../../src/app/features/chart/lib/chart';
import { legendOf, type ChartAppearance } from '../../src/app/features/chart/lib/chart-style';
import { LegendView } from '../../src/app/features/chart/lib/legend-view';
import { formatDateTime } from '../../src/app/lib/time-format';
import { asSeconds } from '../../src/shared/time';
import { ensureDefined } from '../support/ensure';

/** Every chart lightweight-charts creates, to read what the controller gave it. */
const { charts } = vi.hoisted(() => ({ charts: [] as unknown[] }));
vi.mock('lightweight-charts', async (importOriginal) => {
  const actual = await importOriginal<typeof LightweightCharts>();
  return {
    ...actual,
    createChart: (...args: Parameters<typeof actual.createChart>) => {
      const chart = actual.createChart(...args);
      charts.push(chart);
      return chart;
    },
  };
});

// Times in New York: UTC−5 in winter, UTC−4 in summer; daylight saving time ends 2025-11-02 06:00 UTC.
const savedTz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const controllers: Chart[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.dispose();
  charts.length = 0;
});

/** A datafeed that answers every `bars` with `bars` (a pool without live updates): times no market has (a DST change). */
function stubDatafeed(bars: readonly Bar[]): UdfDatafeed {
  return {
    bars: () => Promise.resolve({ bars: [...bars], noData: false }),
    onBars: () => () => {},
  } as unknown as UdfDatafeed;
}

const INFO: LibrarySymbolInfo = {
  name: 'ADA.SNEK_Minswap_Pool1',
  description: 'ADA/SNEK on Minswap',
  type: 'spot',
  session: '24x7',
  timezone: 'Etc/UTC',
  // No group: the controller starts no live updates or refresh timer.
  exchange: '',
  listed_exchange: '',
  format: 'price',
  pricescale: 10_000,
  minmov: 1,
};

function barsEvery(startMs: number, stepS: number, count: number): Bar[] {
  return Array.from({ length: count }, (_, i) => ({
    time: asSeconds(startMs / 1000 + i * stepS),
    open: 1,
    high: 1.2,
    low: 0.9,
    close: 1.1,
    volume: 10,
    tvl: 1000 + i,
  }));
}

const appearance = (timeZone: 'utc' | 'local', showTvl = false): ChartAppearance => ({
  theme: 'dark',
  showVolume: true,
  showTvl,
  logScale: false,
  timeZone,
});

async function draw(bars: readonly Bar[], resolution: ResolutionString, look: ChartAppearance) {
  const container = document.createElement('div');
  document.body.append(container);
  const controller = new Chart(container, look);
  controllers.push(controller);
  controller.setSymbol(INFO, resolution);
  controller.connect(stubDatafeed(bars));
  await vi.waitFor(() => expect(container.dataset.status).toBe('ready'));
  const chart = ensureDefined(charts.at(-1)) as IChartApi;
  const candles = ensureDefined(chart.panes()[0]?.getSeries()[0]);
  const times = () => candles.data().map((d) => Number(d.time));
  const options = chart.options();
  const label = (time: number) => ensureDefined(options.localization.timeFormatter)(time as Time);
  const tick = (time: number, type: number) =>
    ensureDefined((options.timeScale as TimeScaleOptions).tickMarkFormatter)(time as Time, type, 'en-US');
  return { container, controller, chart, times, label, tick };
}

describe('chart times in Local mode', () => {
  it('puts day marks at local midnight: bar times move by the zone offset, for display only', async () => {
    const bars = barsEvery(Date.UTC(2025, 0, 15, 0, 0), 3600, 36);
    const { container, controller, times, label, tick } = await draw(bars, '60', appearance('local'));
    const localMidnight = Date.UTC(2025, 0, 15, 5, 0) / 1000;
    const index = bars.findIndex((b) => b.time === localMidnight);
    // lightweight-charts lays times out in UTC: local midnight must be a UTC midnight to it.
    expect(ensureDefined(times()[index]) % 86_400).toBe(0);
    expect(times()).toEqual(bars.map((b) => b.time - 5 * 3600));
    expect(label(ensureDefined(times()[index]))).toBe('2025-01-15 00:00');
    expect(tick(ensureDefined(times()[index]), 2)).toBe('15');
    // The data stay in true UTC: attributes (tests, URL), the bars in view (CSV).
    expect(container.dataset.lastTime).toBe(String(ensureDefined(bars.at(-1)).time));
    expect(controller.visibleBars().map((b) => b.time)).toEqual(bars.map((b) => b.time));

    controller.setAppearance(appearance('utc'));
    expect(times()).toEqual(bars.map((b) => b.time));
    expect(label(localMidnight)).toBe('2025-01-15 05:00 UTC');
  });

  it('keeps times ascending and labels right when daylight saving time ends (a local hour repeats)', async () => {
    const bars = barsEvery(Date.UTC(2025, 10, 2, 4, 0), 900, 24);
    const { times, label } = await draw(bars, '15', appearance('local'));
    const shown = times();
    expect(shown).toHaveLength(bars.length);
    for (let i = 1; i < shown.length; i++) expect(ensureDefined(shown[i])).toBeGreaterThan(ensureDefined(shown[i - 1]));
    bars.forEach((bar, i) => expect(label(ensureDefined(shown[i]))).toBe(formatDateTime(bar.time, 'local')));
    // 05:00 and 06:00 UTC are both 01:00 in New York (EDT, then EST).
    expect(label(ensureDefined(shown[4]))).toBe('2025-11-02 01:00');
    expect(label(ensureDefined(shown[8]))).toBe('2025-11-02 01:00');
  });

  it('leaves daily bars (UTC days) in place and labels them with their UTC date', async () => {
    const bars = barsEvery(Date.UTC(2025, 0, 10), 86_400, 10);
    const { times, label, tick } = await draw(bars, '1D', appearance('local'));
    expect(times()).toEqual(bars.map((b) => b.time));
    expect(tick(Date.UTC(2025, 0, 15) / 1000, 2)).toBe('15');
    expect(label(Date.UTC(2025, 0, 15) / 1000)).toBe('2025-01-15');
  });
});

describe('the TVL pane', () => {
  it('keeps its price-axis labels inside the pane (margins, whole labels only)', async () => {
    const { chart } = await draw(barsEvery(Date.UTC(2025, 0, 15), 3600, 50), '60', appearance('utc', true));
    const tvl = ensureDefined(chart.panes()[1]?.getSeries()[0]);
    const scale = tvl.priceScale().options();
    expect(scale.scaleMargins.top).toBeGreaterThanOrEqual(0.2);
    expect(scale.scaleMargins.bottom).toBeGreaterThanOrEqual(0.2);
    expect(scale.entireTextOnly).toBe(true);
  });
});

describe("a chart shown from bars in hand (the page's first paint)", () => {
  const AGGREGATE: LibrarySymbolInfo = {
    ...INFO,
    name: 'ADA.SNEK_Aggregate_Pool1',
    exchange: 'Aggregate',
    listed_exchange: 'Aggregate',
    ticker: 'e943c11a',
  };

  it('is ready without a datafeed; once connected it asks nothing for those bars and follows them live from the newest', async () => {
    // A page of bars: the view shows the newest, far from the oldest (no older page is asked).
    const bars = barsEvery(Date.UTC(2025, 0, 15), 3600, 300);
    const place = document.createElement('div');
    document.body.append(place);
    const chart = new Chart(place, appearance('utc'));
    controllers.push(chart);
    chart.showBars(AGGREGATE, '60', bars);
    expect(place.dataset.status).toBe('ready');
    expect(place.dataset.bars).toBe('300');
    const asked: unknown[] = [];
    const followed: { newest: Bar | undefined; onBar: (bar: Bar) => void }[] = [];
    chart.connect({
      bars: (...args: unknown[]) => {
        asked.push(args);
        return Promise.resolve({ bars: [], noData: true });
      },
      onBars: (
        _info: LibrarySymbolInfo,
        _resolution: ResolutionString,
        listener: { onBar: (bar: Bar) => void },
        newest?: Bar,
      ) => {
        followed.push({ newest, onBar: listener.onBar });
        return () => undefined;
      },
    } as unknown as UdfDatafeed);
    // The same symbol again (the app's stand-in, then the resolved one): nothing is loaded again.
    chart.setSymbol(AGGREGATE, '60');
    expect(asked).toEqual([]);
    expect(place.dataset.live).toBe('true');
    expect(followed[0]?.newest).toEqual(bars.at(-1));
    // A live bar after the newest is drawn (on the next frame, with whatever else came by then).
    const next = { ...ensureDefined(bars.at(-1)), time: asSeconds(ensureDefined(bars.at(-1)).time + 3600), close: 2 };
    followed[0]?.onBar(next);
    followed[0]?.onBar({ ...next, close: 3 });
    expect(place.dataset.bars).toBe('300');
    await vi.waitFor(() => expect(place.dataset.bars).toBe('301'));
    expect(place.dataset.lastClose).toBe('3');
    expect(chart.getState().bars).toBe(301);
  });

  it('moves, as drawn, into the place it is given, which then carries its attributes', () => {
    const first = document.createElement('div');
    const second = document.createElement('div');
    document.body.append(first, second);
    const chart = new Chart(first, appearance('utc'));
    controllers.push(chart);
    chart.showBars(INFO, '60', barsEvery(Date.UTC(2025, 0, 15), 3600, 10));
    const view = first.querySelector('.chart__view');
    chart.place(second);
    expect(second.querySelector('.chart__view')).toBe(view);
    expect(first.querySelector('.chart__view')).toBeNull();
    expect(second.dataset).toMatchObject({
      status: 'ready',
      bars: '10',
      symbol: INFO.name,
      resolution: '60',
      theme: 'dark',
    });
  });
});

describe('the chart legend', () => {
  const bar = (open: number, close: number) =>
    legendOf({
      time: asSeconds(1_738_332_000),
      open,
      high: Math.max(open, close),
      low: Math.min(open, close),
      close,
      volume: 1234.5,
      tvl: 8_590_000,
    });
  const legendIn = (pricescale: number | undefined, title: string | undefined, shown = bar(1, 1.1)) => {
    const parent = document.createElement('div');
    document.body.append(parent);
    const legend = new LegendView(parent);
    legend.setTitle(title);
    legend.setPricescale(pricescale);
    legend.show(shown);
    return legend.element;
  };

  it('colours a change by its rounded value: 0.00% is neither up nor down', () => {
    const legend = legendIn(10_000, 'ADA/SNEK on Aggregate', bar(1, 1.00004));
    const change = [...legend.querySelectorAll('dd')].find((dd) => dd.textContent === '0.00%');
    expect(change?.classList.contains('trend--flat')).toBe(true);
  });

  it('writes prices with an adaptive precision while the pricescale is unknown (0: a stand-in symbol)', () => {
    expect(legendIn(0, undefined, bar(1.2, 1.23456)).querySelector('[data-testid="legend-close"]')?.textContent).toBe(
      '1.2346',
    );
  });

  it('is a valid description list: only dt/dd groups inside the <dl>, the title outside; hidden without a bar', () => {
    const legend = legendIn(100, 'ADA/SNEK on Aggregate');
    expect(legend.textContent).toContain('ADA/SNEK on Aggregate');
    expect(legend.getAttribute('role')).toBe('group');
    expect(legend.getAttribute('aria-label')).toBe('Bar values');
    const list = legend.querySelector('dl');
    for (const child of Array.from(list?.children ?? [])) {
      expect(child.tagName).toBe('DIV');
      expect(Array.from(child.children).map((c) => c.tagName)).toEqual(['DT', 'DD']);
    }
    const empty = new LegendView(document.body);
    empty.show(undefined);
    expect(empty.element.hidden).toBe(true);
  });

  it('has a button that shows every field when the legend is compact (narrow screens)', () => {
    const legend = legendIn(100, 'ADA/SNEK on Aggregate');
    const more = ensureDefined(legend.querySelector<HTMLButtonElement>('button[aria-label="All bar values"]'));
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(legend.dataset.expanded).toBe('false');
    more.click();
    expect(more.getAttribute('aria-expanded')).toBe('true');
    expect(legend.dataset.expanded).toBe('true');
    expect(more.getAttribute('aria-controls')).toBe(legend.querySelector('dl')?.id);
  });
});
