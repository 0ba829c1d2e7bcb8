/**
 * A clock whose timers fire only when the test moves it (`advance`): what time-based code that takes an
 * injectable clock (the logo queue's `LogoQueueClock`) runs on in tests, with no wait and no real timer.
 */
export interface ManualTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Moves the clock forward, firing every timer that falls due, in order. */
  advance(ms: number): void;
  /** Due times (Unix ms) of the timers not yet fired, earliest first. */
  readonly scheduled: () => number[];
}

export function createManualTimers(startMs = Date.UTC(2025, 0, 15, 12)): ManualTimers {
  let nowMs = startMs;
  let nextId = 1;
  const timers = new Map<number, { due: number; callback: () => void }>();
  return {
    now: () => nowMs,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { due: nowMs + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      if (ms < 0) throw new Error('the clock only moves forward');
      const end = nowMs + ms;
      for (;;) {
        const next = [...timers.entries()].filter(([, t]) => t.due <= end).sort((a, b) => a[1].due - b[1].due)[0];
        if (!next) break;
        timers.delete(next[0]);
        nowMs = next[1].due;
        next[1].callback();
      }
      nowMs = end;
    },
    scheduled: () => [...timers.values()].map((t) => t.due).sort((a, b) => a - b),
  };
}
