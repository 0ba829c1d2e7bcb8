import { describe, expect, it } from 'vitest';
import { normaliseSeries } from '../../src/app/features/compare/lib/normalise';
import { asSeconds as s } from '../../src/shared/time';

describe('normaliseSeries (compare mode)', () => {
  it('measures every series in percent from its own price at the common start', () => {
    const [aggregate, dex] = normaliseSeries([
      {
        id: 'agg',
        bars: [
          { time: s(100), close: 2 },
          { time: s(200), close: 2.2 },
          { time: s(300), close: 1.8 },
        ],
      },
      {
        id: 'dex',
        bars: [
          { time: s(200), close: 4 },
          { time: s(300), close: 5 },
        ],
      },
    ]);
    expect(aggregate?.points).toEqual([
      { time: 200, value: 0 },
      { time: 300, value: expect.closeTo(-18.1818, 3) },
    ]);
    expect(dex?.points).toEqual([
      { time: 200, value: 0 },
      { time: 300, value: 25 },
    ]);
    expect(dex?.last).toBe(25);
  });

  it('takes the close at or before the start as reference when a series has no bar at the start', () => {
    const [a, b] = normaliseSeries([
      {
        id: 'a',
        bars: [
          { time: s(100), close: 10 },
          { time: s(300), close: 11 },
        ],
      },
      {
        id: 'b',
        bars: [
          { time: s(200), close: 1 },
          { time: s(300), close: 0.5 },
        ],
      },
    ]);
    expect(a?.points).toEqual([
      { time: 200, value: 0 },
      { time: 300, value: expect.closeTo(10, 9) },
    ]);
    expect(b?.points).toEqual([
      { time: 200, value: 0 },
      { time: 300, value: -50 },
    ]);
  });

  it('leaves series without bars or without a positive reference empty', () => {
    const result = normaliseSeries([
      { id: 'empty', bars: [] },
      {
        id: 'zero',
        bars: [
          { time: s(100), close: 0 },
          { time: s(200), close: 1 },
        ],
      },
      {
        id: 'ok',
        bars: [
          { time: s(100), close: 1 },
          { time: s(200), close: 1.5 },
        ],
      },
    ]);
    expect(result.map((s) => s.points.length)).toEqual([0, 0, 2]);
    expect(result[0]?.last).toBeUndefined();
    expect(normaliseSeries([])).toEqual([]);
  });
});
