import { describe, expect, it } from 'vitest';
import {
  AlertCheck,
  conditionProblem,
  describeCondition,
  rearm,
  type Alert,
  type PricePoint,
} from '../../src/app/features/alerts/lib/alert';
import {
  ALERTS_KEY,
  AlertBook,
  hasStoredAlerts,
  MAX_ALERTS,
  readAlerts,
  type NewAlert,
} from '../../src/app/features/alerts/lib/alert-book';
import { memoryStorage } from './render-app';

const MIN = 60_000;
const at = (minutes: number, price: number, previous?: number): PricePoint => ({
  time: minutes * MIN,
  price,
  ...(previous === undefined ? {} : { previous }),
});
const fires = (check: AlertCheck, points: PricePoint[]) => points.map((p) => check.observe(p)?.price);

describe('alert conditions', () => {
  it('crosses above: from below the threshold to at or above it, never from a price already above', () => {
    const check = new AlertCheck({ condition: { kind: 'above', price: 10 }, inverted: false });
    // Already above when armed (the trade's previous price 11): no cross; down and back up: a cross.
    expect(fires(check, [at(0, 12, 11), at(1, 9, 12), at(2, 9.5, 9), at(3, 10, 9.5), at(4, 11, 10)])).toEqual([
      undefined,
      undefined,
      undefined,
      10,
      undefined,
    ]);
  });

  it('crosses below, with prices that come without the price before them (asked, not traded)', () => {
    const check = new AlertCheck({ condition: { kind: 'below', price: 10 }, inverted: false });
    // The first price has nothing before it; then 12 → 9 crosses.
    expect(fires(check, [at(0, 12), at(1, 11), at(2, 9), at(3, 8), at(4, 12), at(5, 10)])).toEqual([
      undefined,
      undefined,
      9,
      undefined,
      undefined,
      10,
    ]);
  });

  it('an inverted pair compares the inverted prices (ADA/SNEK above 200 = SNEK/ADA below 0.005)', () => {
    const check = new AlertCheck({ condition: { kind: 'above', price: 200 }, inverted: true });
    const fired = check.observe(at(0, 0.0049, 0.0051));
    expect(fired?.price).toBeCloseTo(1 / 0.0049, 9);
    expect(check.observe(at(1, 0.0051, 0.0049))).toBeUndefined();
  });

  it('moves more than N % within T minutes, either way, measured from the prices of the window', () => {
    const check = new AlertCheck({ condition: { kind: 'move', percent: 5, minutes: 10 }, inverted: false });
    // 100 → 103 → 104.9: under 5 % from 100; 105.5 at minute 8 is 5.5 % above 100.
    expect(fires(check, [at(0, 103, 100), at(4, 104.9), at(8, 105.5)])).toEqual([undefined, undefined, 105.5]);
    const down = new AlertCheck({ condition: { kind: 'move', percent: 5, minutes: 10 }, inverted: false });
    const fired = [down.observe(at(0, 100, 100)), down.observe(at(3, 96)), down.observe(at(5, 94.9))];
    expect(fired[2]?.move).toBeCloseTo(-5.1, 6);
  });

  it("a move older than the window does not count: the price at the window's start is the last before it", () => {
    const check = new AlertCheck({ condition: { kind: 'move', percent: 5, minutes: 10 }, inverted: false });
    // 100 at minute 0, 104 at 5, then 106 at 20: 100 is out of the window, 104 was the price through its start (1.9 %).
    expect(fires(check, [at(0, 100, 100), at(5, 104), at(20, 106)])).toEqual([undefined, undefined, undefined]);
    // 111.4 at minute 21: 7.1 % above 104 (still in the window), the largest move reported.
    expect(check.observe(at(21, 111.4))?.move).toBeCloseTo(((111.4 - 104) / 104) * 100, 6);
  });

  it('prices that cannot be prices are ignored', () => {
    const check = new AlertCheck({ condition: { kind: 'below', price: 1 }, inverted: true });
    expect(fires(check, [at(0, 0), at(1, Number.NaN), at(2, -1)])).toEqual([undefined, undefined, undefined]);
  });

  it('says what is wrong with a condition, and what a condition is in words', () => {
    expect(conditionProblem({ kind: 'above', price: 0 })).toMatch(/above 0/);
    expect(conditionProblem({ kind: 'below', price: Number.NaN })).toMatch(/number/);
    expect(conditionProblem({ kind: 'move', percent: 0, minutes: 5 })).toMatch(/between/);
    expect(conditionProblem({ kind: 'move', percent: 5, minutes: 1.5 })).toMatch(/whole number/);
    expect(conditionProblem({ kind: 'move', percent: 5, minutes: 15 })).toBeUndefined();
    expect(describeCondition({ kind: 'move', percent: 5, minutes: 15 })).toBe('moves more than 5 % within 15 min');
    expect(describeCondition({ kind: 'above', price: 0.0042 })).toBe('crosses above 0.0042');
  });
});

const snek: NewAlert = {
  symbol: 'ADA.SNEK_Aggregate_Pool1',
  group: 'Aggregate',
  pool: 'pool1abc',
  label: 'SNEK/ADA on Aggregate',
  inverted: false,
  condition: { kind: 'above', price: 0.005 },
};

describe('the alert book', () => {
  it('keeps alerts in storage and reads them back on the next visit, armed ones still armed', () => {
    const storage = memoryStorage();
    expect(hasStoredAlerts(storage)).toBe(false);
    let now = 1_000;
    const book = new AlertBook(storage, () => now);
    const a = book.add(snek);
    const b = book.add({ ...snek, condition: { kind: 'move', percent: 3, minutes: 30 } });
    now = 2_000;
    expect(book.fire(a.id, { price: 0.0051, time: now })?.status).toBe('fired');
    // A second firing of the same alert is not one.
    expect(book.fire(a.id, { price: 0.0052, time: now })).toBeUndefined();
    expect(hasStoredAlerts(storage)).toBe(true);

    const next = new AlertBook(storage);
    expect(next.getSnapshot().map((x) => [x.id, x.status, x.firedPrice])).toEqual([
      [a.id, 'fired', 0.0051],
      [b.id, 'armed', undefined],
    ]);
    next.rearm(a.id);
    next.edit(b.id, { kind: 'below', price: 0.004 });
    next.remove(a.id);
    expect(readAlerts(storage.getItem(ALERTS_KEY))).toEqual([{ ...b, condition: { kind: 'below', price: 0.004 } }]);
  });

  it('refuses a condition that cannot be armed and more than MAX_ALERTS alerts', () => {
    const book = new AlertBook(memoryStorage());
    expect(() => book.add({ ...snek, condition: { kind: 'above', price: -1 } })).toThrow(/above 0/);
    for (let i = 0; i < MAX_ALERTS; i++) book.add(snek);
    expect(() => book.add(snek)).toThrow(/At most/);
    expect(new Set(book.getSnapshot().map((a) => a.id)).size).toBe(MAX_ALERTS);
  });

  it('drops what storage holds that is not an alert, keeping the rest', () => {
    const good: Alert = { ...snek, id: 'x', createdAt: 1, status: 'armed' };
    expect(readAlerts('not json')).toEqual([]);
    expect(readAlerts('{"a":1}')).toEqual([]);
    expect(
      readAlerts(
        JSON.stringify([good, { ...good, condition: { kind: 'move', percent: -3, minutes: 5 } }, { id: 'y' }]),
      ),
    ).toEqual([good]);
    expect(rearm({ ...good, status: 'fired', firedAt: 5, firedPrice: 1 })).toEqual(good);
  });
});
