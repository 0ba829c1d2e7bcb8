import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../src/server/progress';

/** A non-terminal stream that keeps what is written (logs, CI). */
function logStream(): NodeJS.WriteStream & { text: string } {
  const stream = { isTTY: false, text: '', write: (chunk: string) => ((stream.text += chunk), true) };
  return stream as unknown as NodeJS.WriteStream & { text: string };
}

describe('the start progress in a log', () => {
  it('prints each phase at most every 10 %, the bars phase of a first start after the backfill', () => {
    const stream = logStream();
    const reporter = progressReporter(stream);
    for (let done = 0; done <= 100; done += 5)
      reporter.onProgress({ phase: 'backfill', done, total: 100, trades: done * 10 });
    for (let done = 0; done <= 1000; done += 250)
      reporter.onProgress({ phase: 'bars', done, total: 1000, trades: done });
    reporter.stop();
    expect(stream.text.split('\n').filter(Boolean)).toEqual([
      ...[10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((pct) => `backfill: ${pct}% (${pct * 10} trades)`),
      'bars: 20% (250 trades)',
      'bars: 50% (500 trades)',
      'bars: 70% (750 trades)',
      'bars: 100% (1000 trades)',
    ]);
  });

  it('says nothing for a phase that was already done (a restart with nothing to catch up)', () => {
    const stream = logStream();
    const reporter = progressReporter(stream);
    reporter.onProgress({ phase: 'catch-up', done: 1, total: 1, trades: 0 });
    reporter.stop();
    expect(stream.text).toBe('');
  });
});
