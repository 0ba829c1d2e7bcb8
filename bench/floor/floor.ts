import { CandlestickSeries, createChart, type UTCTimestamp } from 'lightweight-charts';

/**
 * The floor of the app benchmark's first-candles measure (bench/app.ts): the least a page can do to
 * show the same candles from the same server — one /gw/v1/history request (the app's first one: the
 * last bars before now, with TVL) drawn with lightweight-charts alone. No framework, no datafeed, no
 * symbol lookup. Its `floor:candles` mark is set where the app sets `chart:candles`: right after the
 * bars are handed to the chart.
 */

interface HistoryBody {
  readonly s: string;
  readonly t?: number[];
  readonly o?: number[];
  readonly h?: number[];
  readonly l?: number[];
  readonly c?: number[];
}

async function draw(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const symbol = params.get('symbol') ?? '';
  const resolution = params.get('resolution') ?? '60min';
  const step = Number(params.get('step') ?? '3600');
  const countback = Number(params.get('countback') ?? '300');
  const to = Math.floor(Date.now() / 1000) + step;
  const query = new URLSearchParams({
    symbol,
    resolution,
    to: String(to),
    countback: String(countback),
    include_tvl: 'true',
  });
  const body = (await (await fetch(`/gw/v1/history?${query.toString()}`)).json()) as HistoryBody;
  const element = document.getElementById('chart');
  if (!element) throw new Error('no #chart element');
  const chart = createChart(element, { autoSize: true });
  const candles = chart.addSeries(CandlestickSeries);
  const { t = [], o = [], h = [], l = [], c = [] } = body;
  candles.setData(
    t.map((time, i) => ({
      time: time as UTCTimestamp,
      open: o[i] ?? 0,
      high: h[i] ?? 0,
      low: l[i] ?? 0,
      close: c[i] ?? 0,
    })),
  );
  if (t.length > 0) performance.mark('floor:candles', { detail: { bars: t.length } });
  chart.timeScale().fitContent();
}

void draw();
