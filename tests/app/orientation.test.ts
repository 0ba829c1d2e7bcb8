import { describe, expect, it } from 'vitest';
import { invertBar, invertPercent, invertPrice, pairLabel, priceUnit } from '../../src/app/lib/orientation';
import { asSeconds } from '../../src/shared/time';

describe('orientation', () => {
  it('names the pair as trading screens do (token/ADA), and the other way when inverted', () => {
    const pair = { base: 'ADA', quote: 'SNEK' };
    expect(pairLabel(pair)).toBe('SNEK/ADA');
    expect(priceUnit(pair)).toBe('ADA');
    expect(pairLabel(pair, true)).toBe('ADA/SNEK');
    expect(priceUnit(pair, true)).toBe('SNEK');
  });

  it('inverts prices, percent changes and bars (high and low swap), and twice gives back the bar', () => {
    expect(invertPrice(0.004)).toBeCloseTo(250, 12);
    expect(invertPrice(0)).toBe(0);
    expect(invertPercent(100)).toBeCloseTo(-50, 12);
    expect(invertPercent(-50)).toBeCloseTo(100, 12);
    expect(invertPercent(0)).toBe(0);
    const bar = { time: asSeconds(60), open: 0.004, high: 0.005, low: 0.0025, close: 0.0045, volume: 10, tvl: 1000 };
    const inverted = invertBar(bar);
    expect(inverted).toMatchObject({ time: 60, volume: 10, tvl: 1000 });
    expect(inverted.open).toBeCloseTo(250, 9);
    expect(inverted.high).toBeCloseTo(400, 9);
    expect(inverted.low).toBeCloseTo(200, 9);
    expect(inverted.high).toBeGreaterThanOrEqual(inverted.low);
    const back = invertBar(inverted);
    for (const key of ['open', 'high', 'low', 'close'] as const) expect(back[key]).toBeCloseTo(bar[key], 15);
  });
});
