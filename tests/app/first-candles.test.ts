import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterFirstCandles, FIRST_CANDLES_MARK } from '../../src/app/lib/first-candles';

describe('afterFirstCandles', () => {
  afterEach(() => {
    performance.clearMarks(FIRST_CANDLES_MARK);
    vi.useRealTimers();
  });

  it('waits for the fallback when no chart has drawn candles, and a cancel stops it', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const run = vi.fn();
    afterFirstCandles(run, 100, 1000);
    vi.advanceTimersByTime(999);
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(1);

    const cancelled = vi.fn();
    afterFirstCandles(cancelled, 100, 1000)();
    vi.advanceTimersByTime(2000);
    expect(cancelled).not.toHaveBeenCalled();
  });

  it('runs a delay after the candles when they are already drawn', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    performance.mark(FIRST_CANDLES_MARK);
    const run = vi.fn();
    afterFirstCandles(run, 100, 1000);
    vi.advanceTimersByTime(99);
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(1);
  });
});
