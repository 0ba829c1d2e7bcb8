import { describe, expect, it } from 'vitest';
import type { Bar } from '../../src/datafeed';
import { BarBook } from '../../src/app/features/chart/lib/bar-book';
import { invertBar } from '../../src/app/lib/orientation';
import { asSeconds } from '../../src/shared/time';

const T0 = 1_736_942_400;
const bar = (minute: number, close: number): Bar => ({
  time: asSeconds(T0 + minute * 60),
  open: close,
  high: close,
  low: close,
  close,
  volume: minute + 1,
  tvl: 1000,
});

describe('BarBook.replaceFrom (a chain rollback)', () => {
  it('puts the bars from a time on in place of those held, keeping the older ones, as shown', () => {
    const book = new BarBook();
    book.present({ inverted: true, usd: undefined, resolution: '1' });
    book.reset([bar(0, 2), bar(1, 4), bar(2, 5), bar(3, 8)]);
    // The chain went back into minute 1: minutes 1-3 are now one bar at minute 1 and one at minute 2.
    book.replaceFrom(T0 + 60, [bar(1, 3), bar(2, 6)]);
    expect(book.raw).toEqual([bar(0, 2), bar(1, 3), bar(2, 6)]);
    expect(book.shown).toEqual([bar(0, 2), bar(1, 3), bar(2, 6)].map(invertBar));
    // Live bars go on from the new newest.
    expect(book.merge(bar(2, 7))).toEqual({ bar: invertBar(bar(2, 7)), appended: false });
  });

  it('empties what follows when the server has no bar from there on', () => {
    const book = new BarBook();
    book.reset([bar(0, 2), bar(1, 4)]);
    book.replaceFrom(T0 + 60, []);
    expect(book.raw).toEqual([bar(0, 2)]);
    expect(book.shown).toEqual([bar(0, 2)]);
  });
});
