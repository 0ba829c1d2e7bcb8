/** An injectable, advanceable wall clock in milliseconds (what `createServiceRuntime` takes as `nowMs`). */
export interface TestClock {
  /** Current time, Unix milliseconds. */
  readonly now: () => number;
  /** Current time, whole Unix seconds. */
  seconds(): number;
  advance(ms: number): void;
  advanceSeconds(seconds: number): void;
  set(ms: number): void;
}

/** 2025-01-15T12:00:00Z: the default start of the test market's clock (a round hour, mid-day UTC). */
export const DEFAULT_START_MS = Date.UTC(2025, 0, 15, 12, 0, 0);

export function createTestClock(startMs = DEFAULT_START_MS): TestClock {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    seconds: () => Math.floor(nowMs / 1000),
    advance: (ms) => {
      if (ms < 0) throw new Error('the test clock only moves forward');
      nowMs += ms;
    },
    advanceSeconds: (seconds) => {
      if (seconds < 0) throw new Error('the test clock only moves forward');
      nowMs += seconds * 1000;
    },
    set: (ms) => {
      nowMs = ms;
    },
  };
}
