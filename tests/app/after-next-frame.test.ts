import { describe, expect, it } from 'vitest';
import { afterNextFrame, NEXT_FRAME_WAIT_MS, type FrameClock } from '@/app/lib/after-next-frame';

/** A clock the test drives: frames and timers run when the test says, in the order asked. */
function testClock(hidden = false) {
  const frames: (() => void)[] = [];
  let timers: { at: number; run: () => void; handle: number }[] = [];
  let now = 0;
  let next = 1;
  const clock: FrameClock = {
    requestAnimationFrame: (callback) => frames.push(callback),
    setTimeout: (callback, ms) => {
      const handle = next++;
      timers.push({ at: now + ms, run: callback, handle });
      return handle;
    },
    clearTimeout: (handle) => {
      timers = timers.filter((t) => t.handle !== handle);
    },
    hidden: () => hidden,
  };
  return {
    clock,
    /** The browser makes a frame: its animation-frame callbacks run. */
    frame: () => frames.splice(0).forEach((callback) => callback()),
    /** Time passes by `ms`: the timers due run, earliest first. */
    advance: (ms: number) => {
      now += ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) return;
        timers = timers.filter((t) => t !== due);
        due.run();
      }
    },
    pendingTimers: () => timers.length,
  };
}

describe('afterNextFrame (the app asked after the first frame of the chart the page drew: main.tsx)', () => {
  it('runs in a task after the next frame, not before it and not in it', () => {
    const t = testClock();
    let runs = 0;
    afterNextFrame(() => runs++, t.clock);
    t.advance(0);
    expect(runs).toBe(0);
    t.frame();
    // The frame's callbacks ran; the frame's style, layout and paint come before the next task.
    expect(runs).toBe(0);
    t.advance(0);
    expect(runs).toBe(1);
    // Once: the latest-by timer was cleared.
    expect(t.pendingTimers()).toBe(0);
    t.advance(NEXT_FRAME_WAIT_MS);
    expect(runs).toBe(1);
  });

  it('runs after the longest wait when no frame comes (a page hidden meanwhile), and once only', () => {
    const t = testClock();
    let runs = 0;
    afterNextFrame(() => runs++, t.clock, 200);
    t.advance(199);
    expect(runs).toBe(0);
    t.advance(1);
    expect(runs).toBe(1);
    // The frame comes late, when the page is shown again: nothing runs twice.
    t.frame();
    t.advance(0);
    expect(runs).toBe(1);
  });

  it('runs at once in a page not shown, which makes no frames', () => {
    const t = testClock(true);
    let runs = 0;
    afterNextFrame(() => runs++, t.clock);
    expect(runs).toBe(1);
    expect(t.pendingTimers()).toBe(0);
  });
});
