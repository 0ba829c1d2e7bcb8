import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestService, type TestService } from '../support/service';

let service: TestService | undefined;

afterEach(() => {
  service?.runtime.simulator.stop();
  service?.close();
  service = undefined;
  vi.useRealTimers();
});

describe('live trading loop', () => {
  it('produces blocks as the clock reaches them', async () => {
    vi.useFakeTimers();
    service = createTestService();
    const { simulator } = service.runtime;
    const clock = service.clock;
    simulator.start(() => clock.seconds());
    const height = simulator.blockHeight;
    clock.advanceSeconds(600);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(simulator.blockHeight).toBeGreaterThan(height + 10);
  });

  it('reports a failed block and retries it instead of crashing', async () => {
    vi.useFakeTimers();
    service = createTestService();
    const { simulator, db } = service.runtime;
    const clock = service.clock;
    const errors: unknown[] = [];
    simulator.start(() => clock.seconds(), (error) => errors.push(error));
    const height = simulator.blockHeight;
    const trades = () => (db.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n;
    const stored = trades();

    db.pragma('query_only = ON'); // every write now fails, as on a full disk
    clock.advanceSeconds(300);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(errors.length).toBeGreaterThan(0);
    expect(trades()).toBe(stored);
    expect(simulator.blockHeight).toBe(height);

    db.pragma('query_only = OFF');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(simulator.blockHeight).toBeGreaterThan(height);
    expect(trades()).toBeGreaterThan(stored);
  });
});
