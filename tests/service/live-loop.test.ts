import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFault, removeFault } from '../support/sqlite-faults';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService | undefined;

afterEach(async () => {
  service?.runtime.simulator.stop();
  service?.close();
  service = undefined;
  vi.useRealTimers();
});

describe('live trading loop', () => {
  it('produces blocks as the clock reaches them', async () => {
    vi.useFakeTimers();
    service = await createTestService();
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
    const own = await createTestService();
    service = own;
    const { simulator } = own.runtime;
    const { store } = runtimeInternals(own.runtime);
    const clock = own.clock;
    const errors: unknown[] = [];
    simulator.start(
      () => clock.seconds(),
      (error) => errors.push(error),
    );
    const height = simulator.blockHeight;
    const trades = () => store.trades.count();
    const stored = await trades();

    // Every write now fails, as on a full disk.
    installFault(
      own.dataDir,
      'full',
      `BEFORE INSERT ON trades BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
    clock.advanceSeconds(300);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(errors.length).toBeGreaterThan(0);
    expect(await trades()).toBe(stored);
    expect(simulator.blockHeight).toBe(height);
    // Reads go on, and /healthz says writes are failing, and why.
    const degraded = (await (await own.request('/healthz', { key: null })).json()) as {
      status: string;
      lastCommitError?: { message: string };
    };
    expect(degraded.status).toBe('degraded');
    expect(degraded.lastCommitError?.message).toBe('database or disk is full');
    expect((await own.request('/api/v1/groups')).status).toBe(200);

    removeFault(own.dataDir, 'full');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(simulator.blockHeight).toBeGreaterThan(height);
    expect(await trades()).toBeGreaterThan(stored);
    expect(((await (await own.request('/healthz', { key: null })).json()) as { status: string }).status).toBe('ok');
  });
});
