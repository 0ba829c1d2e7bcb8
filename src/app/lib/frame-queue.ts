/**
 * Work that follows a live stream, done at most once per animation frame: a busy pair brings a trade
 * every few milliseconds, and drawing each on arrival costs a chart repaint (or a React render) per
 * trade. A job asked again while it waits keeps its place and runs once, with whatever came since.
 *
 * `perFrame` jobs run in a frame, the longest waiting first: charts that follow the same pool take
 * turns (one chart's repaint per frame rather than all of them in the same frame, which made frames
 * of 50-100 ms with four charts at 50 trades/s). With `intervalMs`, runs are that far apart at least
 * (the page's text that follows trades: a few updates a second are all anyone reads). In a hidden tab,
 * where frames do not come, jobs run on a timer instead so that nothing piles up.
 */
export class FrameQueue {
  private readonly jobs = new Set<() => void>();
  private scheduled = false;
  private lastRun = Number.NEGATIVE_INFINITY;

  /**
   * @param perFrame at most this many jobs in one frame (the longest waiting first).
   * @param intervalMs at least this long between two runs: the frame after it, not every frame.
   */
  constructor(
    private readonly perFrame: number = Number.POSITIVE_INFINITY,
    private readonly intervalMs: number = 0,
  ) {}

  /** Runs `job` on a coming frame (once, however often it is asked before). */
  request(job: () => void): void {
    this.jobs.add(job);
    this.schedule();
  }

  /** `job` is not run (its work was done another way, or its owner is gone). */
  cancel(job: () => void): void {
    this.jobs.delete(job);
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.size === 0) return;
    this.scheduled = true;
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') {
      setTimeout(this.run, Math.max(HIDDEN_DELAY_MS, this.intervalMs));
      return;
    }
    const wait = this.lastRun + this.intervalMs - performance.now();
    if (wait <= 0) {
      requestAnimationFrame(this.run);
      return;
    }
    // Scheduled again once the interval is over: a tab hidden meanwhile gets its timer, not a frame that never comes.
    setTimeout(() => {
      this.scheduled = false;
      this.schedule();
    }, wait);
  }

  private readonly run = () => {
    this.scheduled = false;
    this.lastRun = performance.now();
    const due: (() => void)[] = [];
    for (const job of this.jobs) {
      if (due.length >= this.perFrame) break;
      due.push(job);
    }
    for (const job of due) this.jobs.delete(job);
    // The next frame is asked before running: a job that throws does not stop the others.
    this.schedule();
    for (const job of due) {
      try {
        job();
      } catch (error) {
        // Reported as any uncaught error is, after the others ran.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
}

/** A hidden tab's pace (no frames there; its timers are throttled to about a second anyway). */
const HIDDEN_DELAY_MS = 250;

/** The least time between two of the charts' turns: one and a half frames at 60 Hz, so a turn every other frame. */
const CHART_TURN_MS = 25;

/**
 * The charts' turns: each job repaints one chart (its live bars, features/chart; a time range kept in
 * step with another chart, features/layouts), one job per turn, so that several charts never repaint
 * in the same frame; and a turn every other frame at most (CHART_TURN_MS), so that a frame with a
 * chart's repaint is followed by one without: the page's paint, the compositor and everything else get
 * their frames too. One chart then follows a busy pool at 30 repaints a second, four charts at about 8
 * each; every trade is in its bar at once, the repaint shows what came since.
 */
export const chartTurns = new FrameQueue(1, CHART_TURN_MS);
