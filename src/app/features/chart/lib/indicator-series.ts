import { BollingerBands, EMA, RSI, SMA, VWAP } from 'trading-signals';
import type { Bar } from '@/datafeed';
import type { IndicatorSpec } from '@/app/lib/indicators';

/** One line of an indicator: points by bar index (null before the indicator has enough bars). */
export interface IndicatorLine {
  readonly id: string;
  readonly title: string;
  readonly values: (number | null)[];
  /** 0: over the price; 'rsi': its own pane. */
  readonly pane: 'price' | 'rsi';
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The lines of an indicator over bars (oldest first), computed with trading-signals. */
export function indicatorLines(spec: IndicatorSpec, bars: readonly Bar[]): IndicatorLine[] {
  switch (spec.kind) {
    case 'sma':
    case 'ema': {
      const indicator = spec.kind === 'sma' ? new SMA(spec.period) : new EMA(spec.period);
      const values = bars.map((b) => num(indicator.add(b.close)));
      return [{ id: spec.kind, title: `${spec.kind.toUpperCase()} ${spec.period}`, values, pane: 'price' }];
    }
    case 'bb': {
      const indicator = new BollingerBands(spec.period, spec.mult);
      const results = bars.map((b) => indicator.add(b.close));
      const pick = (key: 'upper' | 'middle' | 'lower') => results.map((r) => num(r?.[key]));
      return [
        { id: 'bb-upper', title: `BB ${spec.period} ${spec.mult}`, values: pick('upper'), pane: 'price' },
        { id: 'bb-middle', title: '', values: pick('middle'), pane: 'price' },
        { id: 'bb-lower', title: '', values: pick('lower'), pane: 'price' },
      ];
    }
    case 'vwap': {
      // Cumulative over the bars loaded, weighted by each bar's base volume.
      const indicator = new VWAP();
      const values = bars.map((b) =>
        num(indicator.add({ high: b.high, low: b.low, close: b.close, volume: b.volume ?? 0 })),
      );
      return [{ id: 'vwap', title: 'VWAP', values, pane: 'price' }];
    }
    case 'rsi': {
      const indicator = new RSI(spec.period);
      const values = bars.map((b) => num(indicator.add(b.close)));
      return [{ id: 'rsi', title: `RSI ${spec.period}`, values, pane: 'rsi' }];
    }
  }
}
