import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvent, barsFromEvents, rollupBars, type BarEvent } from '../../src/shared/bars';
import { RESOLUTIONS, bucketStart } from '../../src/shared/resolutions';

const event = (
  block_time: number,
  previous_price: number,
  current_price: number,
  volume = 1,
  current_tvl = 100,
): BarEvent => ({
  block_time,
  previous_price,
  current_price,
  current_tvl,
  volume,
});

describe('bar rule', () => {
  it('opens at the first previous_price, closes at the last current_price and spans every price between', () => {
    const [bar] = barsFromEvents(
      [event(60, 10, 12, 2, 500), event(70, 12, 8, 3, 480), event(119, 8, 9, 5, 490)],
      '1min',
    );
    expect(bar).toEqual({ time: 60, open: 10, high: 12, low: 8, close: 9, volume: 10, tvl: 490 });
  });

  it('counts the open in high and low', () => {
    const [bar] = barsFromEvents([event(0, 20, 15), event(1, 15, 16)], '1min');
    expect(bar?.high).toBe(20);
    expect(bar?.low).toBe(15);
  });

  it('omits buckets with no trade and aligns to UTC multiples', () => {
    const bars = barsFromEvents([event(59, 1, 2), event(185, 2, 3)], '1min');
    expect(bars.map((b) => b.time)).toEqual([0, 180]);
    expect(bucketStart(86_399 + 86_400, '1d')).toBe(86_400);
  });

  it('starts a new bar at a bucket boundary', () => {
    const first = applyEvent(undefined, event(299, 1, 2), '5min');
    const next = applyEvent(first, event(300, 2, 3), '5min');
    expect(next.time).toBe(300);
    expect(next.open).toBe(2);
  });

  it('a coarse bar equals the rollup of the fine bars inside it, at every resolution', () => {
    const events = fc.array(
      fc.record({
        dt: fc.integer({ min: 0, max: 4000 }),
        price: fc.double({ min: 0.001, max: 1000, noNaN: true }),
        volume: fc.integer({ min: 0, max: 1e6 }),
        tvl: fc.double({ min: 1, max: 1e9, noNaN: true }),
      }),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(events, (steps) => {
        let time = 1_700_000_000;
        let price = 1;
        const list: BarEvent[] = steps.map((s) => {
          time += s.dt;
          const e = event(time, price, s.price, s.volume, s.tvl);
          price = s.price;
          return e;
        });
        const fine = barsFromEvents(list, '1min');
        for (const resolution of RESOLUTIONS) {
          expect(rollupBars(fine, resolution)).toEqual(barsFromEvents(list, resolution));
        }
      }),
    );
  });
});
