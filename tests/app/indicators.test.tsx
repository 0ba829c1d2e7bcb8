import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type * as LightweightCharts from 'lightweight-charts';
import type { IChartApi, ISeriesApi, SeriesType } from 'lightweight-charts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indicatorLines } from '../../src/app/features/chart/lib/indicator-series';
import { INDICATOR_ADD_MARK, INDICATOR_DRAWN_MEASURE } from '../../src/app/features/chart/lib/marks';
import { parseIndicators } from '../../src/app/lib/indicators';
import type { Bar } from '../../src/shared/bars';
import { asSeconds } from '../../src/shared/time';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, forceTradesOn } from '../support/market';
import { appTestBed, chartReady } from './render-app';

/** Every chart lightweight-charts creates, to read what the app drew. */
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
afterEach(() => {
  charts.length = 0;
});

/** Bars of these closes (high and low around them, volume given), one a minute. */
function bars(rows: readonly (readonly [close: number, high: number, low: number, volume: number])[]): Bar[] {
  return rows.map(([close, high, low, volume], i) => ({
    time: asSeconds(60 * i),
    open: close,
    high,
    low,
    close,
    volume,
    tvl: 1000,
  }));
}

const CLOSES = [10, 11, 12, 11, 13, 14, 13, 15];
const SERIES = bars(CLOSES.map((c) => [c, c, c, 1] as const));
const line = (spec: string, id: string) =>
  ensureDefined(
    indicatorLines(ensureDefined(parseIndicators(spec)[0]), SERIES).find((l) => l.id === id),
    id,
  ).values;

function expectValues(actual: readonly (number | null)[], expected: readonly (number | null)[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((value, i) => {
    if (value === null) expect(actual[i], `point ${i}`).toBeNull();
    else expect(actual[i], `point ${i}`).toBeCloseTo(value, 9);
  });
}

describe('indicator values, against hand-computed ones (closes 10 11 12 11 13 14 13 15)', () => {
  it('SMA 3: the mean of the last three closes, from the third bar', () => {
    expectValues(line('sma3', 'sma'), [null, null, 11, 34 / 3, 12, 38 / 3, 40 / 3, 14]);
  });

  it('EMA 3: k = 2 / (3 + 1) = 0.5, seeded with the first close', () => {
    // 10; 10 + 0.5·(11 − 10) = 10.5; 10.5 + 0.5·1.5 = 11.25; 11.25 − 0.125 = 11.125; …
    expectValues(line('ema3', 'ema'), [10, 10.5, 11.25, 11.125, 12.0625, 13.03125, 13.015625, 14.0078125]);
  });

  it('Bollinger bands 3, 2: the SMA ± 2 population standard deviations', () => {
    const sd = (xs: number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
    };
    // [10 11 12]: mean 11, variance 2/3; [11 12 11]: mean 34/3, variance 2/9; …
    const upper = [
      null,
      null,
      11 + 2 * Math.sqrt(2 / 3),
      34 / 3 + 2 * Math.sqrt(2 / 9),
      ...[2, 3, 4, 5].map(
        (i) => CLOSES.slice(i, i + 3).reduce((a, b) => a + b, 0) / 3 + 2 * sd(CLOSES.slice(i, i + 3)),
      ),
    ];
    const lower = [
      null,
      null,
      11 - 2 * Math.sqrt(2 / 3),
      34 / 3 - 2 * Math.sqrt(2 / 9),
      ...[2, 3, 4, 5].map(
        (i) => CLOSES.slice(i, i + 3).reduce((a, b) => a + b, 0) / 3 - 2 * sd(CLOSES.slice(i, i + 3)),
      ),
    ];
    expectValues(line('bb3-2', 'bb-upper'), upper);
    expectValues(line('bb3-2', 'bb-middle'), [null, null, 11, 34 / 3, 12, 38 / 3, 40 / 3, 14]);
    expectValues(line('bb3-2', 'bb-lower'), lower);
    expect(line('bb3-2', 'bb-upper')[2]).toBeCloseTo(12.632993161855453, 12);
  });

  it('RSI 3: Wilder’s smoothing of gains and losses, from the fourth bar', () => {
    // Changes +1 +1 −1 +2 +1 −1 +2. First: gains 2/3, losses 1/3, RS 2 → 66.67. Then avg = (avg·2 + change) / 3:
    // gains 10/9, losses 2/9 → RS 5 → 83.33; 29/27, 4/27 → 87.88; 58/81, 35/81 → 62.37; 278/243, 70/243 → 79.89.
    const rsi = (gain: number, loss: number) => 100 - 100 / (1 + gain / loss);
    expectValues(line('rsi3', 'rsi'), [
      null,
      null,
      null,
      rsi(2 / 3, 1 / 3),
      rsi(10 / 9, 2 / 9),
      rsi(29 / 27, 4 / 27),
      rsi(58 / 81, 35 / 81),
      rsi(278 / 243, 70 / 243),
    ]);
    expect(line('rsi3', 'rsi')[3]).toBeCloseTo(66.666666667, 6);
  });

  it('VWAP: the typical price (high + low + close) / 3, cumulative, weighted by base volume', () => {
    const values =
      indicatorLines(
        { kind: 'vwap' },
        bars([
          [10, 12, 9, 100],
          [12, 13, 10, 200],
          [13, 14, 11, 100],
        ]),
      )[0]?.values ?? [];
    // 31/3; (31/3·100 + 35/3·200) / 300; (… + 38/3·100) / 400.
    expectValues(values, [31 / 3, (3100 / 3 + 7000 / 3) / 300, (3100 / 3 + 7000 / 3 + 3800 / 3) / 400]);
  });
});

describe('indicators on the live chart', () => {
  const bed = appTestBed();

  /** The line series the app drew with this title (lightweight-charts' own data). */
  function seriesTitled(title: string): ISeriesApi<SeriesType> {
    const chart = ensureDefined(charts.at(-1)) as IChartApi;
    const all = chart.panes().flatMap((pane) => pane.getSeries());
    return ensureDefined(
      all.find((s) => (s.options() as { title?: string }).title === title),
      title,
    );
  }

  const valuesOf = (series: ISeriesApi<SeriesType>) => series.data().map((d) => ('value' in d ? d.value : null));

  it('follow the live bar: a trade moves the last candle, and the SMA and RSI with it', async () => {
    const target = ensureDefined((await aggregatesByActivity(bed.tp.runtime))[0]);
    const { container } = bed.open(`/?symbol=${target.poolId}&res=1&ind=sma3,rsi3`);
    const chart = await chartReady(container);
    await waitFor(() => expect(chart.dataset.live).toBe('true'), { timeout: 10_000 });
    const candles = () => (ensureDefined(charts.at(-1)) as IChartApi).panes()[0]?.getSeries()[0]?.data() ?? [];
    const closes = () => candles().map((d) => ('close' in d ? d.close : Number.NaN));
    const sma = seriesTitled('SMA 3');
    const rsi = seriesTitled('RSI 3');
    const mean3 = (xs: number[]) => xs.slice(-3).reduce((a, b) => a + b, 0) / 3;
    expect(valuesOf(sma).at(-1)).toBeCloseTo(mean3(closes()), 12);
    // A point per bar once the indicator has enough of them (lightweight-charts keeps the first ones as blanks).
    expect(valuesOf(sma)).toHaveLength(closes().length - 2);
    expect(valuesOf(rsi)).toHaveLength(closes().length - 3);
    // RSI lives in a pane of its own.
    expect(rsi.getPane().paneIndex()).toBeGreaterThan(0);

    const before = { close: chart.dataset.lastClose, time: chart.dataset.lastTime, rsi: valuesOf(rsi).at(-1) };
    for (let i = 0; i < 20 && chart.dataset.lastClose === before.close && chart.dataset.lastTime === before.time; i++) {
      await act(async () => {
        await forceTradesOn(bed.tp.runtime, [target], bed.tp.nowSeconds());
      });
      await waitFor(
        () => expect(chart.dataset.lastClose !== before.close || chart.dataset.lastTime !== before.time).toBe(true),
        { timeout: 2000 },
      ).catch(() => undefined);
    }
    expect(chart.dataset.lastClose !== before.close || chart.dataset.lastTime !== before.time).toBe(true);
    // The lines were computed again with the live bar: the SMA ends on the mean of the last three closes now.
    expect(Number(chart.dataset.lastClose)).toBe(closes().at(-1));
    expect(valuesOf(sma).at(-1)).toBeCloseTo(mean3(closes()), 12);
    expect(valuesOf(sma)).toHaveLength(closes().length - 2);
    expect(valuesOf(rsi)).toHaveLength(closes().length - 3);
    expect(valuesOf(rsi).at(-1)).not.toBe(before.rsi);
  });

  it("leave a performance measure for the benchmark: picked in the menu -> the chart's frame with its lines", async () => {
    performance.clearMeasures(INDICATOR_DRAWN_MEASURE);
    const user = userEvent.setup();
    const { container } = bed.open('/?res=60');
    const chart = await chartReady(container);
    await user.click(screen.getByText('Indicators'));
    await user.click(screen.getByTestId('indicator-rsi'));
    await waitFor(() => expect(performance.getEntriesByName(INDICATOR_DRAWN_MEASURE)).toHaveLength(1));
    const measure = ensureDefined(performance.getEntriesByName(INDICATOR_DRAWN_MEASURE)[0]) as PerformanceMeasure;
    expect(measure.detail).toEqual({ indicators: 'RSI 14', bars: Number(chart.dataset.bars) });
    expect(measure.duration).toBeGreaterThanOrEqual(0);
    // The pick is measured once; taking an indicator off measures nothing.
    expect(performance.getEntriesByName(INDICATOR_ADD_MARK)).toHaveLength(0);
    await user.click(screen.getByTestId('indicator-rsi'));
    await waitFor(() => expect(chart.dataset.indicators).toBe(''));
    expect(performance.getEntriesByName(INDICATOR_DRAWN_MEASURE)).toHaveLength(1);
  });
});
