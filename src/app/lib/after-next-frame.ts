/** Longest wait for the frame: a tab shown late has no frames meanwhile (its timers still run). */
export const NEXT_FRAME_WAIT_MS = 500;

/** What `afterNextFrame` waits with: the browser's, or a test's. */
export interface FrameClock {
  readonly requestAnimationFrame: (callback: () => void) => unknown;
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
  /** Whether the page is not shown (no frames come then). */
  readonly hidden: () => boolean;
}

const browserClock = (): FrameClock => ({
  requestAnimationFrame: (callback) => requestAnimationFrame(callback),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  hidden: () => document.visibilityState === 'hidden',
});

/**
 * Runs `run` once, after the browser's next frame has been made (its animation-frame callbacks, the
 * page's style, layout and paint: a task after them), at once in a page not shown, and after `waitMs`
 * at the latest (a page hidden after this call makes no frames).
 */
export function afterNextFrame(
  run: () => void,
  clock: FrameClock = browserClock(),
  waitMs: number = NEXT_FRAME_WAIT_MS,
): void {
  if (clock.hidden()) {
    run();
    return;
  }
  let ran = false;
  const once = () => {
    if (ran) return;
    ran = true;
    clock.clearTimeout(latest);
    run();
  };
  const latest = clock.setTimeout(once, waitMs);
  clock.requestAnimationFrame(() => clock.setTimeout(once, 0));
}
