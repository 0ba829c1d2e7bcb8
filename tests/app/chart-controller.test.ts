import type * as LightweightCharts from 'lightweight-charts';
import type { IChartApi, Time, TimeScaleOptions } from 'lightweight-charts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bar, LibrarySymbolInfo, ResolutionString, UdfDatafeed } from '../../src/datafeed';
import { ChartController, type ChartAppearance } from '../../src/app/features/chart/lib/chart-controller';
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

const controllers: ChartController[] = [];
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
  return Array.from({ length: count }, (_, i) => ({ time: asSeconds(startMs / 1000 + i * stepS), open: 1, high: 1.2, low: 0.9, close: 1.1, volume: 10, tvl: 1000 + i }));
}

const appearance = (timeZone: 'utc' | 'local', showTvl = false): ChartAppearance => ({ theme: 'dark', showVolume: true, showTvl, logScale: false, timeZone });

async function draw(bars: readonly Bar[], resolution: ResolutionString, look: ChartAppearance) {
  const container = document.createElement('div');
  document.body.append(container);
  const controller = new ChartController(container, stubDatafeed(bars), look);
  controllers.push(controller);
  controller.setSymbol(INFO, resolution);
  await vi.waitFor(() => expect(container.dataset.status).toBe('ready'));
  const chart = ensureDefined(charts.at(-1)) as IChartApi;
  const candles = ensureDefined(chart.panes()[0]?.getSeries()[0]);
  const times = () => candles.data().map((d) => Number(d.time));
  const options = chart.options();
  const label = (time: number) => ensureDefined(options.localization.timeFormatter)(time as Time);
  const tick = (time: number, type: number) => ensureDefined((options.timeScale as TimeScaleOptions).tickMarkFormatter)(time as Time, type, 'en-US');
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
